import { afterEach, describe, expect, it } from 'vitest'
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js'

let receiver: WebhookReceiver | undefined

afterEach(async () => {
  await receiver?.close()
  receiver = undefined
})

async function post(url: string, event: string): Promise<{ status: number; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-event-id': `evt-${event}` },
    body: JSON.stringify({ id: `evt-${event}`, event, timestamp: 1, payment: { id: 'pay_1' } }),
  })
  return { status: response.status, text: await response.text() }
}

describe('startWebhookReceiver', () => {
  it('records each request with its raw body, headers and the status it answered', async () => {
    receiver = await startWebhookReceiver()
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    expect(await post(receiver.url, 'payment.pending')).toEqual({ status: 200, text: 'ok' })
    const [webhook] = receiver.received
    expect(webhook?.rawBody).toBe(
      '{"id":"evt-payment.pending","event":"payment.pending","timestamp":1,"payment":{"id":"pay_1"}}',
    )
    expect(webhook?.body.event).toBe('payment.pending')
    expect(webhook?.headers['x-event-id']).toBe('evt-payment.pending')
    expect(webhook?.answeredWith).toBe(200)
  })

  it('fails the next requests as scripted, then succeeds', async () => {
    receiver = await startWebhookReceiver()
    receiver.failNext(2, 503)
    const statuses = []
    for (const event of ['a', 'b', 'c']) statuses.push((await post(receiver.url, event)).status)
    expect(statuses).toEqual([503, 503, 200])
    expect(receiver.received.map((r) => r.answeredWith)).toEqual([503, 503, 200])
  })

  it('waits for what is expected, and says what arrived when it does not come', async () => {
    receiver = await startWebhookReceiver()
    const waiting = receiver.waitFor((all) => all.some((r) => r.body.event === 'payment.confirmed'))
    await post(receiver.url, 'payment.confirmed')
    expect((await waiting).map((r) => r.body.event)).toEqual(['payment.confirmed'])
    await expect(receiver.waitFor((all) => all.length > 5, 200)).rejects.toThrow(
      'webhooks did not arrive in time; received: [["payment.confirmed",200]]',
    )
  })
})

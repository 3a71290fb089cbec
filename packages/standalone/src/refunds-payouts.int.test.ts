// Refunds and payouts on the whole standalone shape (docs/api.md, "Refunds and payouts"): a payment paid
// through the chain simulator, refunded by address; every state change reaches the merchant's webhook
// endpoint through the relay, the bus and the notifier, with the refund as it then is.

import { systemClock } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'

let standalone: InProcessStandalone
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
})

async function admin(path: string, body: unknown) {
  const response = await fetch(`${standalone.adminUrl}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

type Outgoing = Record<string, unknown>
const refundsOf = (received: WebhookReceiver['received'], refundId: string) =>
  received.flatMap((webhook) => {
    const refund = (webhook.body as unknown as { refund?: Outgoing }).refund
    return refund?.id === refundId ? [{ event: webhook.body.event, refund }] : []
  })

describe('refunds on standalone', () => {
  it('refunds an overpayment by address; the merchant hears of each state change', async () => {
    const client = merchantClientFor(standalone)
    const endpoint = await client.request('POST', '/webhook-endpoints', JSON.stringify({ url: receiver.url }))
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
    const created = (await client.createPayment({ amount: '10', currency: 'USDT', network: 'TRON' } as never))
      .body as PaymentBody
    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '12', currency: 'USDT' })
    await waitForPayment(client, created.paymentId, (seen) => seen.status === 'overpaid')

    const refund = await client.request(
      'POST',
      `/payments/${created.paymentId}/refunds`,
      JSON.stringify({ amount: '2', address: CUSTOMER, reason: 'overpaid', idempotencyKey: 'overpaid-1' }),
    )
    expect(refund.status, JSON.stringify(refund.body)).toBe(201)
    const refundId = (refund.body as { refundId: string }).refundId
    const path = `/outgoing/refund/${refundId}`
    expect((await admin(`${path}/plan`, { planId: 'plan-1' })).status).toBe(200)
    expect((await admin(`${path}/sent`, { planId: 'plan-1', txHash: 'ab'.repeat(32) })).status).toBe(200)
    const completed = await admin(`${path}/completed`, {
      txHash: 'ab'.repeat(32),
      networkFee: { currency: 'TRX', amount: '0.345' },
    })
    expect(completed.body).toMatchObject({ status: 'completed' })

    const received = await receiver.waitFor((all) => refundsOf(all, refundId).length >= 4, 20_000)
    expect(refundsOf(received, refundId)).toEqual([
      {
        event: 'refund.created',
        refund: expect.objectContaining({ status: 'READY', amount: '2', address: CUSTOMER }),
      },
      { event: 'refund.sending', refund: expect.objectContaining({ status: 'SENDING' }) },
      { event: 'refund.sent', refund: expect.objectContaining({ status: 'SENT', tx_hash: 'ab'.repeat(32) }) },
      {
        event: 'refund.completed',
        refund: expect.objectContaining({
          status: 'COMPLETED',
          payment_id: created.paymentId,
          network_fee: { currency: 'TRX', amount: '0.345' },
        }),
      },
    ])
    const balances = await client.request('GET', '/balances')
    expect(balances.body).toEqual({
      data: [
        {
          network: 'TRON',
          currency: 'USDT',
          receivedNetAmount: '11.88',
          refundedAmount: '2',
          paidOutAmount: '0',
          availableAmount: '9.88',
        },
      ],
    })
  }, 60_000)
})

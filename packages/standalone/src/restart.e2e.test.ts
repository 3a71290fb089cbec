// Restarts and kill -9 in the middle of flows: whatever was acknowledged survives, and every flow
// finishes after the restart.

import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { newDataDir, type StandaloneProcess, startStandalone } from './testing/standalone-process.js'

const running: StandaloneProcess[] = []
let receiver: WebhookReceiver | undefined

async function start(dataDir: string, env: Record<string, string> = {}): Promise<StandaloneProcess> {
  const standalone = await startStandalone({ dataDir, env })
  running.push(standalone)
  return standalone
}

afterEach(async () => {
  for (const standalone of running.splice(0)) await standalone.kill()
  await receiver?.close()
  receiver = undefined
})

describe('kill -9 and restart', () => {
  it('an acknowledged create survives a kill -9 right after the response, with its idempotency record', async () => {
    const dataDir = newDataDir()
    const first = await start(dataDir)
    const merchant = first.demoMerchant()
    const body = { amount: '12.345678', currency: 'USDT', network: 'TRON', idempotencyKey: 'order-restart-1' }
    const created = await merchantClientFor(first).createPayment(body as never)
    expect(created.status).toBe(201)
    await first.kill()

    const second = await start(dataDir)
    expect(second.demoMerchant()).toEqual(merchant)
    const client = merchantClientFor(second)
    const payment = created.body as PaymentBody
    const read = await client.getPayment(payment.paymentId)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({ paymentId: payment.paymentId, status: 'pending', amount: '12.345678' })

    const replay = await client.createPayment(body as never)
    expect(replay.status).toBe(200)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect((replay.body as PaymentBody).paymentId).toBe(payment.paymentId)
  })

  it('every create acknowledged under load survives a kill -9 in the middle of group commits, each with an address of its own', async () => {
    const dataDir = newDataDir()
    const first = await start(dataDir)
    const client = merchantClientFor(first)
    const acknowledged: { body: Record<string, string>; payment: PaymentBody }[] = []
    let killed = false
    // 16 creates in flight at all times: each group commit carries several of them
    const writer = async (writerId: number) => {
      for (let n = 0; !killed; n += 1) {
        const body = {
          amount: '1',
          currency: 'USDT',
          network: 'TRON',
          idempotencyKey: `load-${writerId}-${n}`,
        }
        const response = await client.createPayment(body as never).catch(() => null)
        if (response?.status === 201) acknowledged.push({ body, payment: response.body as PaymentBody })
      }
    }
    const writers = Array.from({ length: 16 }, (_, writerId) => writer(writerId))
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(100), { timeout: 60_000 })
    await first.kill()
    killed = true
    await Promise.all(writers)

    const second = await start(dataDir)
    const after = merchantClientFor(second)
    for (const { body, payment } of acknowledged) {
      const read = await after.getPayment(payment.paymentId)
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({
        paymentId: payment.paymentId,
        generatedAddress: payment.generatedAddress,
      })
      const replay = await after.createPayment(body as never)
      expect(replay.status).toBe(200)
      expect((replay.body as PaymentBody).paymentId).toBe(payment.paymentId)
    }
    // pooled or derived on the spot, before the kill or after: never one address twice
    const addresses = acknowledged.map(({ payment }) => payment.generatedAddress)
    const fresh = await after.createPayment({ amount: '1', currency: 'USDT', network: 'TRON' } as never)
    addresses.push((fresh.body as PaymentBody).generatedAddress)
    expect(new Set(addresses).size).toBe(addresses.length)
  })

  it('a payment confirming when the process is killed is confirmed after the restart, counted once', async () => {
    const dataDir = newDataDir()
    const env = { TRON_BLOCK_INTERVAL_MS: '150' }
    const first = await start(dataDir, env)
    const created = (
      await merchantClientFor(first).createPayment({ amount: '3', currency: 'TRX', network: 'TRON' } as never)
    ).body as PaymentBody
    const txHash = await pay(first, 'TRON', { to: created.generatedAddress, amount: '3', currency: 'TRX' })
    await waitForPayment(
      merchantClientFor(first),
      created.paymentId,
      (p) => p.txHash === txHash && p.confirmations >= 3,
    )
    await first.kill()

    const second = await start(dataDir, env)
    const confirmed = await waitForPayment(
      merchantClientFor(second),
      created.paymentId,
      (p) => p.status === 'confirmed',
    )
    expect(confirmed).toMatchObject({ receivedAmount: '3', txHash, confirmations: 20 })
  })

  it('pending webhook deliveries and their retry schedule survive a kill -9', async () => {
    receiver = await startWebhookReceiver()
    receiver.failNext(1_000)
    const dataDir = newDataDir()
    const env = { WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms' }
    const first = await start(dataDir, env)
    const created = (
      await merchantClientFor(first).createPayment({
        amount: '1',
        currency: 'TRX',
        network: 'TRON',
        callbackUrl: receiver.url,
      } as never)
    ).body as PaymentBody
    await receiver.waitFor((all) => all.filter((r) => r.body.payment.id === created.paymentId).length >= 2)
    await first.kill()

    receiver.failNext(0)
    await start(dataDir, env)
    const received = await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === created.paymentId && r.answeredWith === 200),
    )
    const attempts = received.filter((r) => r.body.payment.id === created.paymentId)
    expect(new Set(attempts.map((a) => a.headers['x-event-id'])).size).toBe(1)
    expect(attempts.every((a) => a.body.event === 'payment.pending')).toBe(true)
  })

  it('SIGTERM stops cleanly with exit code 0', async () => {
    const standalone = await start(newDataDir())
    expect(await standalone.stop()).toBe(0)
  })
})

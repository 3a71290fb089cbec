// The merchant's whole journey on a real standalone process: create, pay on the simulated chain,
// watch it settle, receive signed webhooks.

import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import type { MerchantClient } from '@chainpay/test-client'
import { verifyWebhook } from '@chainpay/test-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type StandaloneProcess, startStandalone } from './testing/standalone-process.js'

let standalone: StandaloneProcess
let client: MerchantClient
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startStandalone({ env: { WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms,400ms,500ms' } })
  client = merchantClientFor(standalone)
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
})

async function create(body: Record<string, unknown>): Promise<PaymentBody> {
  const response = await client.createPayment({ callbackUrl: receiver.url, ...body } as never)
  expect(response.status).toBe(201)
  return response.body as PaymentBody
}

const eventsOf = (paymentId: string) =>
  receiver.received
    .filter((r) => r.answeredWith === 200 && r.body.payment.id === paymentId)
    .map((r) => r.body.event)

describe('a payment paid in full', () => {
  it('is confirmed after 20 TRON confirmations and the merchant gets verified webhooks in order', async () => {
    const created = await create({
      amount: '25.50',
      currency: 'USDT',
      network: 'TRON',
      metadata: { orderId: '1001' },
    })
    expect(created).toMatchObject({
      status: 'pending',
      amount: '25.50',
      expectedAmount: '25.5',
      feeAmount: '0.255',
      netAmount: '25.245',
    })

    const txHash = await pay(standalone, 'TRON', {
      to: created.generatedAddress,
      amount: '25.5',
      currency: 'USDT',
    })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({ receivedAmount: '25.5', txHash, confirmations: 20 })
    expect(confirmed.confirmedAt).not.toBeNull()

    const webhooks = await receiver.waitFor(() => eventsOf(created.paymentId).includes('payment.confirmed'))
    expect(eventsOf(created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
    const delivered = webhooks.filter((w) => w.body.payment.id === created.paymentId)
    const secret = standalone.demoMerchant().webhookSecret
    for (const webhook of delivered) {
      const verification = verifyWebhook(
        secret,
        {
          rawBody: webhook.rawBody,
          signature: webhook.headers['x-signature'] ?? '',
          timestamp: webhook.headers['x-timestamp'] ?? '',
          eventId: webhook.headers['x-event-id'] ?? '',
        },
        Math.floor(Date.now() / 1000),
      )
      expect(verification).toEqual({ ok: true })
      expect(webhook.body.id).toBe(webhook.headers['x-event-id'])
      expect(webhook.headers['x-event-type']).toBe(webhook.body.event)
      expect(webhook.headers['x-timestamp']).toBe(String(webhook.body.timestamp))
    }
    const confirmedHook = delivered.find((w) => w.body.event === 'payment.confirmed')
    expect(confirmedHook?.body.payment).toMatchObject({
      status: 'CONFIRMED',
      tx_hash: txHash,
      metadata: { orderId: '1001' },
    })
    expect(confirmedHook?.rawBody).toContain('"amount":25.50')
  })

  it('settles an SPL payment sent to its token account after 32 Solana confirmations', async () => {
    const created = await create({ amount: '3', currency: 'USDC', network: 'SOLANA' })
    expect(created.generatedTokenAccount).not.toBeNull()
    await pay(standalone, 'SOLANA', {
      to: created.generatedTokenAccount as string,
      amount: '3',
      currency: 'USDC',
    })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed.confirmations).toBe(32)
  })

  it('settles an SPL payment sent to its address, as every wallet sends it (to the owner)', async () => {
    const created = await create({ amount: '2.5', currency: 'USDC', network: 'SOLANA' })
    // the dev route lands it in the owner's associated token account, opened by this transfer
    const txHash = await pay(standalone, 'SOLANA', {
      to: created.generatedAddress,
      amount: '2.5',
      currency: 'USDC',
    })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({ receivedAmount: '2.5', txHash, confirmations: 32 })
  })
})

describe('Solana tokens paid to the payment\'s address, as wallets pay (docs/api.md, "Development endpoints")', () => {
  it('counts USDC sent in two transfers to generatedAddress, and USDT sent there as foreign funds', async () => {
    const created = await create({ amount: '3', currency: 'USDC', network: 'SOLANA' })
    const to = created.generatedAddress
    await pay(standalone, 'SOLANA', { to, amount: '0.5', currency: 'USDT' })
    await pay(standalone, 'SOLANA', { to, amount: '1.25', currency: 'USDC' })
    await pay(standalone, 'SOLANA', { to, amount: '1.75', currency: 'USDC' })
    const confirmed = await waitForPayment(
      client,
      created.paymentId,
      (p) =>
        p.status === 'confirmed' && (p as unknown as { foreignFunds: unknown[] }).foreignFunds.length > 0,
    )
    expect(confirmed).toMatchObject({
      receivedAmount: '3',
      confirmations: 32,
      foreignFunds: [{ currency: 'USDT', amount: '0.5' }],
    })
  })
})

describe('test networks', () => {
  it('simulates the test networks of the registry too', async () => {
    const created = await create({ amount: '0.5', currency: 'USDT', network: 'TRON_NILE' })
    await pay(standalone, 'TRON_NILE', { to: created.generatedAddress, amount: '0.5', currency: 'USDT' })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed.receivedAmount).toBe('0.5')
  })
})

describe('partial and excess payments', () => {
  it('underpaid, then a top-up before expiry confirms it', async () => {
    const created = await create({ amount: '10', currency: 'TRX', network: 'TRON' })
    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '4', currency: 'TRX' })
    const underpaid = await waitForPayment(client, created.paymentId, (p) => p.status === 'underpaid')
    expect(underpaid.receivedAmount).toBe('4')

    const topUp = await pay(standalone, 'TRON', {
      to: created.generatedAddress,
      amount: '6',
      currency: 'TRX',
    })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({ receivedAmount: '10', txHash: topUp })
    await receiver.waitFor(() => eventsOf(created.paymentId).includes('payment.confirmed'))
    expect(eventsOf(created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.underpaid',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
  })

  it('overpaid when more than expected arrives', async () => {
    const created = await create({ amount: '1.5', currency: 'SOL', network: 'SOLANA' })
    await pay(standalone, 'SOLANA', { to: created.generatedAddress, amount: '1.75', currency: 'SOL' })
    const overpaid = await waitForPayment(client, created.paymentId, (p) => p.status === 'overpaid')
    expect(overpaid.receivedAmount).toBe('1.75')
    await receiver.waitFor(() => eventsOf(created.paymentId).includes('payment.overpaid'))
  })
})

describe('cancel', () => {
  it('cancels a pending payment, reports it, and reports funds that arrive afterwards without changing the status', async () => {
    const created = await create({ amount: '5', currency: 'USDT', network: 'TRON' })
    const canceled = await client.cancelPayment(created.paymentId)
    expect(canceled.status).toBe(200)
    expect((canceled.body as PaymentBody).status).toBe('canceled')
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('canceled')

    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '5', currency: 'USDT' })
    await receiver.waitFor(() => eventsOf(created.paymentId).includes('payment.late_funds'))
    expect(eventsOf(created.paymentId)).toEqual(['payment.pending', 'payment.canceled', 'payment.late_funds'])
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('canceled')
  })
})

describe('idempotency', () => {
  it('20 concurrent duplicates create exactly one payment', async () => {
    const body = { amount: '7', currency: 'USDT', network: 'TRON', idempotencyKey: `dup-${Date.now()}` }
    const responses = await Promise.all(Array.from({ length: 20 }, () => client.createPayment(body as never)))
    const ids = new Set(responses.map((r) => (r.body as PaymentBody).paymentId))
    expect(ids.size).toBe(1)
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1)
    expect(
      responses.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === 'true'),
    ).toHaveLength(19)
  })
})

describe('webhook retries', () => {
  it('a receiver that fails three times then succeeds gets every event once, in order', async () => {
    receiver.failNext(3)
    const created = await create({ amount: '2', currency: 'TRX', network: 'TRON' })
    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '2', currency: 'TRX' })
    await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    await receiver.waitFor(() => eventsOf(created.paymentId).includes('payment.confirmed'))

    const attempts = receiver.received.filter((r) => r.body.payment.id === created.paymentId)
    expect(attempts.filter((a) => a.answeredWith !== 200)).toHaveLength(3)
    expect(eventsOf(created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
    const pendingIds = new Set(
      attempts.filter((a) => a.body.event === 'payment.pending').map((a) => a.headers['x-event-id']),
    )
    expect(pendingIds.size).toBe(1)
  })
})

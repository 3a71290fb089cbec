// Expiry takes a real minute (expiresInMinutes is at least 1), so it has a process of its own and
// runs beside the other end-to-end files.

import type { MerchantClient } from '@chainpay/client'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, waitForPayment } from './testing/flow.js'
import { type StandaloneProcess, startStandalone } from './testing/standalone-process.js'

let standalone: StandaloneProcess
let client: MerchantClient
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startStandalone()
  client = merchantClientFor(standalone)
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
})

describe('expiry', () => {
  it('a pending payment with nothing received expires at expiresAt and the merchant is told', async () => {
    const response = await client.createPayment({
      amount: '1',
      currency: 'TRX',
      network: 'TRON',
      expiresInMinutes: 1,
      callbackUrl: receiver.url,
    } as never)
    expect(response.status).toBe(201)
    const created = response.body as PaymentBody & { expiresAt: string }
    const expired = await waitForPayment(client, created.paymentId, (p) => p.status === 'expired', 100_000)
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(created.expiresAt))
    expect(expired.receivedAmount).toBeNull()
    await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === created.paymentId && r.body.event === 'payment.expired'),
    )
  }, 110_000)
})

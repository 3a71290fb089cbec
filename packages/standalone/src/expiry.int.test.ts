// Expiry on the clock: standalone composed in this process (its real wiring, on a clock the test
// drives), so that a payment's minute passes without a real minute passing. Chain time is the
// simulator's block time, stamped from the same clock, so both halves of the rule (docs/api.md,
// "Lifecycle": the clock and the watched chain past expiresAt) are exercised.

import { createManualClock } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const clock = createManualClock(new Date())
let standalone: InProcessStandalone
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock })
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
})

describe('expiry', () => {
  it('a pending payment with nothing received expires at expiresAt, not before; the merchant is told, and later funds are reported', async () => {
    const client = merchantClientFor(standalone)
    const response = await client.createPayment({
      amount: '1',
      currency: 'TRX',
      network: 'TRON',
      expiresInMinutes: 1,
      callbackUrl: receiver.url,
    } as never)
    expect(response.status).toBe(201)
    const created = response.body as PaymentBody & { expiresAt: string }

    clock.advance(59_000)
    // a second of blocks and expiry passes on a clock still short of expiresAt
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('pending')

    clock.advance(2_000)
    const expired = await waitForPayment(client, created.paymentId, (p) => p.status === 'expired', 30_000)
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse(created.expiresAt))
    expect(expired.receivedAmount).toBeNull()
    await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === created.paymentId && r.body.event === 'payment.expired'),
    )

    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '1', currency: 'TRX' })
    await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === created.paymentId && r.body.event === 'payment.late_funds'),
    )
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('expired')
  }, 60_000)
})

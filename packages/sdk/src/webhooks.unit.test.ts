import { createHmac } from 'node:crypto'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { WebhookVerificationError } from './errors.js'
import {
  depositWebhookOf,
  invoiceWebhookOf,
  isDepositWebhookEvent,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventType,
} from './webhooks.js'

const now = 1_795_356_187
const secret = 'whsec_current'
const oldSecret = 'whsec_previous'
const body = JSON.stringify({
  id: 'e1',
  event: 'payment.confirmed',
  timestamp: now,
  payment: { id: 'p1', status: 'CONFIRMED', amount: 25.5, tx_hash: 'ab', expected_amount: '25.5' },
})
const sign = (key: string, timestamp: number | string, raw: string) =>
  createHmac('sha256', key).update(`${timestamp}.${raw}`).digest('hex')

const headersFor = (signature: string, overrides: Record<string, string> = {}) => ({
  'x-signature': signature,
  'x-timestamp': String(now),
  'x-event-id': 'e1',
  'x-event-type': 'payment.confirmed',
  ...overrides,
})

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason
    throw error
  }
  return 'verified'
}

describe('verifyWebhook', () => {
  it('answers the typed event of a delivery signed with the secret', async () => {
    const event = await verifyWebhook({
      rawBody: body,
      headers: headersFor(sign(secret, now, body)),
      secret,
      nowSeconds: now,
    })
    expect(event.id).toBe('e1')
    expect(event.event).toBe('payment.confirmed')
    expect(event.payment.expected_amount).toBe('25.5')
  })

  it('verifies an invoice webhook, which invoiceWebhookOf tells apart, with its invoice', async () => {
    const invoiceBody = JSON.stringify({
      id: 'e1',
      event: 'invoice.paid',
      timestamp: now,
      invoice: {
        id: 'i1',
        status: 'PAID',
        price_amount: '19.99',
        price_currency: 'EUR',
        paid_payment_id: 'p1',
      },
    })
    const event = await verifyWebhook({
      rawBody: invoiceBody,
      headers: headersFor(sign(secret, now, invoiceBody), { 'x-event-type': 'invoice.paid' }),
      secret,
      nowSeconds: now,
    })
    expect(invoiceWebhookOf(event)?.invoice.paid_payment_id).toBe('p1')
    const payment = await verifyWebhook({
      rawBody: body,
      headers: headersFor(sign(secret, now, body)),
      secret,
      nowSeconds: now,
    })
    expect(invoiceWebhookOf(payment)).toBeNull()
  })

  it('verifies a deposit webhook, which isDepositWebhookEvent and depositWebhookOf tell apart, with its deposit', async () => {
    const depositBody = JSON.stringify({
      id: 'e1',
      event: 'deposit.confirmed',
      timestamp: now,
      deposit: { id: 'd1', status: 'CONFIRMED', merchant_user_id: 'customer-8841', net_amount: '12.375' },
    })
    const event = await verifyWebhook({
      rawBody: depositBody,
      headers: headersFor(sign(secret, now, depositBody), { 'x-event-type': 'deposit.confirmed' }),
      secret,
      nowSeconds: now,
    })
    expect(isDepositWebhookEvent(event)).toBe(true)
    expect(depositWebhookOf(event)?.deposit.merchant_user_id).toBe('customer-8841')
    const payment = await verifyWebhook({
      rawBody: body,
      headers: headersFor(sign(secret, now, body)),
      secret,
      nowSeconds: now,
    })
    expect(isDepositWebhookEvent(payment)).toBe(false)
    expect(depositWebhookOf(payment)).toBeNull()
  })

  it('reads Fetch API Headers, header names in any case and the body as bytes', async () => {
    const headers = new Headers(headersFor(sign(secret, now, body)))
    const event = await verifyWebhook({
      rawBody: new TextEncoder().encode(body),
      headers,
      secret,
      nowSeconds: now,
    })
    expect(event.payment.id).toBe('p1')
    const upper = { 'X-Signature': sign(secret, now, body), 'X-Timestamp': String(now), 'X-Event-Id': 'e1' }
    expect((await verifyWebhook({ rawBody: body, headers: upper, secret, nowSeconds: now })).id).toBe('e1')
  })

  it('during a rotation accepts a delivery that carries both signatures, with either secret', async () => {
    const both = `${sign(secret, now, body)},${sign(oldSecret, now, body)}`
    for (const key of [secret, oldSecret]) {
      expect(
        (await verifyWebhook({ rawBody: body, headers: headersFor(both), secret: key, nowSeconds: now })).id,
      ).toBe('e1')
    }
    // a receiver mid-rotation of its own holds both secrets
    const onlyOld = headersFor(sign(oldSecret, now, body))
    expect(
      (await verifyWebhook({ rawBody: body, headers: onlyOld, secret: [secret, oldSecret], nowSeconds: now }))
        .id,
    ).toBe('e1')
  })

  it('refuses a wrong signature, a changed body, another secret', async () => {
    const signature = sign(secret, now, body)
    expect(
      await failure(
        verifyWebhook({ rawBody: `${body} `, headers: headersFor(signature), secret, nowSeconds: now }),
      ),
    ).toBe('bad_signature')
    expect(
      await failure(
        verifyWebhook({ rawBody: body, headers: headersFor(signature), secret: oldSecret, nowSeconds: now }),
      ),
    ).toBe('bad_signature')
    const otherTime = headersFor(signature, { 'x-timestamp': String(now + 1) })
    expect(await failure(verifyWebhook({ rawBody: body, headers: otherTime, secret, nowSeconds: now }))).toBe(
      'bad_signature',
    )
  })

  it('refuses a timestamp more than 5 minutes away, either way', async () => {
    const signature = sign(secret, now, body)
    for (const at of [now + 301, now - 301]) {
      expect(
        await failure(
          verifyWebhook({ rawBody: body, headers: headersFor(signature), secret, nowSeconds: at }),
        ),
      ).toBe('stale_timestamp')
    }
    expect(
      (await verifyWebhook({ rawBody: body, headers: headersFor(signature), secret, nowSeconds: now + 300 }))
        .id,
    ).toBe('e1')
  })

  it('refuses a signed body replayed under another X-Event-Id', async () => {
    const headers = headersFor(sign(secret, now, body), { 'x-event-id': 'e2' })
    expect(await failure(verifyWebhook({ rawBody: body, headers, secret, nowSeconds: now }))).toBe(
      'event_id_mismatch',
    )
  })

  it('says what is missing or malformed', async () => {
    const { 'x-event-id': _, ...noId } = headersFor(sign(secret, now, body))
    expect(await failure(verifyWebhook({ rawBody: body, headers: noId, secret, nowSeconds: now }))).toBe(
      'missing_headers',
    )
    const badTime = headersFor(sign(secret, now, body), { 'x-timestamp': '17953e5' })
    expect(await failure(verifyWebhook({ rawBody: body, headers: badTime, secret, nowSeconds: now }))).toBe(
      'malformed',
    )
    const notUtf8 = new Uint8Array([0x7b, 0xff, 0x7d])
    expect(
      await failure(
        verifyWebhook({ rawBody: notUtf8, headers: headersFor('00'.repeat(32)), secret, nowSeconds: now }),
      ),
    ).toBe('malformed')
  })
})

// Compiled under the workspace's --strict (scripts/typecheck): each function below type-checks only
// because comparing `event` narrows the union (docs/sdk.md, "Webhooks").
function lateFundsAmount(event: WebhookEvent): string | null {
  if (event.event !== 'payment.late_funds') return null
  return event.payment.late_funds.amount
}

function describeEvent(event: WebhookEvent): string {
  switch (event.event) {
    case 'payment.transfer_detected':
      return `${event.payment.transfer.tx_hash} ${event.payment.transfer.confirmations}/${event.payment.required_confirmations}`
    case 'payment.foreign_funds':
      return `${event.payment.foreign_funds.amount} ${event.payment.foreign_funds.currency}`
    case 'payment.late_funds':
      return event.payment.late_funds.tx_hash
    default:
      return event.event
  }
}

describe('WebhookEvent', () => {
  it('narrows on its event to the fields that kind carries, without a cast', async () => {
    const late = JSON.stringify({
      id: 'e2',
      event: 'payment.late_funds',
      timestamp: now,
      payment: {
        id: 'p1',
        status: 'EXPIRED',
        amount: 25.5,
        tx_hash: null,
        late_funds: { tx_hash: 'cd', amount: '25.5' },
      },
    })
    const event = await verifyWebhook({
      rawBody: late,
      headers: headersFor(sign(secret, now, late), { 'x-event-id': 'e2' }),
      secret,
      nowSeconds: now,
    })
    expect(lateFundsAmount(event)).toBe('25.5')
    expect(describeEvent(event)).toBe('cd')
    expectTypeOf<
      Extract<WebhookEvent, { event: 'payment.late_funds' }>['payment']['late_funds']
    >().toEqualTypeOf<{
      tx_hash: string
      amount: string
    }>()
    expectTypeOf<WebhookEventType>().toEqualTypeOf<WebhookEvent['event']>()
    // not narrowed, a kind's own fields are unknown: reaching into them is a type error
    // @ts-expect-error late_funds is unknown until event is compared with 'payment.late_funds'
    expect(event.payment.late_funds.amount).toBe('25.5')
  })
})

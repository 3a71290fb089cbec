import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { renderWebhookBody, type WebhookBodyInput, WebhookBodySchema, WebhookEventKinds } from './webhooks.js'

const input: WebhookBodyInput = {
  id: '7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5',
  event: 'payment.confirmed',
  payment: {
    id: '0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b',
    status: 'CONFIRMED',
    amount: '10.50',
    tx_hash: '5f2c9a',
    currency: 'USDT',
    network: 'TRON',
    expected_amount: '10.5',
    received_amount: '10.5',
    fee_amount: '0.105',
    net_amount: '10.395',
    confirmations: 20,
    metadata: { orderId: '1042', quote: 'say "hi"\n', vip: true, none: null },
  },
}

const bodyValidator = Compile(WebhookBodySchema)

describe('renderWebhookBody', () => {
  it('writes the exact text, keys in order, amount with its own digits', () => {
    expect(renderWebhookBody(input, 1_763_733_787)).toBe(
      '{"id":"7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5","event":"payment.confirmed","timestamp":1763733787,"payment":{' +
        '"id":"0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b","status":"CONFIRMED","amount":10.50,"tx_hash":"5f2c9a",' +
        '"currency":"USDT","network":"TRON","expected_amount":"10.5","received_amount":"10.5",' +
        '"fee_amount":"0.105","net_amount":"10.395","confirmations":20,' +
        '"metadata":{"orderId":"1042","quote":"say \\"hi\\"\\n","vip":true,"none":null}}}',
    )
  })

  it('parses back to the expected structure', () => {
    const parsed = JSON.parse(renderWebhookBody(input, 1_763_733_787))
    expect(parsed).toEqual({
      id: '7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5',
      event: 'payment.confirmed',
      timestamp: 1_763_733_787,
      payment: {
        ...input.payment,
        amount: 10.5,
      },
    })
    expect(Object.keys(parsed)).toEqual(['id', 'event', 'timestamp', 'payment'])
    expect(Object.keys(parsed.payment).slice(0, 4)).toEqual(['id', 'status', 'amount', 'tx_hash'])
    expect(bodyValidator.Check(parsed)).toBe(true)
  })

  it('keeps digits a double cannot hold', () => {
    const body = renderWebhookBody(
      { ...input, payment: { ...input.payment, amount: '123456789012345678.123456' } },
      1,
    )
    expect(body).toContain('"amount":123456789012345678.123456,')
    expect(JSON.parse(body).payment.amount).toBe(Number('123456789012345678.123456'))
  })

  it('writes null tx_hash and received_amount for a new payment, and upper-cases the status', () => {
    const pending = renderWebhookBody(
      {
        ...input,
        event: 'payment.pending',
        payment: {
          ...input.payment,
          status: 'pending',
          tx_hash: null,
          received_amount: null,
          confirmations: 0,
        },
      },
      1_763_733_787,
    )
    expect(pending).toContain('"status":"PENDING","amount":10.50,"tx_hash":null,')
    const parsed = JSON.parse(pending)
    expect(parsed.payment.received_amount).toBeNull()
    expect(bodyValidator.Check(parsed)).toBe(true)
  })

  it('adds late_funds last when present', () => {
    const body = renderWebhookBody(
      {
        ...input,
        event: 'payment.late_funds',
        payment: { ...input.payment, status: 'EXPIRED', late_funds: { tx_hash: 'beef', amount: '2' } },
      },
      1_763_733_787,
    )
    expect(body.endsWith(',"late_funds":{"tx_hash":"beef","amount":"2"}}}')).toBe(true)
    expect(bodyValidator.Check(JSON.parse(body))).toBe(true)
  })

  it.each(['1e3', '-1', '10.', 'NaN', '10.5 ', '0x10', '1,5'])(
    'refuses amount %j, which is no JSON decimal',
    (amount) => {
      expect(() => renderWebhookBody({ ...input, payment: { ...input.payment, amount } }, 1)).toThrow(
        /payment.amount must be a decimal amount/,
      )
    },
  )

  it('refuses an empty event id: the body must name the event its X-Event-Id names', () => {
    expect(() => renderWebhookBody({ ...input, id: '' }, 1)).toThrow(/id must be the event id/)
  })

  it.each([1.5, -1, Number.NaN])('refuses timestamp %s', (timestamp) => {
    expect(() => renderWebhookBody(input, timestamp)).toThrow(/timestamp must be Unix seconds/)
  })
})

describe('WebhookBodySchema', () => {
  it('names every event kind and rejects others', () => {
    const body = JSON.parse(renderWebhookBody(input, 1))
    for (const event of WebhookEventKinds) expect(bodyValidator.Check({ ...body, event })).toBe(true)
    expect(bodyValidator.Check({ ...body, event: 'payment.refunded' })).toBe(false)
    expect(bodyValidator.Check({ ...body, payment: { ...body.payment, amount: '10.50' } })).toBe(false)
  })

  it('requires the event id', () => {
    const { id: _id, ...withoutId } = JSON.parse(renderWebhookBody(input, 1))
    expect(bodyValidator.Check(withoutId)).toBe(false)
    expect(bodyValidator.Check({ ...withoutId, id: '' })).toBe(false)
  })
})

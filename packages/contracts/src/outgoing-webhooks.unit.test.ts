import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import { parseOutgoingEventMessage } from './outgoing-bus.js'
import { type OutgoingWebhookBodyInput, OutgoingWebhookBodySchema, renderWebhookBody } from './webhooks.js'

const refund: OutgoingWebhookBodyInput = {
  id: '7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5',
  event: 'refund.completed',
  refund: {
    id: '0b9d5c8e-6f0e-4a51-9b1a-2c7d2d9b1e01',
    status: 'COMPLETED',
    payment_id: '5f1c1b7e-3a2d-4b8e-8f6a-1d2c3b4a5e6f',
    network: 'TRON',
    currency: 'USDT',
    amount: '2.50',
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tx_hash: 'ab12',
    network_fee: { currency: 'TRX', amount: '0.345' },
    failure_reason: null,
  },
}

describe('refund and payout webhook bodies', () => {
  it('writes {id,event,timestamp,refund} with the amounts as the API’s decimal strings, valid for its schema', () => {
    const body = renderWebhookBody(refund, 1_764_322_800)
    expect(body).toBe(
      '{"id":"7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5","event":"refund.completed","timestamp":1764322800,"refund":{' +
        '"id":"0b9d5c8e-6f0e-4a51-9b1a-2c7d2d9b1e01","status":"COMPLETED","payment_id":"5f1c1b7e-3a2d-4b8e-8f6a-1d2c3b4a5e6f",' +
        '"network":"TRON","currency":"USDT","amount":"2.50","address":"TJRabPrwbZy45sbavfcjinPJC18kjpRTv8","tx_hash":"ab12",' +
        '"network_fee":{"currency":"TRX","amount":"0.345"},"failure_reason":null}}',
    )
    expect(Compile(OutgoingWebhookBodySchema).Check(JSON.parse(body))).toBe(true)
  })

  it('marks a test event', () => {
    expect(JSON.parse(renderWebhookBody({ ...refund, test: true }, 1))).toMatchObject({ test: true })
  })
})

describe('parseOutgoingEventMessage', () => {
  it('refuses a message no retry can mend, as poison', () => {
    expect(() => parseOutgoingEventMessage('{')).toThrow(expect.objectContaining({ poison: true }))
    expect(() => parseOutgoingEventMessage('{"eventId":"e","type":"RefundCreated","revision":0}')).toThrow(
      /missing or malformed/,
    )
  })
})

// The invoice decider's rules (docs/api.md, "Invoices"), given / when / then.

import { describe, it } from 'vitest'
import {
  decideInvoice,
  evolveInvoice,
  type InvoiceCommand,
  type InvoiceEvent,
  initialInvoiceState,
} from './invoice.js'
import { deciderSpecification } from './testing/decider-specification.js'

const given = deciderSpecification({
  decide: decideInvoice,
  evolve: evolveInvoice,
  initialState: initialInvoiceState,
})

const invoiceId = '0b7e4f1e-7c53-4a4e-8a57-8f0e1e0c2d11'
const merchantId = 'm_shop'
const firstPayment = '5f1d1c47-62c4-4a0c-9d3e-9d9f0c1f0a01'
const secondPayment = '5f1d1c47-62c4-4a0c-9d3e-9d9f0c1f0a02'
const at = (minutes: number) => new Date(Date.UTC(2026, 10, 28, 9, 0) + minutes * 60_000).toISOString()
const accepted = [
  { currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' },
  { currency: 'SOL', network: 'SOLANA', tokenStandard: 'NATIVE' },
]

const create = (fingerprint = 'f1'): InvoiceCommand => ({
  type: 'CreateInvoice',
  data: {
    invoiceId,
    merchantId,
    request: { priceAmount: '19.99', priceCurrency: 'EUR', expiresInMinutes: 60, idempotencyKey: 'order-1' },
    requestFingerprint: fingerprint,
    accepted,
    now: at(0),
  },
})

const created: InvoiceEvent = {
  type: 'InvoiceCreated',
  data: {
    invoiceId,
    merchantId,
    idempotencyKey: 'order-1',
    requestFingerprint: 'f1',
    priceAmount: '19.99',
    priceCurrency: 'EUR',
    accepted,
    description: null,
    metadata: {},
    callbackUrl: null,
    successRedirectUrl: null,
    cancelRedirectUrl: null,
    createdAt: at(0),
    expiresAt: at(60),
  },
}

const pick = (paymentId: string, minutes: number, currency = 'USDT', network = 'TRON'): InvoiceCommand => ({
  type: 'PickInvoicePayment',
  data: { invoiceId, paymentId, currency, network, now: at(minutes) },
})
const picked = (paymentId: string, minutes: number, currency = 'USDT', network = 'TRON'): InvoiceEvent => ({
  type: 'InvoicePaymentPicked',
  data: { invoiceId, paymentId, currency, network, pickedAt: at(minutes) },
})
const expire = (minutes: number, currentPaymentOpen = false): InvoiceCommand => ({
  type: 'ExpireInvoice',
  data: { invoiceId, now: at(minutes), currentPaymentOpen },
})
const cancel = (minutes: number, by = merchantId): InvoiceCommand => ({
  type: 'CancelInvoice',
  data: { invoiceId, merchantId: by, now: at(minutes) },
})
const paid = (paymentId: string, minutes: number): InvoiceCommand => ({
  type: 'MarkInvoicePaid',
  data: { invoiceId, paymentId, now: at(minutes) },
})

describe('CreateInvoice', () => {
  it('records the price, the accepted assets and the expiry', () => {
    given([]).when(create()).then([created])
  })

  it('replays the same request as nothing new, and refuses the key with another request', () => {
    given([created]).when(create()).thenNothingHappens()
    given([created])
      .when(create('f2'))
      .thenThrows('IDEMPOTENCY_KEY_REUSED', /idempotencyKey/)
  })
})

describe('PickInvoicePayment', () => {
  it('records the payment of the pick, and a re-pick as the new current payment', () => {
    given([created])
      .when(pick(firstPayment, 1))
      .then([picked(firstPayment, 1)])
    given([created, picked(firstPayment, 1)])
      .when(pick(secondPayment, 2, 'SOL', 'SOLANA'))
      .then([picked(secondPayment, 2, 'SOL', 'SOLANA')])
  })

  it('takes the same pick again as nothing new', () => {
    given([created, picked(firstPayment, 1)])
      .when(pick(firstPayment, 3))
      .thenNothingHappens()
  })

  it('refuses an asset the invoice does not accept, naming what it accepts', () => {
    given([created])
      .when(pick(firstPayment, 1, 'USDC', 'SOLANA'))
      .thenThrows('UNSUPPORTED_ASSET', /accepts USDT on TRON, SOL on SOLANA/)
  })

  it('refuses a pick at or after the expiry and on a closed invoice', () => {
    given([created])
      .when(pick(firstPayment, 60))
      .thenThrows('INVOICE_NOT_OPEN', /expired/)
    given([created, { type: 'InvoiceCanceled', data: { invoiceId, canceledAt: at(5) } }])
      .when(pick(firstPayment, 6))
      .thenThrows('INVOICE_NOT_OPEN', /canceled/)
  })

  it('is INVOICE_NOT_FOUND for an invoice that does not exist', () => {
    given([]).when(pick(firstPayment, 1)).thenThrows('INVOICE_NOT_FOUND')
  })
})

describe('MarkInvoicePaid', () => {
  it('makes the invoice paid by a payment of one of its picks', () => {
    given([created, picked(firstPayment, 1)])
      .when(paid(firstPayment, 20))
      .then([{ type: 'InvoicePaid', data: { invoiceId, paymentId: firstPayment, paidAt: at(20) } }])
  })

  it('ignores a payment that is not the invoice, and an invoice already closed', () => {
    given([created, picked(firstPayment, 1)])
      .when(paid(secondPayment, 20))
      .thenNothingHappens()
    const paidEvent: InvoiceEvent = {
      type: 'InvoicePaid',
      data: { invoiceId, paymentId: firstPayment, paidAt: at(20) },
    }
    given([created, picked(firstPayment, 1), paidEvent])
      .when(paid(firstPayment, 21))
      .thenNothingHappens()
  })
})

describe('ExpireInvoice', () => {
  it('expires an open invoice at its expiry when no payment of it is open', () => {
    given([created])
      .when(expire(60))
      .then([{ type: 'InvoiceExpired', data: { invoiceId, expiredAt: at(60) } }])
  })

  it('waits before the expiry, and while its current payment is open (the chain decides that one)', () => {
    given([created]).when(expire(59)).thenNothingHappens()
    given([created, picked(firstPayment, 1)])
      .when(expire(61, true))
      .thenNothingHappens()
  })

  it('leaves a paid invoice paid', () => {
    const paidEvent: InvoiceEvent = {
      type: 'InvoicePaid',
      data: { invoiceId, paymentId: firstPayment, paidAt: at(20) },
    }
    given([created, picked(firstPayment, 1), paidEvent])
      .when(expire(61))
      .thenNothingHappens()
  })
})

describe('CancelInvoice', () => {
  it('cancels an open invoice, and a second cancel changes nothing', () => {
    const canceled: InvoiceEvent = { type: 'InvoiceCanceled', data: { invoiceId, canceledAt: at(5) } }
    given([created]).when(cancel(5)).then([canceled])
    given([created, canceled]).when(cancel(6)).thenNothingHappens()
  })

  it("is INVOICE_NOT_FOUND for another merchant's invoice, and INVOICE_NOT_CANCELABLE once paid", () => {
    given([created]).when(cancel(5, 'm_other')).thenThrows('INVOICE_NOT_FOUND')
    given([
      created,
      picked(firstPayment, 1),
      { type: 'InvoicePaid', data: { invoiceId, paymentId: firstPayment, paidAt: at(20) } },
    ])
      .when(cancel(21))
      .thenThrows('INVOICE_NOT_CANCELABLE', /paid/)
  })
})

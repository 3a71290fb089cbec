import { renderWebhookBody } from '@chainpay/contracts'
import { type PaymentEvent, PaymentEventTypes } from '@chainpay/domain'
import {
  at,
  confirmationsUpdated,
  foldPayment,
  foreignFunds,
  lateFunds,
  settled,
  transferDetected,
  underpaidFinalized,
} from '@chainpay/domain/testing'
import { describe, expect, it } from 'vitest'
import { newPaymentData, testCheckoutLinks } from './testing/payment-fixtures.js'
import { webhookKindOf, webhookPaymentFields } from './webhook-kinds.js'

const created = newPaymentData({ paymentId: '0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b' })
const paymentId = created.paymentId
const transfer = { txHash: 'ab'.repeat(32), transferIndex: 0 }
const detected = transferDetected({ ...transfer, paymentId })
const updated = confirmationsUpdated({ ...transfer, paymentId, confirmations: 20 })
const confirmed = settled('PaymentConfirmed', { paymentId, txHash: transfer.txHash, confirmedAt: at(6) })

describe('webhookKindOf', () => {
  it.each([
    ['PaymentCreated', 'payment.pending'],
    ['PaymentConfirmed', 'payment.confirmed'],
    ['PaymentUnderpaid', 'payment.underpaid'],
    ['PaymentOverpaid', 'payment.overpaid'],
    ['PaymentExpired', 'payment.expired'],
    ['PaymentCanceled', 'payment.canceled'],
    ['PaymentFailed', 'payment.failed'],
    ['LateFundsReceived', 'payment.late_funds'],
    ['TransferDetected', 'payment.transfer_detected'],
    ['PaymentUnderpaidFinalized', 'payment.underpaid_final'],
    ['TransferConfirmationsUpdated', null],
    ['TransferWithdrawn', null],
    ['TransferDropped', null],
    ['ForeignFundsReceived', 'payment.foreign_funds'],
  ] as const)('announces %s as %s', (type, kind) => {
    expect(webhookKindOf(type)).toBe(kind)
  })

  it('knows every event type', () => {
    expect(PaymentEventTypes.filter((type) => webhookKindOf(type) !== null)).toHaveLength(11)
  })
})

describe('webhookPaymentFields', () => {
  const checkoutUrl = testCheckoutLinks.urlOf(paymentId)

  it('describes a new payment', () => {
    const event: PaymentEvent = { type: 'PaymentCreated', data: created }
    expect(webhookPaymentFields(foldPayment([event]), event, checkoutUrl)).toEqual({
      id: paymentId,
      status: 'PENDING',
      amount: '10.50',
      tx_hash: null,
      currency: 'USDT',
      network: 'TRON',
      expected_amount: '10.5',
      received_amount: null,
      fee_amount: '0.105',
      net_amount: '10.395',
      confirmations: 0,
      metadata: { orderId: '1042' },
      checkout_url: checkoutUrl,
      price_amount: null,
      price_currency: null,
      rate: null,
      shortfall_amount: null,
    })
  })

  it('carries the fiat price and its locked rate (docs/api.md, "Prices in fiat")', () => {
    const rate = { value: '0.93', sources: ['peg', 'kraken'], at: '2026-11-21T14:00:00.000Z' }
    const event: PaymentEvent = {
      type: 'PaymentCreated',
      data: { ...created, priceAmount: '9.77', priceCurrency: 'EUR', rate },
    }
    expect(webhookPaymentFields(foldPayment([event]), event, checkoutUrl)).toMatchObject({
      price_amount: '9.77',
      price_currency: 'EUR',
      rate,
      shortfall_amount: null,
    })
  })

  it('describes a confirmed payment with its transaction', () => {
    const events: PaymentEvent[] = [{ type: 'PaymentCreated', data: created }, detected, updated, confirmed]
    const fields = webhookPaymentFields(foldPayment(events), confirmed, checkoutUrl)
    expect(fields).toMatchObject({
      status: 'CONFIRMED',
      amount: '10.50',
      tx_hash: transfer.txHash,
      received_amount: '10.5',
      confirmations: 20,
    })
    expect(fields.late_funds).toBeUndefined()
    expect(
      renderWebhookBody({ id: 'evt_1', event: 'payment.confirmed', payment: fields }, 1_763_733_960),
    ).toContain('"status":"CONFIRMED","amount":10.50,')
  })

  it('adds the late transfer to late funds, in whole units', () => {
    const expired: PaymentEvent = { type: 'PaymentExpired', data: { paymentId, expiredAt: at(30) } }
    const late = lateFunds('expired', {
      paymentId,
      txHash: 'cd'.repeat(32),
      amountUnits: '2000500',
      blockHeight: 900,
      blockTime: at(60),
      receivedAt: at(61),
    })
    const fields = webhookPaymentFields(
      foldPayment([{ type: 'PaymentCreated', data: created }, expired, late]),
      late,
      checkoutUrl,
    )
    expect(fields).toMatchObject({
      status: 'EXPIRED',
      tx_hash: null,
      received_amount: null,
      late_funds: { tx_hash: 'cd'.repeat(32), amount: '2.0005' },
    })
  })

  it('tells of a transfer first seen, before its confirmations, with the confirmations needed', () => {
    const seen = transferDetected({ ...transfer, paymentId, amountUnits: '4000000', confirmations: 1 })
    const fields = webhookPaymentFields(
      foldPayment([{ type: 'PaymentCreated', data: created }, seen]),
      seen,
      checkoutUrl,
    )
    expect(fields).toMatchObject({
      status: 'PENDING',
      tx_hash: transfer.txHash,
      received_amount: '4',
      confirmations: 1,
      required_confirmations: created.requiredConfirmations,
      transfer: { tx_hash: transfer.txHash, amount: '4', confirmations: 1 },
    })
    const body = JSON.parse(
      renderWebhookBody({ id: 'evt_2', event: 'payment.transfer_detected', payment: fields }, 1_763_733_960),
    )
    expect(body.payment.required_confirmations).toBe(created.requiredConfirmations)
    expect(body.payment.transfer).toEqual({ tx_hash: transfer.txHash, amount: '4', confirmations: 1 })
  })

  it('tells of an underpaid payment made final, with what was received', () => {
    const short = transferDetected({ ...transfer, paymentId, amountUnits: '10000000', confirmations: 20 })
    const underpaid = settled('PaymentUnderpaid', {
      paymentId,
      txHash: transfer.txHash,
      receivedUnits: '10000000',
    })
    const final = underpaidFinalized({ paymentId, receivedUnits: '10000000' })
    const events: PaymentEvent[] = [{ type: 'PaymentCreated', data: created }, short, underpaid, final]
    const fields = webhookPaymentFields(foldPayment(events), final, checkoutUrl)
    expect(fields).toMatchObject({ status: 'UNDERPAID', received_amount: '10', tx_hash: transfer.txHash })
    expect(fields.transfer).toBeUndefined()
    expect(fields.required_confirmations).toBeUndefined()
  })

  it('adds the foreign funds, in their own currency, to foreign funds; the status stays', () => {
    const trx = foreignFunds({ paymentId, txHash: 'ef'.repeat(32), amountUnits: '7250000' })
    const fields = webhookPaymentFields(
      foldPayment([{ type: 'PaymentCreated', data: created }, trx]),
      trx,
      checkoutUrl,
    )
    expect(fields).toMatchObject({
      status: 'PENDING',
      received_amount: null,
      foreign_funds: { tx_hash: 'ef'.repeat(32), currency: 'TRX', amount: '7.25' },
    })
    expect(
      renderWebhookBody({ id: 'evt_2', event: 'payment.foreign_funds', payment: fields }, 1_763_733_960),
    ).toContain(`"foreign_funds":{"tx_hash":"${'ef'.repeat(32)}","currency":"TRX","amount":"7.25"}`)
  })
})

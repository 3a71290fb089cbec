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
} from '@chainpay/domain/testing'
import { describe, expect, it } from 'vitest'
import { newPaymentData } from './testing/payment-fixtures.js'
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
    ['TransferDetected', null],
    ['TransferConfirmationsUpdated', null],
    ['TransferWithdrawn', null],
    ['TransferDropped', null],
    ['ForeignFundsReceived', 'payment.foreign_funds'],
  ] as const)('announces %s as %s', (type, kind) => {
    expect(webhookKindOf(type)).toBe(kind)
  })

  it('knows every event type', () => {
    expect(PaymentEventTypes.filter((type) => webhookKindOf(type) !== null)).toHaveLength(9)
  })
})

describe('webhookPaymentFields', () => {
  it('describes a new payment', () => {
    const event: PaymentEvent = { type: 'PaymentCreated', data: created }
    expect(webhookPaymentFields(foldPayment([event]), event)).toEqual({
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
    })
  })

  it('describes a confirmed payment with its transaction', () => {
    const events: PaymentEvent[] = [{ type: 'PaymentCreated', data: created }, detected, updated, confirmed]
    const fields = webhookPaymentFields(foldPayment(events), confirmed)
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
    )
    expect(fields).toMatchObject({
      status: 'EXPIRED',
      tx_hash: null,
      received_amount: null,
      late_funds: { tx_hash: 'cd'.repeat(32), amount: '2.0005' },
    })
  })

  it('adds the foreign funds, in their own currency, to foreign funds; the status stays', () => {
    const trx = foreignFunds({ paymentId, txHash: 'ef'.repeat(32), amountUnits: '7250000' })
    const fields = webhookPaymentFields(foldPayment([{ type: 'PaymentCreated', data: created }, trx]), trx)
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

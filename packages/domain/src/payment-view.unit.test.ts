import { describe, expect, it } from 'vitest'
import { toCreatedPaymentView, toPaymentView } from './payment-view.js'
import {
  at,
  foldPayment,
  foreignFunds,
  paymentCreated,
  paymentId,
  settled,
  transferDetected,
} from './testing/payment-fixtures.js'

describe('toPaymentView', () => {
  it('shows a new payment as the merchant API does', () => {
    const payment = foldPayment([paymentCreated({ amount: '10.50', metadata: { orderId: 42 } })])
    expect(toPaymentView(payment)).toEqual({
      paymentId,
      status: 'pending',
      network: 'TRON',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      amount: '10.50',
      expectedAmount: '10.5',
      receivedAmount: null,
      generatedAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      generatedTokenAccount: null,
      addressMode: 'PER_PAYMENT',
      merchantUserId: null,
      txHash: null,
      confirmations: 0,
      createdAt: at(0),
      confirmedAt: null,
      expiresAt: at(30),
      metadata: { orderId: 42 },
      feeAmount: '0.105',
      netAmount: '10.395',
      foreignFunds: [],
    })
  })

  it('shows foreign funds in their own currency and block time', () => {
    const payment = foldPayment([paymentCreated(), foreignFunds({ amountUnits: '7250000' })])
    expect(toPaymentView(payment).foreignFunds).toEqual([
      { txHash: 'tx-trx', currency: 'TRX', amount: '7.25', receivedAt: at(5) },
    ])
  })

  it('shows the generated token account of an SPL payment', () => {
    const payment = foldPayment([
      paymentCreated({ tokenStandard: 'SPL', network: 'SOLANA', tokenAccount: 'Ata111' }),
    ])
    expect(toPaymentView(payment).generatedTokenAccount).toBe('Ata111')
  })

  it('shows the received total, the latest transaction and the lowest confirmations of active transfers', () => {
    const payment = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '5000000', confirmations: 12 }),
      transferDetected({ txHash: 'tx-2', amountUnits: '500000', blockHeight: 130, confirmations: 4 }),
      transferDetected({ txHash: 'tx-3', amountUnits: '1', blockHeight: 131, confirmations: 0 }),
      {
        type: 'TransferWithdrawn',
        data: { paymentId, txHash: 'tx-3', transferIndex: 0, reason: 'DROPPED', withdrawnAt: at(8) },
      },
    ])
    expect(toPaymentView(payment)).toMatchObject({
      status: 'pending',
      receivedAmount: '5.5',
      txHash: 'tx-2',
      confirmations: 4,
      confirmedAt: null,
    })
  })

  it('shows a settled payment with its confirmation time', () => {
    const payment = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '10500000', confirmations: 20 }),
      settled('PaymentConfirmed', { confirmedAt: at(9) }),
    ])
    expect(toPaymentView(payment)).toMatchObject({
      status: 'confirmed',
      receivedAmount: '10.5',
      txHash: 'tx-1',
      confirmations: 20,
      confirmedAt: at(9),
    })
  })

  it('omits the URLs', () => {
    const view = toPaymentView(
      foldPayment([paymentCreated({ callbackUrl: 'https://shop.example.com/hook' })]),
    )
    expect(view).not.toHaveProperty('callbackUrl')
    expect(view).not.toHaveProperty('successRedirectUrl')
    expect(view).not.toHaveProperty('cancelRedirectUrl')
  })
})

describe('toCreatedPaymentView', () => {
  it('adds the three URLs, null when not sent, in the order of the specification', () => {
    const payment = foldPayment([paymentCreated({ callbackUrl: 'https://shop.example.com/hook' })])
    const view = toCreatedPaymentView(payment)
    expect(view).toEqual({
      ...toPaymentView(payment),
      callbackUrl: 'https://shop.example.com/hook',
      successRedirectUrl: null,
      cancelRedirectUrl: null,
    })
    expect(Object.keys(view).slice(-7)).toEqual([
      'metadata',
      'callbackUrl',
      'successRedirectUrl',
      'cancelRedirectUrl',
      'feeAmount',
      'netAmount',
      'foreignFunds',
    ])
  })
})

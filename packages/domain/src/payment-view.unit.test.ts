import { describe, expect, it } from 'vitest'
import { toCreatedPaymentView, toPaymentView } from './payment-view.js'
import {
  at,
  eventsFor,
  foldPayment,
  foreignFunds,
  lateFunds,
  paymentCreated,
  paymentId,
  settled,
  transferDetected,
  underpaidFinalized,
} from './testing/payment-fixtures.js'

const checkoutUrl = 'https://pay.example.com/pay/token'

describe('toPaymentView', () => {
  it('shows a new payment as the merchant API does', () => {
    const payment = foldPayment([paymentCreated({ amount: '10.50', metadata: { orderId: 42 } })])
    expect(toPaymentView(payment, checkoutUrl)).toEqual({
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
      description: null,
      requiredConfirmations: 20,
      lateFunds: [],
      receivedFeeAmount: null,
      receivedNetAmount: null,
      foreignFunds: [],
      checkoutUrl,
      priceAmount: null,
      priceCurrency: null,
      rate: null,
      underpaymentTolerancePercent: '0',
      shortfallAmount: null,
      invoiceId: null,
    })
  })

  it('shows the description as sent', () => {
    const payment = foldPayment([paymentCreated({ description: 'Order #7 — 2 cafés' })])
    expect(toPaymentView(payment, checkoutUrl).description).toBe('Order #7 — 2 cafés')
  })

  it('shows late funds in arrival order, each with the time of its block', () => {
    const payment = foldPayment([
      ...eventsFor('expired'),
      lateFunds('expired', { txHash: 'late-1', amountUnits: '1500000', blockTime: at(40) }),
      lateFunds('expired', { txHash: 'late-2', amountUnits: '1', blockTime: at(41) }),
    ])
    expect(toPaymentView(payment, checkoutUrl).lateFunds).toEqual([
      { txHash: 'late-1', amount: '1.5', receivedAt: at(40) },
      { txHash: 'late-2', amount: '0.000001', receivedAt: at(41) },
    ])
  })

  it.each([
    // 1 % of 10.5 is 0.105; of 7.25, 0.0725; of 12, 0.12
    ['PaymentConfirmed', '10500000', '0.105', '10.395'],
    ['PaymentUnderpaid', '7250000', '0.0725', '7.1775'],
    ['PaymentOverpaid', '12000000', '0.12', '11.88'],
  ] as const)(
    'charges the recorded policy on what arrived once %s: fee plus net is receivedAmount',
    (type, receivedUnits, fee, net) => {
      const payment = foldPayment([
        paymentCreated(),
        transferDetected({ amountUnits: receivedUnits, confirmations: 20 }),
        settled(type, { receivedUnits }),
        // an underpaid amount is final at the deadline only: it can still be topped up before
        ...(type === 'PaymentUnderpaid' ? [underpaidFinalized({ receivedUnits })] : []),
      ])
      expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
        receivedFeeAmount: fee,
        receivedNetAmount: net,
      })
    },
  )

  it('has no received fee or net while an underpaid payment can still be topped up', () => {
    const payment = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '7250000', confirmations: 20 }),
      settled('PaymentUnderpaid', { receivedUnits: '7250000' }),
    ])
    expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
      status: 'underpaid',
      receivedAmount: '7.25',
      receivedFeeAmount: null,
      receivedNetAmount: null,
    })
  })

  it('rounds the proportional fee half up, adds the fixed fee, and caps the fee at what arrived', () => {
    const settle = (receivedUnits: string) =>
      toPaymentView(
        foldPayment([
          paymentCreated({ feeBps: 250, fixedFeeUnits: '100000' }),
          transferDetected({ amountUnits: receivedUnits, confirmations: 20 }),
          settled('PaymentUnderpaid', { receivedUnits }),
          underpaidFinalized({ receivedUnits }),
        ]),
        checkoutUrl,
      )
    // 2.5 % of 0.000020 is 0.0000005, rounded up to 0.000001, plus 0.1 fixed: more than arrived
    expect(settle('20')).toMatchObject({ receivedFeeAmount: '0.00002', receivedNetAmount: '0' })
    // 2.5 % of 2 is 0.05, plus 0.1
    expect(settle('2000000')).toMatchObject({ receivedFeeAmount: '0.15', receivedNetAmount: '1.85' })
  })

  it.each(['pending', 'expired', 'canceled', 'failed'] as const)(
    'has no received fee or net while %s, even with funds seen',
    (status) => {
      const payment = foldPayment([...eventsFor(status), transferDetected({ amountUnits: '5000000' })])
      expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
        receivedFeeAmount: null,
        receivedNetAmount: null,
      })
    },
  )

  it('shows foreign funds in their own currency and block time', () => {
    const payment = foldPayment([paymentCreated(), foreignFunds({ amountUnits: '7250000' })])
    expect(toPaymentView(payment, checkoutUrl).foreignFunds).toEqual([
      { txHash: 'tx-trx', currency: 'TRX', amount: '7.25', receivedAt: at(5) },
    ])
  })

  it('shows the generated token account of an SPL payment', () => {
    const payment = foldPayment([
      paymentCreated({ tokenStandard: 'SPL', network: 'SOLANA', tokenAccount: 'Ata111' }),
    ])
    expect(toPaymentView(payment, checkoutUrl).generatedTokenAccount).toBe('Ata111')
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
    expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
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
    expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
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
      checkoutUrl,
    )
    expect(view).not.toHaveProperty('callbackUrl')
    expect(view).not.toHaveProperty('successRedirectUrl')
    expect(view).not.toHaveProperty('cancelRedirectUrl')
  })
})

describe('toCreatedPaymentView', () => {
  it('adds the three URLs, null when not sent, in the order of the specification', () => {
    const payment = foldPayment([paymentCreated({ callbackUrl: 'https://shop.example.com/hook' })])
    const view = toCreatedPaymentView(payment, checkoutUrl)
    expect(view).toEqual({
      ...toPaymentView(payment, checkoutUrl),
      callbackUrl: 'https://shop.example.com/hook',
      successRedirectUrl: null,
      cancelRedirectUrl: null,
    })
    expect(Object.keys(view).slice(-19)).toEqual([
      'metadata',
      'callbackUrl',
      'successRedirectUrl',
      'cancelRedirectUrl',
      'feeAmount',
      'netAmount',
      'description',
      'requiredConfirmations',
      'lateFunds',
      'receivedFeeAmount',
      'receivedNetAmount',
      'foreignFunds',
      'checkoutUrl',
      'priceAmount',
      'priceCurrency',
      'rate',
      'underpaymentTolerancePercent',
      'shortfallAmount',
      'invoiceId',
    ])
  })
})

describe('prices in fiat and the underpayment tolerance', () => {
  const rate = { value: '142.37', sources: ['coingecko', 'kraken'], at: at(0) }

  it('shows the price, its currency and the locked rate', () => {
    const payment = foldPayment([
      paymentCreated({ amount: '0.140479', priceAmount: '20', priceCurrency: 'USD', rate }),
    ])
    expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
      amount: '0.140479',
      priceAmount: '20',
      priceCurrency: 'USD',
      rate,
      shortfallAmount: null,
    })
  })

  it('shows the shortfall of a payment confirmed within the tolerance, and of an underpaid one', () => {
    const confirmed = foldPayment([
      paymentCreated({ underpaymentTolerancePercent: '1' }),
      transferDetected({ amountUnits: '10400000', confirmations: 20 }),
      settled('PaymentConfirmed', { receivedUnits: '10400000' }),
    ])
    expect(toPaymentView(confirmed, checkoutUrl)).toMatchObject({
      status: 'confirmed',
      underpaymentTolerancePercent: '1',
      shortfallAmount: '0.1',
    })
    const underpaid = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '7250000', confirmations: 20 }),
      settled('PaymentUnderpaid', { receivedUnits: '7250000' }),
    ])
    expect(toPaymentView(underpaid, checkoutUrl).shortfallAmount).toBe('3.25')
  })

  it('reads a payment created before version 1.3 as priced in its asset, without tolerance', () => {
    const {
      priceAmount: _price,
      priceCurrency: _currency,
      rate: _rate,
      underpaymentTolerancePercent: _tolerance,
      ...older
    } = (paymentCreated() as Extract<ReturnType<typeof paymentCreated>, { type: 'PaymentCreated' }>).data
    const payment = foldPayment([{ type: 'PaymentCreated', data: older }])
    expect(toPaymentView(payment, checkoutUrl)).toMatchObject({
      priceAmount: null,
      priceCurrency: null,
      rate: null,
      underpaymentTolerancePercent: '0',
      shortfallAmount: null,
    })
  })
})

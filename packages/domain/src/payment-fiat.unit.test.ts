// The decider's rules for prices in fiat and the underpayment tolerance (docs/api.md, "Prices in
// fiat", "Underpayment tolerance"): the amount is priceAmount / rate rounded up to the asset's
// decimals at the rate that comes with the command, recorded with it; a shortfall within the
// tolerance recorded at creation confirms the payment.

import { describe, it } from 'vitest'
import { defaultAssetRegistry, resolveAsset } from './assets.js'
import type { CreatePaymentRequest } from './create-request.js'
import { defaultFeePolicy } from './fees.js'
import { decidePayment, evolvePayment, initialPaymentState, type PaymentCommand } from './payment.js'
import type { LockedRate } from './rates.js'
import { deciderSpecification } from './testing/decider-specification.js'
import {
  at,
  fingerprint,
  merchantId,
  observed,
  paymentCreated,
  paymentId,
  required,
  settled,
  transferDetected,
  usdtOnTron,
} from './testing/payment-fixtures.js'

const given = deciderSpecification({
  decide: decidePayment,
  evolve: evolvePayment,
  initialState: initialPaymentState,
})
const solOnSolana = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'SOL' })
const trxOnTron = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'TRX' })
const rate = (value: string): LockedRate => ({ value, sources: ['coingecko', 'kraken'], at: at(0) })
const priced = (priceAmount: string, currency: string, network: string): CreatePaymentRequest => ({
  priceAmount,
  priceCurrency: 'USD',
  currency,
  network,
})

function createPayment(
  data: Partial<Extract<PaymentCommand, { type: 'CreatePayment' }>['data']> = {},
): PaymentCommand {
  return {
    type: 'CreatePayment',
    data: {
      paymentId,
      merchantId,
      request: { amount: '10.5', currency: 'USDT', network: 'TRON' },
      requestFingerprint: fingerprint,
      asset: usdtOnTron,
      feePolicy: defaultFeePolicy,
      receivingAddress: {
        address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
        tokenAccount: null,
        derivationPath: "m/44'/195'/0'/0/7",
        walletId: 'operator',
      },
      requiredConfirmations: required,
      now: at(0),
      ...data,
    },
  }
}

describe('CreatePayment priced in fiat', () => {
  it('computes the amount as priceAmount / rate rounded up to the asset decimals, and records price and rate', () => {
    // 10 / 3 = 3.3333333...: 3.333334 TRX, never 3.333333 (the merchant never receives less than the price)
    given([])
      .when(createPayment({ asset: trxOnTron, request: priced('10', 'TRX', 'TRON'), rate: rate('3') }))
      .then([
        paymentCreated({
          currency: 'TRX',
          tokenStandard: 'NATIVE',
          amount: '3.333334',
          amountUnits: '3333334',
          feeUnits: '33333',
          netUnits: '3300001',
          priceAmount: '10',
          priceCurrency: 'USD',
          rate: rate('3'),
        }),
      ])
  })

  it('rounds up at 9 decimals for SOL, and writes the amount canonical', () => {
    // 20 / 142.37 = 0.1404790335...
    given([])
      .when(
        createPayment({
          asset: solOnSolana,
          request: priced('20.00', 'SOL', 'SOLANA'),
          rate: rate('142.37'),
        }),
      )
      .then([
        paymentCreated({
          network: 'SOLANA',
          currency: 'SOL',
          tokenStandard: 'NATIVE',
          decimals: 9,
          amount: '0.140479034',
          amountUnits: '140479034',
          feeUnits: '1404790',
          netUnits: '139074244',
          priceAmount: '20.00',
          priceCurrency: 'USD',
          rate: rate('142.37'),
        }),
      ])
  })

  it('takes an exact quotient as it is: 10 USD at a peg of 1 is 10 USDT', () => {
    const pegged = { value: '1', sources: ['peg', 'coingecko'], at: at(0) }
    given([])
      .when(createPayment({ request: priced('10', 'USDT', 'TRON'), rate: pegged }))
      .then([
        paymentCreated({
          amount: '10',
          amountUnits: '10000000',
          feeUnits: '100000',
          netUnits: '9900000',
          priceAmount: '10',
          priceCurrency: 'USD',
          rate: pegged,
        }),
      ])
  })

  it('is RATE_UNAVAILABLE without a rate', () => {
    given([])
      .when(createPayment({ request: priced('10', 'USDT', 'TRON') }))
      .thenThrows('RATE_UNAVAILABLE', 'no rate of USDT in USD to price the payment with; try again shortly')
  })

  it('refuses a price whose amount is beyond the asset maximum, naming priceAmount', () => {
    given([])
      .when(createPayment({ request: priced('2000000000', 'USDT', 'TRON'), rate: rate('1') }))
      .thenThrows(
        'VALIDATION_ERROR',
        'priceAmount: the price at the current rate is at most 1000000000 for USDT on TRON',
      )
  })

  it('refuses a SOL price below the rent-exempt floor, naming priceAmount', () => {
    given([])
      .when(
        createPayment({ asset: solOnSolana, request: priced('0.01', 'SOL', 'SOLANA'), rate: rate('150') }),
      )
      .thenThrows(
        'VALIDATION_ERROR',
        'priceAmount: the price at the current rate is at least 0.00089088 for SOL on SOLANA (the rent-exempt minimum of a Solana account: a first transfer of less to a fresh address fails on chain)',
      )
  })

  it('replays the same fiat request as nothing new, whatever the rate now', () => {
    given([paymentCreated({ priceAmount: '10', priceCurrency: 'USD', rate: rate('1') })])
      .when(createPayment({ request: priced('10', 'USDT', 'TRON'), rate: rate('0.5') }))
      .thenNothingHappens()
  })
})

describe('underpayment tolerance', () => {
  it("records the merchant's tolerance at creation", () => {
    given([])
      .when(createPayment({ underpaymentTolerancePercent: '1.5' }))
      .then([paymentCreated({ underpaymentTolerancePercent: '1.5' })])
  })

  it('confirms a total at expected * (1 - tolerance) exactly', () => {
    // 1 % of 10.5 is 0.105: 10.395 confirms
    given([paymentCreated({ underpaymentTolerancePercent: '1' })])
      .when(observed({ amountUnits: '10395000', confirmations: required }))
      .then([
        transferDetected({ amountUnits: '10395000', confirmations: required, detectedAt: at(6) }),
        settled('PaymentConfirmed', { receivedUnits: '10395000', confirmedAt: at(6) }),
      ])
  })

  it('leaves a total one unit below it underpaid', () => {
    given([paymentCreated({ underpaymentTolerancePercent: '1' })])
      .when(observed({ amountUnits: '10394999', confirmations: required }))
      .then([
        transferDetected({ amountUnits: '10394999', confirmations: required, detectedAt: at(6) }),
        settled('PaymentUnderpaid', { receivedUnits: '10394999', confirmedAt: at(6) }),
      ])
  })

  it('without tolerance (0, and events before version 1.3) confirms only the whole amount', () => {
    given([paymentCreated()])
      .when(observed({ amountUnits: '10499999', confirmations: required }))
      .then([
        transferDetected({ amountUnits: '10499999', confirmations: required, detectedAt: at(6) }),
        settled('PaymentUnderpaid', { receivedUnits: '10499999', confirmedAt: at(6) }),
      ])
  })

  it('confirms an underpaid payment that a top-up brings within the tolerance', () => {
    given([
      paymentCreated({ underpaymentTolerancePercent: '5' }),
      transferDetected({ amountUnits: '9000000', confirmations: required }),
      settled('PaymentUnderpaid', { receivedUnits: '9000000' }),
    ])
      .when(observed({ txHash: 'tx-2', amountUnits: '1000000', confirmations: required }))
      .then([
        transferDetected({
          txHash: 'tx-2',
          amountUnits: '1000000',
          confirmations: required,
          detectedAt: at(6),
        }),
        settled('PaymentConfirmed', { receivedUnits: '10000000', txHash: 'tx-2', confirmedAt: at(6) }),
      ])
  })
})

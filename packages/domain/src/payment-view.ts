// The payment as the merchant API shows it (docs/api.md, "The payment object").

import type { Metadata } from './create-request.js'
import { computeFeeUnits } from './fees.js'
import { formatUnits } from './money.js'
import { activeTransfers } from './payment-evolve.js'
import type { OpenPayment, PaymentStatus } from './payment-types.js'
import type { LockedRate } from './rates.js'

export interface PaymentView {
  paymentId: string
  status: PaymentStatus
  network: string
  currency: string
  tokenStandard: string
  amount: string
  expectedAmount: string
  receivedAmount: string | null
  generatedAddress: string
  generatedTokenAccount: string | null
  addressMode: string
  merchantUserId: string | null
  txHash: string | null
  confirmations: number
  createdAt: string
  confirmedAt: string | null
  expiresAt: string
  metadata: Metadata
  feeAmount: string
  netAmount: string
  description: string | null
  requiredConfirmations: number
  /** transfers that arrived after the payment was final or closed, in arrival order */
  lateFunds: LateFundsView[]
  /** the fee and net of receivedAmount; null until the payment is settled */
  receivedFeeAmount: string | null
  receivedNetAmount: string | null
  /** the customer's page, {PUBLIC_URL}/pay/{checkoutToken} (docs/api.md, "The customer's page") */
  checkoutUrl: string
  /** docs/api.md, "Foreign funds" */
  foreignFunds: ForeignFundsView[]
  /** docs/api.md, "Prices in fiat": null for a payment created with an amount */
  priceAmount: string | null
  priceCurrency: string | null
  rate: LockedRate | null
  /** docs/api.md, "Underpayment tolerance": the merchant's tolerance when the payment was created */
  underpaymentTolerancePercent: string
  /** expected minus received when less arrived and the payment is confirmed or underpaid; else null */
  shortfallAmount: string | null
  /** docs/api.md, "Invoices": the invoice whose pick created the payment; null otherwise */
  invoiceId: string | null
}

export interface LateFundsView {
  txHash: string
  amount: string
  /** the time of the block that carried the transfer */
  receivedAt: string
}

export interface ForeignFundsView {
  txHash: string
  currency: string
  amount: string
  /** the time of the block that carried them */
  receivedAt: string
}

/** the create response adds the three URLs (null when not sent) */
export interface CreatedPaymentView extends PaymentView {
  callbackUrl: string | null
  successRedirectUrl: string | null
  cancelRedirectUrl: string | null
}

/**
 * confirmations: the lowest confirmation count among counted, not withdrawn transfers (0 when
 * none), so it reaches the requirement exactly when the payment settles.
 */
export function toPaymentView(payment: OpenPayment, checkoutUrl: string): PaymentView {
  return {
    ...v1PaymentView(payment),
    ...readingBackFields(payment),
    checkoutUrl,
    ...pricingFields(payment),
    invoiceId: payment.created.invoiceId ?? null,
  }
}

type PricingFields = Pick<
  PaymentView,
  'priceAmount' | 'priceCurrency' | 'rate' | 'underpaymentTolerancePercent' | 'shortfallAmount'
>

/** the fields v1.3 adds after checkoutUrl (docs/api.md, "Prices in fiat", "Underpayment tolerance") */
function pricingFields(payment: OpenPayment): PricingFields {
  const { created, receivedUnits } = payment
  const expected = BigInt(created.amountUnits)
  const short =
    (payment.status === 'confirmed' || payment.status === 'underpaid') &&
    receivedUnits !== null &&
    BigInt(receivedUnits) < expected
  const rate = created.rate ?? null
  return {
    priceAmount: created.priceAmount ?? null,
    priceCurrency: created.priceCurrency ?? null,
    rate: rate === null ? null : { value: rate.value, sources: [...rate.sources], at: rate.at },
    underpaymentTolerancePercent: created.underpaymentTolerancePercent ?? '0',
    shortfallAmount: short ? formatUnits(expected - BigInt(receivedUnits), created.decimals) : null,
  }
}

/** the payment object of v1 (docs/api.md, "The payment object") */
function v1PaymentView(
  payment: OpenPayment,
): Omit<PaymentView, keyof ReadingBackFields | keyof PricingFields | 'checkoutUrl' | 'invoiceId'> {
  const { created } = payment
  const units = (value: string) => formatUnits(value, created.decimals)
  return {
    paymentId: created.paymentId,
    status: payment.status,
    network: created.network,
    currency: created.currency,
    tokenStandard: created.tokenStandard,
    amount: created.amount,
    expectedAmount: units(created.amountUnits),
    receivedAmount: payment.receivedUnits === null ? null : units(payment.receivedUnits),
    generatedAddress: created.address,
    generatedTokenAccount: created.tokenAccount,
    addressMode: created.addressMode,
    merchantUserId: created.merchantUserId ?? null,
    txHash: payment.txHash,
    confirmations: lowestConfirmations(payment),
    createdAt: created.createdAt,
    confirmedAt: payment.confirmedAt,
    expiresAt: created.expiresAt,
    metadata: created.metadata,
    feeAmount: units(created.feeUnits),
    netAmount: units(created.netUnits),
  }
}

type ReadingBackFields = Pick<
  PaymentView,
  | 'description'
  | 'requiredConfirmations'
  | 'lateFunds'
  | 'receivedFeeAmount'
  | 'receivedNetAmount'
  | 'foreignFunds'
>

/** the fields v1.1 adds after the fees (docs/api.md, "The payment object" and "Foreign funds") */
function readingBackFields(payment: OpenPayment): ReadingBackFields {
  const { created } = payment
  const units = (value: string) => formatUnits(value, created.decimals)
  return {
    description: created.description,
    requiredConfirmations: created.requiredConfirmations,
    lateFunds: payment.lateTransfers.map((transfer) => ({
      txHash: transfer.txHash,
      amount: units(transfer.amountUnits),
      receivedAt: transfer.blockTime,
    })),
    ...receivedSettlement(payment),
    foreignFunds: payment.foreignFunds.map((funds) => ({
      txHash: funds.txHash,
      currency: funds.currency,
      amount: formatUnits(funds.amountUnits, funds.decimals),
      receivedAt: funds.blockTime,
    })),
  }
}

export function toCreatedPaymentView(payment: OpenPayment, checkoutUrl: string): CreatedPaymentView {
  const { feeAmount, netAmount, ...view } = v1PaymentView(payment)
  const { callbackUrl, successRedirectUrl, cancelRedirectUrl } = payment.created
  // Same field order as the specification's table: the URLs sit between metadata and the fees.
  return {
    ...view,
    callbackUrl,
    successRedirectUrl,
    cancelRedirectUrl,
    feeAmount,
    netAmount,
    ...readingBackFields(payment),
    checkoutUrl,
    ...pricingFields(payment),
    invoiceId: payment.created.invoiceId ?? null,
  }
}

function lowestConfirmations(payment: OpenPayment): number {
  const confirmations = activeTransfers(payment.transfers).map((transfer) => transfer.confirmations)
  return confirmations.length === 0 ? 0 : Math.min(...confirmations)
}

/**
 * Whether what arrived is final: confirmed or overpaid settle for good; an underpaid payment can still
 * be topped up until its deadline, so its amount is final once it was made final there
 * (PaymentUnderpaidFinalized sets closedAt; docs/api.md, "The payment object").
 */
function receivedAmountIsFinal(payment: OpenPayment): boolean {
  if (payment.status === 'confirmed' || payment.status === 'overpaid') return true
  return payment.status === 'underpaid' && payment.closedAt !== null
}

/**
 * The payment's recorded fee policy applied to what arrived, once that is final; computeFeeUnits caps
 * the fee at it, so fee plus net is exactly receivedAmount.
 */
function receivedSettlement(
  payment: OpenPayment,
): Pick<PaymentView, 'receivedFeeAmount' | 'receivedNetAmount'> {
  const { created, receivedUnits } = payment
  if (!receivedAmountIsFinal(payment) || receivedUnits === null) {
    return { receivedFeeAmount: null, receivedNetAmount: null }
  }
  const { feeUnits, netUnits } = computeFeeUnits(BigInt(receivedUnits), {
    feeBps: created.feeBps,
    fixedFeeUnits: BigInt(created.fixedFeeUnits),
  })
  return {
    receivedFeeAmount: formatUnits(feeUnits.toString(), created.decimals),
    receivedNetAmount: formatUnits(netUnits.toString(), created.decimals),
  }
}

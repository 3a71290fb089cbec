// The payment as the merchant API shows it (docs/api.md, "The payment object").

import { formatUnits } from './money.js'
import type { Metadata, OpenPayment, PaymentStatus } from './payment.js'
import { activeTransfers } from './payment-evolve.js'

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
  merchantUserId: null
  txHash: string | null
  confirmations: number
  createdAt: string
  confirmedAt: string | null
  expiresAt: string
  metadata: Metadata
  feeAmount: string
  netAmount: string
  /** docs/api.md, "Foreign funds" */
  foreignFunds: ForeignFundsView[]
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
export function toPaymentView(payment: OpenPayment): PaymentView {
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
    merchantUserId: null,
    txHash: payment.txHash,
    confirmations: lowestConfirmations(payment),
    createdAt: created.createdAt,
    confirmedAt: payment.confirmedAt,
    expiresAt: created.expiresAt,
    metadata: created.metadata,
    feeAmount: units(created.feeUnits),
    netAmount: units(created.netUnits),
    foreignFunds: payment.foreignFunds.map((funds) => ({
      txHash: funds.txHash,
      currency: funds.currency,
      amount: formatUnits(funds.amountUnits, funds.decimals),
      receivedAt: funds.blockTime,
    })),
  }
}

export function toCreatedPaymentView(payment: OpenPayment): CreatedPaymentView {
  const { feeAmount, netAmount, foreignFunds, ...view } = toPaymentView(payment)
  const { callbackUrl, successRedirectUrl, cancelRedirectUrl } = payment.created
  // Same field order as the specification's table: the URLs sit between metadata and the fees.
  return { ...view, callbackUrl, successRedirectUrl, cancelRedirectUrl, feeAmount, netAmount, foreignFunds }
}

function lowestConfirmations(payment: OpenPayment): number {
  const confirmations = activeTransfers(payment.transfers).map((transfer) => transfer.confirmations)
  return confirmations.length === 0 ? 0 : Math.min(...confirmations)
}

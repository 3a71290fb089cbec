// The payment as the merchant API shows it (merchant-api.md section 2.1).

import type { Metadata, OpenPayment, PaymentStatus } from './payment.js'

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
export declare function toPaymentView(payment: OpenPayment): PaymentView

export declare function toCreatedPaymentView(payment: OpenPayment): CreatedPaymentView

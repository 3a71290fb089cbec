// Webhook payloads (merchant-api.md section 6, decisions.md section 9).

import type { Metadata } from '@chainpay/domain'

export const WebhookEventKinds = [
  'payment.pending',
  'payment.confirmed',
  'payment.underpaid',
  'payment.overpaid',
  'payment.expired',
  'payment.canceled',
  'payment.failed',
  'payment.late_funds',
] as const

export type WebhookEventKind = (typeof WebhookEventKinds)[number]

/** the `payment` object of a webhook body; amounts other than `amount` are decimal strings */
export interface WebhookPaymentFields {
  id: string
  /** upper case: PENDING, CONFIRMED... */
  status: string
  /** decimal text, rendered as a JSON number (exactly these digits) by renderWebhookBody */
  amount: string
  tx_hash: string | null
  currency: string
  network: string
  expected_amount: string
  received_amount: string | null
  fee_amount: string
  net_amount: string
  confirmations: number
  metadata: Metadata
  /** payment.late_funds only: the late transfer */
  late_funds?: { tx_hash: string; amount: string }
}

export interface WebhookBodyInput {
  event: WebhookEventKind
  payment: WebhookPaymentFields
}

/**
 * The exact body text for one attempt: {"event","timestamp","payment":{...}} where `timestamp` is
 * Unix seconds of the attempt and payment.amount is a JSON number written with the decimal's own
 * digits (no float rounding).
 */
export declare function renderWebhookBody(input: WebhookBodyInput, timestampSeconds: number): string

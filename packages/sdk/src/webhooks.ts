// Verifying a webhook (docs/api.md, "Verifying a webhook"): the signature over
// `${X-Timestamp}.${raw body}` with your webhook secret, the timestamp within 5 minutes, and the
// signed body's `id` equal to X-Event-Id. During a secret rotation a delivery carries a signature
// for the new secret (X-Signature) and for the old one (X-Signature-Previous); any of the secrets you
// pass may match any of them.

import { WebhookVerificationError } from './errors.js'
import { hmacSha256Matches } from './signing.js'
import type { MetadataValue, PaymentStatus } from './types.js'

export const WEBHOOK_TOLERANCE_SECONDS = 300

/** the payment as a webhook carries it: snake_case, `status` upper case, `amount` a JSON number */
export interface WebhookPayment {
  id: string
  status: Uppercase<PaymentStatus>
  /** a JSON number with the digits you sent; use expected_amount for exact arithmetic */
  amount: number
  tx_hash: string | null
  currency?: string
  network?: string
  expected_amount?: string
  received_amount?: string | null
  fee_amount?: string
  net_amount?: string
  confirmations?: number
  required_confirmations?: number
  checkout_url?: string
  metadata?: Record<string, MetadataValue>
  /** a price in fiat and its locked rate (docs/api.md, "Prices in fiat"); null for a payment created with an amount */
  price_amount?: string | null
  price_currency?: string | null
  rate?: { value: string; sources: string[]; at: string } | null
  /** expected_amount minus received_amount when confirmed within the tolerance or underpaid; else null */
  shortfall_amount?: string | null
  /** the invoice whose pick created the payment (docs/api.md, "Invoices"); absent otherwise */
  invoice_id?: string
  [field: string]: unknown
}

/** what every webhook body holds, whatever its kind */
interface WebhookEventOf<Kind extends string, Fields extends object = object> {
  /** the event id, equal to X-Event-Id: deduplicate on it */
  id: string
  event: Kind
  /** Unix seconds of this attempt */
  timestamp: number
  payment: WebhookPayment & Fields
  /**
   * true on a test event you asked for (POST /webhook-endpoints/{id}/test): its payment is made up,
   * so look nothing up by its id; absent on real events
   */
  test?: true
}

/**
 * A verified webhook, a union discriminated by `event`: comparing `event` with a kind narrows the
 * payment to the fields that kind carries (payment.late_funds its late_funds, for one), without a
 * cast. Kinds added in a later version of chainpay come through verifyWebhook too: keep a default
 * branch in a switch over `event`.
 */
export type WebhookEvent =
  | WebhookEventOf<
      | 'payment.pending'
      | 'payment.confirmed'
      | 'payment.underpaid'
      | 'payment.underpaid_final'
      | 'payment.overpaid'
      | 'payment.expired'
      | 'payment.canceled'
      | 'payment.failed'
    >
  | WebhookEventOf<
      'payment.transfer_detected',
      {
        required_confirmations: number
        /** the transfer first seen, before its confirmations */
        transfer: { tx_hash: string; amount: string; confirmations: number }
      }
    >
  | WebhookEventOf<
      'payment.late_funds',
      {
        /** the transfer that arrived after the payment closed or expired */
        late_funds: { tx_hash: string; amount: string }
      }
    >
  | WebhookEventOf<
      'payment.foreign_funds',
      {
        /** funds of another asset (or TRX a contract sent) to the payment's address */
        foreign_funds: { tx_hash: string; currency: string; amount: string }
      }
    >

/** the invoice as its webhook carries it (docs/api.md, "Invoices"): snake_case, `status` upper case */
export interface WebhookInvoice {
  id: string
  status: 'OPEN' | 'PAID' | 'EXPIRED' | 'CANCELED'
  price_amount: string
  price_currency: string
  /** the payment that paid it; null unless paid */
  paid_payment_id: string | null
  /** the payments of the customer's picks, oldest first */
  payments: Array<{ payment_id: string; currency: string; network: string }>
  metadata: Record<string, MetadataValue>
  checkout_url: string
  expires_at: string
}

/** invoice.paid, invoice.expired, invoice.canceled: the body carries the invoice, not a payment */
export interface InvoiceWebhookEvent {
  id: string
  event: 'invoice.paid' | 'invoice.expired' | 'invoice.canceled'
  timestamp: number
  invoice: WebhookInvoice
  /** true on a test event you asked for: its invoice is made up */
  test?: true
}

/**
 * The invoice webhook (invoice.paid, invoice.expired, invoice.canceled) a verified webhook is, or null
 * for a payment's: its body carries `invoice`, not `payment`. verifyWebhook's type stays the payments'
 * union, so that code written before invoices still compiles; ask this first where invoices are used.
 */
export function invoiceWebhookOf(event: WebhookEvent | InvoiceWebhookEvent): InvoiceWebhookEvent | null {
  return event.event.startsWith('invoice.') ? (event as InvoiceWebhookEvent) : null
}

/** the refund or payout of refund.* and payout.* webhooks (docs/api.md, "Refunds and payouts") */
export interface WebhookOutgoing {
  id: string
  /** upper case: READY, SENDING, SENT, COMPLETED, FAILED, CANCELED, AWAITING_ADDRESS */
  status: string
  /** refunds only */
  payment_id?: string
  network: string
  currency: string
  amount: string
  address: string | null
  tx_hash: string | null
  network_fee: { currency: string; amount: string } | null
  failure_reason: string | null
  /** payouts only */
  metadata?: Record<string, unknown>
}

/**
 * A verified refund.* or payout.* webhook (docs/api.md, "Refunds and payouts"): verifyWebhook passes
 * them through like every kind; tell them apart with isOutgoingWebhookEvent.
 */
export type OutgoingWebhookEvent =
  | WebhookOutgoingEventOf<
      | 'refund.created'
      | 'refund.ready'
      | 'refund.sending'
      | 'refund.released'
      | 'refund.sent'
      | 'refund.completed'
      | 'refund.failed'
      | 'refund.canceled',
      'refund'
    >
  | WebhookOutgoingEventOf<
      | 'payout.created'
      | 'payout.sending'
      | 'payout.released'
      | 'payout.sent'
      | 'payout.completed'
      | 'payout.failed'
      | 'payout.canceled',
      'payout'
    >

/** whether a verified webhook is a refund's or a payout's (its body has `refund` or `payout`, no `payment`) */
export function isOutgoingWebhookEvent(
  event: WebhookEvent | OutgoingWebhookEvent,
): event is OutgoingWebhookEvent {
  return (
    typeof event.event === 'string' &&
    (event.event.startsWith('refund.') || event.event.startsWith('payout.'))
  )
}

/** the deposit of deposit.* webhooks (docs/api.md, "Deposits"): amounts are decimal strings */
export interface WebhookDeposit {
  id: string
  /** upper case: DETECTED, CONFIRMED */
  status: string
  merchant_user_id: string
  network: string
  currency: string
  address: string
  tx_hash: string
  transfer_index: number
  amount: string
  /** under your fee policy when the deposit was detected */
  fee_amount: string
  net_amount: string
  confirmations: number
  required_confirmations: number
  detected_at: string
  confirmed_at: string | null
}

/** a verified deposit.detected or deposit.confirmed webhook: its body carries `deposit`, no `payment` */
export interface DepositWebhookEvent {
  id: string
  event: 'deposit.detected' | 'deposit.confirmed'
  timestamp: number
  deposit: WebhookDeposit
  /** true on a test event you asked for: its deposit is made up */
  test?: true
}

/**
 * The deposit webhook a verified webhook is, or null: verifyWebhook's type stays the payments' union
 * (as for invoices, invoiceWebhookOf), so ask this where deposits are used.
 */
export function depositWebhookOf(
  event: WebhookEvent | OutgoingWebhookEvent | DepositWebhookEvent,
): DepositWebhookEvent | null {
  return isDepositWebhookEvent(event) ? event : null
}

/** whether a verified webhook is a deposit's (deposit.detected, deposit.confirmed) */
export function isDepositWebhookEvent(
  event: WebhookEvent | OutgoingWebhookEvent | DepositWebhookEvent,
): event is DepositWebhookEvent {
  return typeof event.event === 'string' && event.event.startsWith('deposit.')
}

type WebhookOutgoingEventOf<Kind extends string, Name extends 'refund' | 'payout'> = {
  id: string
  event: Kind
  timestamp: number
  test?: true
} & { [key in Name]: WebhookOutgoing }

/** the kinds of webhook, each a member of WebhookEvent */
export type WebhookEventType = WebhookEvent['event']

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

export interface VerifyWebhookInput {
  /** the body exactly as received, before any JSON parsing */
  rawBody: string | Uint8Array
  headers: WebhookHeaders
  /** your webhook secret; during your own rotation, the new and the old one */
  secret: string | readonly string[]
  toleranceSeconds?: number
  /** Unix seconds; the clock by default */
  nowSeconds?: number
}

const UNIX_SECONDS = /^[0-9]{1,13}$/

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined
  const record = headers as Record<string, string | string[] | undefined>
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1]
  return Array.isArray(value) ? value.join(',') : value
}

/**
 * every signature the delivery carries: X-Signature (the endpoint's current secret) and, during a
 * rotation's overlap, X-Signature-Previous (the secret it replaced); each may list several, comma or
 * space separated
 */
function signaturesOf(headers: WebhookHeaders): string[] {
  return ['x-signature', 'x-signature-previous']
    .flatMap((name) => (header(headers, name) ?? '').split(/[\s,]+/))
    .filter((signature) => signature !== '')
}

/** the event, once the delivery is verified; a WebhookVerificationError with the reason otherwise */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const timestamp = header(input.headers, 'x-timestamp')
  const eventId = header(input.headers, 'x-event-id')
  const signatures = signaturesOf(input.headers)
  if (timestamp === undefined || eventId === undefined || signatures.length === 0) {
    throw new WebhookVerificationError('missing_headers')
  }
  if (!UNIX_SECONDS.test(timestamp)) throw new WebhookVerificationError('malformed')
  let rawBody: string
  try {
    rawBody =
      typeof input.rawBody === 'string'
        ? input.rawBody
        : new TextDecoder('utf-8', { fatal: true }).decode(input.rawBody)
  } catch {
    throw new WebhookVerificationError('malformed')
  }
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret
  const message = `${timestamp}.${rawBody}`
  let matched = false
  // every pair is tried, whatever matched first, so that the time taken says nothing about which
  for (const secret of secrets) {
    for (const signature of signatures) {
      if (await hmacSha256Matches(secret, message, signature)) matched = true
    }
  }
  if (!matched) throw new WebhookVerificationError('bad_signature')
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('stale_timestamp')
  }
  let event: unknown
  try {
    event = JSON.parse(rawBody)
  } catch {
    throw new WebhookVerificationError('malformed')
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string') {
    throw new WebhookVerificationError('malformed')
  }
  if ((event as { id: string }).id !== eventId) throw new WebhookVerificationError('event_id_mismatch')
  return event as WebhookEvent
}

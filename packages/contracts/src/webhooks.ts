// Webhook payloads (docs/api.md, "Webhooks").

import { DECIMAL_AMOUNT_PATTERN, type Metadata } from '@chainpay/domain'
import Type from 'typebox'
import { MetadataSchema } from './api-schemas.js'
import { Nullable, StringEnum } from './schema-kit.js'

export const WebhookEventKinds = [
  'payment.pending',
  'payment.confirmed',
  'payment.underpaid',
  'payment.overpaid',
  'payment.expired',
  'payment.canceled',
  'payment.failed',
  'payment.late_funds',
  'payment.transfer_detected',
  'payment.underpaid_final',
  'payment.foreign_funds',
  // docs/api.md, "Invoices"
  'invoice.paid',
  'invoice.expired',
  'invoice.canceled',
  // refunds and payouts (docs/api.md, "Refunds and payouts"): every state change
  'refund.created',
  'refund.ready',
  'refund.sending',
  'refund.released',
  'refund.sent',
  'refund.completed',
  'refund.failed',
  'refund.canceled',
  'payout.created',
  'payout.sending',
  'payout.released',
  'payout.sent',
  'payout.completed',
  'payout.failed',
  'payout.canceled',
  // deposits at customers' deposit addresses (docs/api.md, "Deposits")
  'deposit.detected',
  'deposit.confirmed',
] as const

/** the kinds about a deposit: their body carries `deposit` instead of `payment` */
export const DepositWebhookKinds = ['deposit.detected', 'deposit.confirmed'] as const
export type DepositWebhookKind = (typeof DepositWebhookKinds)[number]

export function isDepositWebhookKind(kind: string): kind is DepositWebhookKind {
  return (DepositWebhookKinds as readonly string[]).includes(kind)
}

/** the `deposit` object of deposit.* webhooks (docs/api.md, "Deposits"); amounts are decimal strings */
export interface WebhookDepositFields {
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
  /** under the merchant's fee policy when the deposit was detected */
  fee_amount: string
  net_amount: string
  confirmations: number
  required_confirmations: number
  detected_at: string
  confirmed_at: string | null
}

export interface DepositWebhookBodyInput {
  id: string
  event: DepositWebhookKind
  /** a test event the merchant asked for: its deposit is made up */
  test?: true
  deposit: WebhookDepositFields
}

/** the exact body of a deposit webhook's attempt: {"id","event","timestamp","deposit":{...}} */
export function renderDepositWebhookBody(input: DepositWebhookBodyInput, timestampSeconds: number): string {
  if (input.id === '') throw new RangeError('webhook body: id must be the event id, got an empty string')
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook body: timestamp must be Unix seconds, got ${timestampSeconds}`)
  }
  return JSON.stringify({
    id: input.id,
    event: input.event,
    timestamp: timestampSeconds,
    ...(input.test === true ? { test: true } : {}),
    deposit: input.deposit,
  })
}

/** the kinds about an invoice: their body carries `invoice` instead of `payment` */
export const InvoiceWebhookKinds = ['invoice.paid', 'invoice.expired', 'invoice.canceled'] as const
export type InvoiceWebhookKind = (typeof InvoiceWebhookKinds)[number]

export function isInvoiceWebhookKind(kind: string): kind is InvoiceWebhookKind {
  return (InvoiceWebhookKinds as readonly string[]).includes(kind)
}

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
  /** the customer's page; absent from deliveries recorded before it existed */
  checkout_url?: string
  /**
   * the fiat price and its locked rate (docs/api.md, "Prices in fiat"), null for a payment created
   * with an amount; absent from deliveries recorded before version 1.3
   */
  price_amount?: string | null
  price_currency?: string | null
  rate?: { value: string; sources: string[]; at: string } | null
  /** expected minus received when the payment is confirmed within the tolerance or underpaid; else null */
  shortfall_amount?: string | null
  /** the invoice whose pick created the payment (docs/api.md, "Invoices"); absent otherwise */
  invoice_id?: string
  /** payment.late_funds only: the late transfer */
  late_funds?: { tx_hash: string; amount: string }
  /** payment.transfer_detected only: the confirmations the payment needs */
  required_confirmations?: number
  /** payment.transfer_detected only: the transfer first seen, before its confirmations */
  transfer?: { tx_hash: string; amount: string; confirmations: number }
  /** payment.foreign_funds only: the funds of another asset (docs/api.md, "Foreign funds") */
  foreign_funds?: { tx_hash: string; currency: string; amount: string }
}

export interface WebhookBodyInput {
  /** the event id, sent as X-Event-Id too: in the body, the signature covers it */
  id: string
  event: WebhookEventKind
  /** a test event the merchant asked for (docs/api.md, "Trying a webhook receiver"): its payment is made up */
  test?: true
  payment: WebhookPaymentFields
}

/** the `refund` or `payout` object of their webhooks (docs/api.md, "Refunds and payouts"): the API's object in snake_case */
export interface WebhookOutgoingFields {
  id: string
  /** upper case: AWAITING_ADDRESS, READY, SENDING, SENT, COMPLETED, FAILED, CANCELED */
  status: string
  /** refunds only */
  payment_id?: string
  network: string
  currency: string
  /** decimal text, as the merchant sent it */
  amount: string
  address: string | null
  tx_hash: string | null
  network_fee: { currency: string; amount: string } | null
  failure_reason: string | null
  /** payouts only */
  metadata?: Metadata
}

export type OutgoingWebhookBodyInput = { id: string; event: WebhookEventKind; test?: true } & (
  | { refund: WebhookOutgoingFields }
  | { payout: WebhookOutgoingFields }
)

/** whether a stored payload is a refund's or a payout's */
export function isOutgoingWebhookBody(
  input: WebhookBodyInput | OutgoingWebhookBodyInput,
): input is OutgoingWebhookBodyInput {
  return 'refund' in input || 'payout' in input
}

const decimalAmount = new RegExp(DECIMAL_AMOUNT_PATTERN)

/**
 * The exact body text for one attempt: {"id","event","timestamp","payment":{...}} where `id` is the
 * event id (equal to X-Event-Id, which the signature does not cover: docs/api.md, "Verifying a
 * webhook"), `timestamp` is Unix seconds of the attempt and payment.amount is a JSON number written
 * with the decimal's own digits (no float rounding). Every other value goes through JSON.stringify.
 */
export function renderWebhookBody(
  input: WebhookBodyInput | OutgoingWebhookBodyInput,
  timestampSeconds: number,
): string {
  if (isOutgoingWebhookBody(input)) return renderOutgoingWebhookBody(input, timestampSeconds)
  const { payment } = input
  if (!decimalAmount.test(payment.amount)) {
    throw new RangeError(`webhook body: payment.amount must be a decimal amount, got '${payment.amount}'`)
  }
  if (input.id === '') throw new RangeError('webhook body: id must be the event id, got an empty string')
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook body: timestamp must be Unix seconds, got ${timestampSeconds}`)
  }
  const rest = {
    currency: payment.currency,
    network: payment.network,
    expected_amount: payment.expected_amount,
    received_amount: payment.received_amount,
    fee_amount: payment.fee_amount,
    net_amount: payment.net_amount,
    confirmations: payment.confirmations,
    metadata: payment.metadata,
    checkout_url: payment.checkout_url,
    price_amount: payment.price_amount,
    price_currency: payment.price_currency,
    rate: payment.rate,
    shortfall_amount: payment.shortfall_amount,
    invoice_id: payment.invoice_id,
    late_funds: payment.late_funds,
    required_confirmations: payment.required_confirmations,
    transfer: payment.transfer,
    foreign_funds: payment.foreign_funds,
  }
  // The amount is spliced in as text because a JS number cannot hold 123456789012345678.123456,
  // and would turn 10.50 into 10.5; the pattern above makes the text a valid JSON number.
  return (
    `{"id":${JSON.stringify(input.id)},"event":${JSON.stringify(input.event)},"timestamp":${timestampSeconds},` +
    (input.test === true ? '"test":true,' : '') +
    `"payment":{"id":${JSON.stringify(payment.id)},"status":${JSON.stringify(payment.status.toUpperCase())},` +
    `"amount":${payment.amount},"tx_hash":${JSON.stringify(payment.tx_hash)},` +
    `${JSON.stringify(rest).slice(1)}}`
  )
}

const WebhookStatusSchema = StringEnum(
  ['PENDING', 'CONFIRMED', 'UNDERPAID', 'OVERPAID', 'EXPIRED', 'CANCELED', 'FAILED'],
  { description: 'the payment status in upper case' },
)

const DecimalTextSchema = Type.String({ pattern: DECIMAL_AMOUNT_PATTERN })

/** the webhook body, for documentation; renderWebhookBody writes it */
export const WebhookBodySchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      description:
        'the event id, equal to X-Event-Id and stable across retries; inside the signed body, so check that the two agree',
    }),
    event: StringEnum(WebhookEventKinds),
    timestamp: Type.Integer({ description: 'Unix seconds of this delivery attempt; equals X-Timestamp' }),
    test: Type.Optional(
      Type.Literal(true, {
        description:
          'only on a test event you asked for (POST /webhook-endpoints/{id}/test): its payment is made up',
      }),
    ),
    payment: Type.Object(
      {
        id: Type.String({ format: 'uuid', description: 'the paymentId' }),
        status: WebhookStatusSchema,
        amount: Type.Number({
          description:
            'the amount as sent at creation, as a JSON number written with exactly its decimal digits',
        }),
        tx_hash: Nullable(Type.String({ description: 'latest counted transaction; null until one exists' })),
        currency: Type.String(),
        network: Type.String(),
        expected_amount: DecimalTextSchema,
        received_amount: Nullable(DecimalTextSchema),
        fee_amount: DecimalTextSchema,
        net_amount: DecimalTextSchema,
        confirmations: Type.Integer({ minimum: 0 }),
        metadata: MetadataSchema,
        checkout_url: Type.Optional(
          Type.String({ format: 'uri', description: "the customer's page, as the payment's checkoutUrl" }),
        ),
        price_amount: Type.Optional(
          Nullable(
            Type.String({
              pattern: DECIMAL_AMOUNT_PATTERN,
              description:
                'the fiat price as sent (docs/api.md, "Prices in fiat"); null for a payment created with amount',
            }),
          ),
        ),
        price_currency: Type.Optional(
          Nullable(Type.String({ description: 'ISO 4217; null for a payment created with amount' })),
        ),
        rate: Type.Optional(
          Nullable(
            Type.Object(
              {
                value: Type.String({ description: 'price_currency units for one unit of currency' }),
                sources: Type.Array(Type.String()),
                at: Type.String({ format: 'date-time' }),
              },
              {
                additionalProperties: false,
                description: 'the rate the amount was computed at, locked until expiresAt',
              },
            ),
          ),
        ),
        shortfall_amount: Type.Optional(
          Nullable(
            Type.String({
              pattern: DECIMAL_AMOUNT_PATTERN,
              description:
                'expected_amount minus received_amount when the payment is confirmed within the underpayment tolerance, or underpaid; else null',
            }),
          ),
        ),
        invoice_id: Type.Optional(
          Type.String({
            description: 'the invoice whose pick created the payment; absent for a payment created directly',
          }),
        ),
        late_funds: Type.Optional(
          Type.Object(
            { tx_hash: Type.String(), amount: DecimalTextSchema },
            { description: 'payment.late_funds only: the transfer that arrived after the payment closed' },
          ),
        ),
        required_confirmations: Type.Optional(
          Type.Integer({
            minimum: 0,
            description: 'payment.transfer_detected only: the confirmations the payment needs',
          }),
        ),
        transfer: Type.Optional(
          Type.Object(
            {
              tx_hash: Type.String(),
              amount: DecimalTextSchema,
              confirmations: Type.Integer({ minimum: 0 }),
            },
            {
              description:
                'payment.transfer_detected only: the transfer first seen, before its confirmations',
            },
          ),
        ),
        foreign_funds: Type.Optional(
          Type.Object(
            { tx_hash: Type.String(), currency: Type.String(), amount: DecimalTextSchema },
            {
              description:
                "payment.foreign_funds only: funds of another asset (or TRX a contract sent) to the payment's address",
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

/** the `invoice` object of an invoice webhook's body (docs/api.md, "Invoices") */
export interface WebhookInvoiceFields {
  id: string
  /** upper case: PAID, EXPIRED, CANCELED */
  status: string
  price_amount: string
  price_currency: string
  /** the payment that paid it; null unless paid */
  paid_payment_id: string | null
  /** the payments of the customer's picks, oldest first */
  payments: Array<{ payment_id: string; currency: string; network: string }>
  metadata: Metadata
  checkout_url: string
  expires_at: string
}

export interface InvoiceWebhookBodyInput {
  id: string
  event: InvoiceWebhookKind
  /** a test event the merchant asked for: its invoice is made up */
  test?: true
  invoice: WebhookInvoiceFields
}

/** the exact body of an invoice webhook's attempt: {"id","event","timestamp","invoice":{...}} */
export function renderInvoiceWebhookBody(input: InvoiceWebhookBodyInput, timestampSeconds: number): string {
  if (input.id === '') throw new RangeError('webhook body: id must be the event id, got an empty string')
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook body: timestamp must be Unix seconds, got ${timestampSeconds}`)
  }
  const { invoice } = input
  return JSON.stringify({
    id: input.id,
    event: input.event,
    timestamp: timestampSeconds,
    ...(input.test === true ? { test: true } : {}),
    invoice: { ...invoice, status: invoice.status.toUpperCase() },
  })
}

export const WebhookInvoiceBodySchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      description: 'the event id, equal to X-Event-Id and stable across retries',
    }),
    event: StringEnum(InvoiceWebhookKinds),
    timestamp: Type.Integer({ description: 'Unix seconds of this delivery attempt; equals X-Timestamp' }),
    test: Type.Optional(
      Type.Literal(true, { description: 'only on a test event you asked for: its invoice is made up' }),
    ),
    invoice: Type.Object(
      {
        id: Type.String({ format: 'uuid', description: 'the invoiceId' }),
        status: StringEnum(['OPEN', 'PAID', 'EXPIRED', 'CANCELED']),
        price_amount: Type.String(),
        price_currency: Type.String(),
        paid_payment_id: Type.Union([Type.String(), Type.Null()]),
        payments: Type.Array(
          Type.Object(
            { payment_id: Type.String(), currency: Type.String(), network: Type.String() },
            { additionalProperties: false },
          ),
        ),
        metadata: Type.Record(Type.String(), Type.Unknown()),
        checkout_url: Type.String({ format: 'uri' }),
        expires_at: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

/** {"id","event","timestamp","refund"|"payout":{...}}: the amounts are decimal strings, as the API's */
function renderOutgoingWebhookBody(input: OutgoingWebhookBodyInput, timestampSeconds: number): string {
  if (input.id === '') throw new RangeError('webhook body: id must be the event id, got an empty string')
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook body: timestamp must be Unix seconds, got ${timestampSeconds}`)
  }
  const [name, fields] = 'refund' in input ? ['refund', input.refund] : ['payout', input.payout]
  const test = input.test === true ? { test: true } : {}
  return JSON.stringify({
    id: input.id,
    event: input.event,
    timestamp: timestampSeconds,
    ...test,
    [name]: fields,
  })
}

const OutgoingFieldsSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the refundId or payoutId' }),
  status: StringEnum(['AWAITING_ADDRESS', 'READY', 'SENDING', 'SENT', 'COMPLETED', 'FAILED', 'CANCELED']),
  payment_id: Type.Optional(
    Type.String({ format: 'uuid', description: 'refunds only: the payment refunded' }),
  ),
  network: Type.String(),
  currency: Type.String(),
  amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }),
  address: Nullable(Type.String()),
  tx_hash: Nullable(Type.String()),
  network_fee: Nullable(
    Type.Object({ currency: Type.String(), amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }) }),
  ),
  failure_reason: Nullable(Type.String()),
  metadata: Type.Optional(MetadataSchema),
})

/** the body of refund.* and payout.* webhooks, for documentation; renderWebhookBody writes it */
export const OutgoingWebhookBodySchema = Type.Object({
  id: Type.String({
    minLength: 1,
    description: 'the event id, equal to X-Event-Id and stable across retries',
  }),
  event: StringEnum(
    WebhookEventKinds.filter((kind) => kind.startsWith('refund.') || kind.startsWith('payout.')),
  ),
  timestamp: Type.Integer({ description: 'Unix seconds of this delivery attempt; equals X-Timestamp' }),
  test: Type.Optional(Type.Literal(true, { description: 'only on a test event you asked for' })),
  refund: Type.Optional(OutgoingFieldsSchema),
  payout: Type.Optional(OutgoingFieldsSchema),
})

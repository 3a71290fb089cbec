// The merchant API's shapes, as the server sends them (the project's docs/api.md is the reference).
// Amounts are decimal strings, never numbers: parse them with a decimal library when you compute.

export type Network = 'TRON' | 'TRON_NILE' | 'SOLANA' | 'SOLANA_DEVNET' | (string & {})
export type Currency = 'TRX' | 'USDT' | 'SOL' | 'USDC' | (string & {})
export type TokenStandard = 'NATIVE' | 'TRC20' | 'SPL' | (string & {})

export type PaymentStatus =
  | 'pending'
  | 'confirmed'
  | 'underpaid'
  | 'overpaid'
  | 'expired'
  | 'canceled'
  | 'failed'

export type MetadataValue = string | number | boolean | null

/**
 * POST /payments: an amount of the asset, or a price in fiat (docs/api.md, "Prices in fiat"), whose
 * amount chainpay computes at a rate it locks until expiresAt
 */
export type CreatePaymentParams = CreatePaymentWithAmount | CreatePaymentWithPrice

export interface CreatePaymentWithAmount extends CreatePaymentFields {
  /** decimal string, e.g. "25.5": at most the asset's decimals after the dot */
  amount: string
  priceAmount?: never
  priceCurrency?: never
}

export interface CreatePaymentWithPrice extends CreatePaymentFields {
  amount?: never
  /** decimal string in the fiat currency, e.g. "19.99": at most its minor units (2 for USD and EUR) */
  priceAmount: string
  /** ISO 4217, one of the operator's price currencies (USD and EUR by default) */
  priceCurrency: string
}

interface CreatePaymentFields {
  currency: Currency
  network: Network
  tokenStandard?: TokenStandard
  /** PER_USER: the payment uses the deposit address of `merchantUserId` (docs/api.md, "Deposit addresses") */
  addressMode?: 'PER_PAYMENT' | 'PER_USER'
  /** your customer, 1 to 128 characters; with addressMode PER_USER only */
  merchantUserId?: string
  description?: string
  metadata?: Record<string, MetadataValue>
  callbackUrl?: string
  successRedirectUrl?: string
  cancelRedirectUrl?: string
  /** 1 to 1440, default 30 */
  expiresInMinutes?: number
  /**
   * 1 to 255 characters, scoped to your merchant. The same key with the same request answers the
   * original payment. When absent the SDK makes one up per call, so that its own retries never
   * create two payments; pass your order id to make your retries safe too.
   */
  idempotencyKey?: string
}

export interface LateFunds {
  txHash: string
  amount: string
  receivedAt: string
}

export interface ForeignFunds {
  txHash: string
  currency: string
  amount: string
  receivedAt: string
}

export interface Payment {
  paymentId: string
  status: PaymentStatus
  network: Network
  currency: Currency
  tokenStandard: TokenStandard
  /** exactly as sent */
  amount: string
  /** canonical form of amount: what the customer must send */
  expectedAmount: string
  receivedAmount: string | null
  generatedAddress: string
  generatedTokenAccount: string | null
  addressMode: 'PER_PAYMENT' | 'PER_USER'
  /** the customer of a PER_USER payment; null otherwise */
  merchantUserId: string | null
  txHash: string | null
  confirmations: number
  requiredConfirmations: number
  createdAt: string
  confirmedAt: string | null
  expiresAt: string
  /** null when not sent */
  description: string | null
  metadata: Record<string, MetadataValue>
  feeAmount: string
  netAmount: string
  /** the payment's fee policy applied to receivedAmount; null until the received amount is final */
  receivedFeeAmount: string | null
  receivedNetAmount: string | null
  /** the customer's page: send the customer there */
  checkoutUrl: string
  /** funds that arrived after the payment closed or after expiresAt */
  lateFunds: LateFunds[]
  /** funds of another asset sent to the payment's address; they do not change the status */
  foreignFunds: ForeignFunds[]
  /** a price in fiat as sent; null for a payment created with an amount */
  priceAmount: string | null
  priceCurrency: string | null
  /** the rate `amount` was computed at, locked until expiresAt; null for a payment created with an amount */
  rate: Rate | null
  /** the merchant's underpayment tolerance when the payment was created, in percent */
  underpaymentTolerancePercent: string
  /** expectedAmount minus receivedAmount when confirmed within the tolerance or underpaid; else null */
  shortfallAmount: string | null
  /** the invoice whose pick created the payment; null for a payment created directly */
  invoiceId: string | null
  /** create response only */
  callbackUrl?: string | null
  successRedirectUrl?: string | null
  cancelRedirectUrl?: string | null
}

/** an exchange rate: `value` units of priceCurrency for one unit of currency */
export interface Rate {
  value: string
  /** the sources whose answers made it ("peg" when a configured peg was used) */
  sources: string[]
  /** the time of the oldest answer it is made of */
  at: string
}

export interface ListPaymentsParams {
  /** 1 to 100, default 20 */
  limit?: number
  cursor?: string
  status?: PaymentStatus | PaymentStatus[]
  network?: Network
  currency?: Currency
  /** ISO 8601, inclusive */
  createdFrom?: string | Date
  /** ISO 8601, exclusive */
  createdTo?: string | Date
}

export interface Page<T> {
  data: T[]
  nextCursor: string | null
}

export interface PaymentEventsParams {
  /** all (default): every transfer.confirmations_updated; last: only the last one of each transfer */
  confirmations?: 'all' | 'last'
}

export interface PaymentEventRecord {
  id: string
  /** dotted lower case: payment.created, transfer.detected, ..., late_funds.received */
  type: string
  occurredAt: string
  data: Record<string, unknown>
}

export interface WebhookEndpoint {
  id: string
  url: string
  /** the webhook kinds it receives; null: every kind, those added later too */
  events: string[] | null
  description: string | null
  enabled: boolean
  /**
   * merchant: registered through the API; operator: the default webhook URL the operator set, id
   * `merchant-default`, which only the operator changes (update, delete and rotateSecret are refused)
   */
  managedBy: 'merchant' | 'operator'
  /** until when deliveries also carry the signature of the secret before the latest rotation */
  previousSecretExpiresAt: string | null
  createdAt: string
  updatedAt: string
}

/** a created endpoint: its secret is shown this once */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string }

export interface RotatedSecret {
  id: string
  /** the new secret, shown this once */
  secret: string
  /** until when deliveries are also signed with the old secret (X-Signature-Previous); null: not at all */
  previousSecretExpiresAt: string | null
}

export interface CreateWebhookEndpointParams {
  url: string
  /** default: every kind */
  events?: string[]
  description?: string
}

export interface UpdateWebhookEndpointParams {
  url?: string
  events?: string[] | null
  enabled?: boolean
  description?: string | null
}

export interface TestWebhookEndpointParams {
  /** the kind of the test event; default payment.confirmed */
  event?: string
}

export interface RotateSecretParams {
  /** how long deliveries are signed with the old secret too: 0 to 168, default 24 */
  expiresInHours?: number
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

export interface DeliveryAttempt {
  attempt: number
  at: string
  statusCode: number | null
  durationMs: number | null
  error: string | null
  /** the URL it was sent to; null when there was none (or on attempts recorded before it was kept) */
  url: string | null
}

export interface WebhookDelivery {
  id: string
  /** the event's id: X-Event-Id and the body's id */
  eventId: string
  eventType: string
  paymentId: string
  /** null for the payment's callbackUrl */
  endpointId: string | null
  /** where it goes now (an endpoint's current URL); null when there is none */
  url: string | null
  status: DeliveryStatus
  nextAttemptAt: string | null
  createdAt: string
  deliveredAt: string | null
  lastError: string | null
  attempts: DeliveryAttempt[]
}

export interface ListDeliveriesParams {
  paymentId?: string
  status?: DeliveryStatus
  limit?: number
  cursor?: string
}

export type InvoiceStatus = 'open' | 'paid' | 'expired' | 'canceled'

/** POST /invoices (docs/api.md, "Invoices") */
export interface CreateInvoiceParams {
  /** the price, at most the currency's minor units: "19.99" */
  priceAmount: string
  /** ISO 4217, one of the operator's price currencies (USD and EUR by default) */
  priceCurrency: string
  /** the assets the customer may pick; every asset the installation serves when left out */
  accepted?: Array<{ currency: Currency; network: Network }>
  description?: string
  metadata?: Record<string, MetadataValue>
  callbackUrl?: string
  successRedirectUrl?: string
  cancelRedirectUrl?: string
  /** 1 to 1440, default 30; the payments of the picks expire with the invoice */
  expiresInMinutes?: number
  /** required by the API; the SDK sends one of its own when you give none */
  idempotencyKey?: string
}

export interface Invoice {
  invoiceId: string
  status: InvoiceStatus
  priceAmount: string
  priceCurrency: string
  accepted: Array<{ currency: Currency; network: Network; tokenStandard: TokenStandard }>
  description: string | null
  metadata: Record<string, MetadataValue>
  callbackUrl: string | null
  successRedirectUrl: string | null
  cancelRedirectUrl: string | null
  /** the invoice's page, where the customer picks how to pay: send the customer there */
  checkoutUrl: string
  createdAt: string
  expiresAt: string
  /** when it became paid, expired or canceled; null while open */
  closedAt: string | null
  /** the payment that paid it; null unless paid */
  paidPaymentId: string | null
  /** the payments of the customer's picks, oldest first; the last is the current one */
  payments: Array<{ paymentId: string; currency: Currency; network: Network; pickedAt: string }>
}

export interface ListInvoicesParams {
  /** 1 to 100, default 20 */
  limit?: number
  cursor?: string
  status?: InvoiceStatus | InvoiceStatus[]
  createdFrom?: string | Date
  createdTo?: string | Date
}

/** docs/api.md, "Refunds and payouts" */
export type OutgoingStatus =
  | 'awaiting_address'
  | 'ready'
  | 'sending'
  | 'sent'
  | 'completed'
  | 'failed'
  | 'canceled'

interface OutgoingFields {
  merchantId: string
  network: Network
  currency: Currency
  /** as sent; the recipient receives exactly this, network fees are the treasury's */
  amount: string
  /** null while awaiting_address */
  address: string | null
  status: OutgoingStatus
  txHash: string | null
  /** what the treasury paid, once completed */
  networkFee: { currency: Currency; amount: string } | null
  failureReason: string | null
  createdAt: string
  updatedAt: string
}

export interface Refund extends OutgoingFields {
  refundId: string
  paymentId: string
  /** the customer's claim page when you gave no address; null otherwise */
  claimUrl: string | null
  reason: string | null
}

export interface Payout extends OutgoingFields {
  payoutId: string
  metadata: Record<string, MetadataValue>
}

export interface CreateRefundParams {
  amount: string
  /** without it, the refund carries a claimUrl where the customer enters it */
  address?: string
  reason?: string
  /** required: a repeat of the same request answers the original refund */
  idempotencyKey: string
}

export interface CreatePayoutParams {
  network: Network
  currency: Currency
  amount: string
  address: string
  idempotencyKey: string
  metadata?: Record<string, MetadataValue>
}

export interface ListOutgoingParams {
  limit?: number
  cursor?: string
  status?: OutgoingStatus | OutgoingStatus[]
}

export interface ListRefundsParams extends ListOutgoingParams {
  paymentId?: string
}

/** a balance of one asset (docs/api.md, "Balances") */
export interface Balance {
  network: Network
  currency: Currency
  receivedNetAmount: string
  refundedAmount: string
  paidOutAmount: string
  availableAmount: string
}

export {
  Chainpay,
  type ChainpayOptions,
  type CreatedInvoice,
  type CreatedPayment,
  InvoicesApi,
  PaymentsApi,
  WebhookDeliveriesApi,
  WebhookEndpointsApi,
} from './chainpay.js'
export {
  type CreateDepositAddressParams,
  type Deposit,
  type DepositAddress,
  DepositAddressesApi,
  type DepositStatus,
  DepositsApi,
  type EnsuredDepositAddress,
  type ListDepositAddressesParams,
  type ListDepositsParams,
} from './deposits.js'
export {
  type ApiErrorCode,
  ChainpayApiError,
  ChainpayConnectionError,
  ChainpayError,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from './errors.js'
export { API_BASE_PATH, type HttpOptions } from './http.js'
export { BalancesApi, PayoutsApi, RefundsApi } from './outgoing.js'
export { signRequest } from './signing.js'
export type * from './types.js'
export {
  type DepositWebhookEvent,
  depositWebhookOf,
  type InvoiceWebhookEvent,
  invoiceWebhookOf,
  isDepositWebhookEvent,
  isOutgoingWebhookEvent,
  type OutgoingWebhookEvent,
  type VerifyWebhookInput,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookDeposit,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookInvoice,
  type WebhookOutgoing,
  type WebhookPayment,
} from './webhooks.js'

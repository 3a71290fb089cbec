export {
  Chainpay,
  type ChainpayOptions,
  type CreatedPayment,
  PaymentsApi,
  WebhookDeliveriesApi,
  WebhookEndpointsApi,
} from './chainpay.js'
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
  isOutgoingWebhookEvent,
  type OutgoingWebhookEvent,
  type VerifyWebhookInput,
  verifyWebhook,
  WEBHOOK_TOLERANCE_SECONDS,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookOutgoing,
  type WebhookPayment,
} from './webhooks.js'

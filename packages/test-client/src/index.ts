export { verifyWebhook, WEBHOOK_HEADERS, type WebhookVerification } from '@chainpay/signing'
export * from './merchant-client.js'

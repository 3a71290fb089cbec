// The notifier deployable: signed webhooks, delivered in order and retried from a durable log (packages/notifier).
import { buildNotifierContext, readNotifierConfig } from '@chainpay/notifier'
import { runServiceMain } from '@chainpay/service-kit'

await runServiceMain({
  service: 'notifier',
  readConfig: readNotifierConfig,
  buildContext: buildNotifierContext,
})

// The notifier deployable: turns payment events into signed webhooks, delivered in order and retried
// from a durable delivery log.
import { runServiceMain } from '@chainpay/service-kit'
import { readNotifierConfig } from './config.js'
import { buildNotifierContext } from './context.js'

await runServiceMain({
  service: 'notifier',
  readConfig: readNotifierConfig,
  buildContext: buildNotifierContext,
})

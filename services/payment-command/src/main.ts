// The payment-command deployable: the payment decider, its event relay, chain observations, expiry,
// and the internal command API the gateway calls.
import { runServiceMain } from '@chainpay/service-kit'
import { readPaymentCommandConfig } from './config.js'
import { buildPaymentCommandContext } from './context.js'

await runServiceMain({
  service: 'payment-command',
  readConfig: readPaymentCommandConfig,
  buildContext: buildPaymentCommandContext,
})

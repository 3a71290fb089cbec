// The payment-command deployable: the payment decider, its event relay, chain observations, expiry and the internal command API (packages/payment-command).
import { buildPaymentCommandContext, readPaymentCommandConfig } from '@chainpay/payment-command'
import { runServiceMain } from '@chainpay/service-kit'

await runServiceMain({
  service: 'payment-command',
  readConfig: readPaymentCommandConfig,
  buildContext: buildPaymentCommandContext,
})

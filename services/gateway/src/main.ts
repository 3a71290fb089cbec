// The gateway deployable: the merchant API and the admin API; payment commands go to payment-command
// over HTTP, reads come from the read model.
import { runServiceMain } from '@chainpay/service-kit'
import { readGatewayConfig } from './config.js'
import { buildGatewayContext } from './context.js'

await runServiceMain({
  service: 'gateway',
  readConfig: readGatewayConfig,
  buildContext: buildGatewayContext,
})

// The projection deployable: folds the payment events on the bus into the read model the gateway
// reads.
import { runServiceMain } from '@chainpay/service-kit'
import { readProjectionConfig } from './config.js'
import { buildProjectionContext } from './context.js'

await runServiceMain({
  service: 'projection',
  readConfig: readProjectionConfig,
  buildContext: buildProjectionContext,
})

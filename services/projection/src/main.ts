// The projection deployable: folds the payment events on the bus into the read model (packages/projection).
import { buildProjectionContext, readProjectionConfig } from '@chainpay/projection'
import { runServiceMain } from '@chainpay/service-kit'

await runServiceMain({
  service: 'projection',
  readConfig: readProjectionConfig,
  buildContext: buildProjectionContext,
})

// The chain-indexer deployable: watches the chains for transfers to payment addresses and
// publishes what it sees; the chains are simulated in process for now.
import { runServiceMain } from '@chainpay/service-kit'
import { readChainIndexerConfig } from './config.js'
import { buildChainIndexerContext } from './context.js'

await runServiceMain({
  service: 'chain-indexer',
  readConfig: readChainIndexerConfig,
  buildContext: buildChainIndexerContext,
})

// The chain-indexer deployable: watches the chains (real TRON and Solana nodes over RPC, or chains
// simulated in process) for transfers to payment addresses and publishes what it sees.
import { runServiceMain } from '@chainpay/service-kit'
import { readChainIndexerConfig } from './config.js'
import { buildChainIndexerContext } from './context.js'

await runServiceMain({
  service: 'chain-indexer',
  readConfig: readChainIndexerConfig,
  buildContext: buildChainIndexerContext,
})

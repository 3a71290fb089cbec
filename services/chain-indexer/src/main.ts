// The chain-indexer deployable: watches TRON and Solana (real nodes, or simulated chains) for transfers to payment addresses (packages/chain-indexer).
import { buildChainIndexerContext, readChainIndexerConfig } from '@chainpay/chain-indexer'
import { runServiceMain } from '@chainpay/service-kit'

await runServiceMain({
  service: 'chain-indexer',
  readConfig: readChainIndexerConfig,
  buildContext: buildChainIndexerContext,
})

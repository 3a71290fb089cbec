// The distributed gateway's balance readers where the chains are simulated: the TRON and Solana RPC
// readers against the chain-indexer's node-shaped routes (CHAIN_SIMULATOR_URL/chains/<network>), with
// the simulator's token when there is one. Real chains have no reader in the gateway yet
// (docs/operations.md, "Balances and sweeps"). Loaded on demand: tronweb and web3.js only where used.

import type { AssetRegistry } from '@chainpay/domain'
import type { ChainBalanceReader } from '@chainpay/ports'
import { SIMULATOR_TOKEN_HEADER } from '@chainpay/service-kit'

/** a simulated node answers on the chain-indexer's port */
const SIMULATOR_RPC_TIMEOUT_MS = 10_000

export async function simulatorBalanceReaders(options: {
  /** CHAIN_SIMULATOR_URL */
  url: string
  /** SIMULATOR_TOKEN */
  token: string | undefined
  /** the networks served */
  registry: AssetRegistry
}): Promise<Map<string, ChainBalanceReader>> {
  const [{ createTronBalanceReader }, { createSolanaBalanceReader }] = await Promise.all([
    import('@chainpay/chain-tron'),
    import('@chainpay/chain-solana'),
  ])
  const headers: Record<string, string> =
    options.token === undefined ? {} : { [SIMULATOR_TOKEN_HEADER]: options.token }
  const base = options.url.replace(/\/+$/, '')
  return new Map(
    options.registry.networks.map(({ network, chain }) => {
      const rpcUrl = `${base}/chains/${network}`
      const common = { network, timeoutMs: SIMULATOR_RPC_TIMEOUT_MS, headers }
      const reader =
        chain === 'TRON'
          ? createTronBalanceReader({ ...common, fullNodeUrl: rpcUrl })
          : createSolanaBalanceReader({ ...common, rpcUrl })
      return [network, reader]
    }),
  )
}

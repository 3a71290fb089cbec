// The distributed gateway's balance readers (docs/operations.md, "Balances and sweeps"): the TRON and
// Solana RPC readers against the nodes the operator gives it (<NETWORK>_RPC_URL, as the chain-indexer
// reads them), or, where the chains are simulated, against the chain-indexer's node-shaped routes
// (CHAIN_SIMULATOR_URL/chains/<network>) with the simulator's token. Loaded on demand: tronweb and
// web3.js only where used.

import type { Chain } from '@chainpay/domain'
import type { ChainBalanceReader } from '@chainpay/ports'
import { SIMULATOR_TOKEN_HEADER } from '@chainpay/service-kit'

export interface BalanceEndpoint {
  network: string
  chain: Chain
  /** may carry a provider's key: never logged */
  rpcUrl: string
  /** TRON-PRO-API-KEY */
  apiKey?: string | undefined
  headers?: Record<string, string>
}

export async function rpcBalanceReaders(
  endpoints: readonly BalanceEndpoint[],
  timeoutMs: number,
): Promise<Map<string, ChainBalanceReader>> {
  if (endpoints.length === 0) return new Map()
  const [{ createTronBalanceReader }, { createSolanaBalanceReader }] = await Promise.all([
    import('@chainpay/chain-tron'),
    import('@chainpay/chain-solana'),
  ])
  return new Map(
    endpoints.map(({ network, chain, rpcUrl, apiKey, headers }) => {
      const common = { network, timeoutMs, ...(headers ? { headers } : {}) }
      const reader =
        chain === 'TRON'
          ? createTronBalanceReader({ ...common, fullNodeUrl: rpcUrl, ...(apiKey ? { apiKey } : {}) })
          : createSolanaBalanceReader({ ...common, rpcUrl })
      return [network, reader]
    }),
  )
}

/** each simulated network's node routes on the chain-indexer (CHAIN_SIMULATOR_URL) */
export function simulatorBalanceEndpoints(
  url: string,
  token: string | undefined,
  networks: ReadonlyArray<{ network: string; chain: Chain }>,
): BalanceEndpoint[] {
  const headers: Record<string, string> = token === undefined ? {} : { [SIMULATOR_TOKEN_HEADER]: token }
  return networks.map(({ network, chain }) => ({
    network,
    chain,
    rpcUrl: `${url}/chains/${network}`,
    headers,
  }))
}

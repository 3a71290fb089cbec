// The distributed gateway's balance readers (docs/operations.md, "Balances and sweeps"): the TRON and
// Solana RPC readers against the nodes the operator gives it (<NETWORK>_RPC_URL, one or several, as
// the chain-indexer reads them), or, where the chains are simulated, against the chain-indexer's
// node-shaped routes (CHAIN_SIMULATOR_URL/chains/<network>) with the simulator's token. chain-access
// loads tronweb and web3.js only when a reader is made: the gateway without RPC URLs never does.

import { chainAccess, type NetworkEndpoints, simulatorEndpoints } from '@chainpay/chain-access'
import type { AssetRegistry, Chain } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { ChainBalanceReader } from '@chainpay/ports'

export async function rpcBalanceReaders(
  endpoints: readonly NetworkEndpoints[],
  options: { registry: AssetRegistry; timeoutMs: number; logger: Logger },
): Promise<Map<string, ChainBalanceReader>> {
  const readers = await Promise.all(
    endpoints.map(
      async (network) => [network.network, await chainAccess(network, options).balanceReader()] as const,
    ),
  )
  return new Map(readers)
}

/** each simulated network's node routes on the chain-indexer (CHAIN_SIMULATOR_URL) */
export function simulatorBalanceEndpoints(
  url: string,
  token: string | undefined,
  networks: ReadonlyArray<{ network: string; chain: Chain }>,
): NetworkEndpoints[] {
  return networks.map(({ network, chain }) => simulatorEndpoints(url, network, chain, token))
}

// The one place that picks how a network's chain is read (issue 23): the TRON clients over tronweb,
// the Solana ones over @solana/web3.js, each over the network's endpoints with failover between
// them, or, for block scanning in simulator mode with SIMULATOR_CLIENT=in-process, the simulator
// itself. The chain-indexer, the gateway's balances and `chainpay-admin chain check` all get their
// clients here. The client libraries are loaded on first use only: a gateway that reads no balance,
// or an indexer of Solana alone, never loads tronweb.
import type { ChainSimulator } from '@chainpay/chain-sim'
import type { AssetRegistry } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { ChainBalanceReader, ChainClient, SolanaAddressReader } from '@chainpay/ports'
import { type ReadinessTrackedClient, trackReadiness } from './chain-readiness.js'
import type { NetworkEndpoints, SolanaNode, TronNode } from './network-endpoints.js'
import { withRpcResilience } from './resilient-chain-client.js'

export interface ChainAccessOptions {
  registry: AssetRegistry
  /** the longest wait for one HTTP answer of one endpoint (CHAIN_RPC_TIMEOUT_MS) */
  timeoutMs: number
  /** where retries, breakers and endpoints that fail or fall behind are reported */
  logger: Logger
  /** block scanning reads this simulator in process (SIMULATOR_CLIENT=in-process); the rest still over its routes */
  inProcess?: ChainSimulator | undefined
}

/** how one network's chain is read */
export interface ChainAccess {
  readonly network: string
  /** the chain port as the client library gives it, without retries: a one-off check */
  chainClient(options?: { readFinalizedHeight?: boolean }): Promise<ChainClient>
  /** what an indexer scans blocks with: the chain client behind withRpcResilience, its readiness tracked */
  blockScanningClient(): Promise<ReadinessTrackedClient>
  /** what the network's addresses hold now (docs/api.md, "Balances and sweeps") */
  balanceReader(): Promise<ChainBalanceReader>
  /** Solana only: the accounts of open payments, over HTTP and the node's websocket (SOLANA_WATCH_MODE=address) */
  addressReader(): Promise<SolanaAddressReader>
}

export function chainAccess(endpoints: NetworkEndpoints, options: ChainAccessOptions): ChainAccess {
  const { network, headers } = endpoints
  const { registry, timeoutMs } = options
  // endpoints that fail or fall behind (@chainpay/rpc-failover)
  const common = {
    network,
    timeoutMs,
    headers,
    logger: options.logger.child({ module: 'rpc-failover', network }),
  }

  async function chainClient(extra: { readFinalizedHeight?: boolean } = {}): Promise<ChainClient> {
    if (endpoints.chain === 'TRON') {
      const { createTronChainClient } = await import('@chainpay/chain-tron')
      return createTronChainClient({ ...common, registry, ...tronNodes(endpoints.nodes), ...extra })
    }
    const { createSolanaChainClient } = await import('@chainpay/chain-solana')
    return createSolanaChainClient({ ...common, registry, ...solanaNodes(endpoints.nodes) })
  }

  return {
    network,
    chainClient,

    async blockScanningClient() {
      const client =
        options.inProcess?.client(network) ??
        withRpcResilience(await chainClient(), { logger: options.logger, network })
      return trackReadiness(client)
    },

    async balanceReader() {
      if (endpoints.chain === 'TRON') {
        const { createTronBalanceReader } = await import('@chainpay/chain-tron')
        return createTronBalanceReader({ ...common, ...tronNodes(endpoints.nodes) })
      }
      const { createSolanaBalanceReader } = await import('@chainpay/chain-solana')
      return createSolanaBalanceReader({ ...common, ...solanaNodes(endpoints.nodes) })
    },

    async addressReader() {
      if (endpoints.chain !== 'SOLANA')
        throw new Error(`${network}: only Solana networks are watched by address`)
      const { createSolanaAddressReader, createSolanaConnection } = await import('@chainpay/chain-solana')
      const connection = createSolanaConnection({ ...common, ...solanaNodes(endpoints.nodes) })
      return createSolanaAddressReader({ network, registry, connection })
    },
  }
}

/** the TRON clients' options of the first node, the others as their fallbacks */
function tronNodes(nodes: readonly TronNode[]) {
  return firstAndFallbacks(
    nodes.map(({ rpcUrl, solidityRpcUrl, apiKey }) => ({
      fullNodeUrl: rpcUrl,
      solidityNodeUrl: solidityRpcUrl,
      apiKey: apiKey ?? undefined,
    })),
  )
}

/** the Solana clients' options of the first node, the others as their fallbacks */
function solanaNodes(nodes: readonly SolanaNode[]) {
  return firstAndFallbacks(nodes.map(({ rpcUrl, wsUrl }) => ({ rpcUrl, wsUrl: wsUrl ?? undefined })))
}

function firstAndFallbacks<T>(nodes: readonly T[]): T & { fallbacks: T[] } {
  const [first, ...fallbacks] = nodes
  if (first === undefined) throw new Error('a network without an RPC endpoint')
  return { ...first, fallbacks }
}

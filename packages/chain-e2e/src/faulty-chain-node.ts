// What the end-to-end chain tests stand on: the indexer harness's simulated TRON and Solana chains
// served over real HTTP in the real nodes' shapes (java-tron routes, Solana JSON-RPC), a faulty
// proxy in front of them, and the real tronweb and @solana/web3.js clients reading through it.

import type { IndexerHarness } from '@chainpay/chain-indexer/testing'
import { type FaultyRpcProxy, startFaultyRpcProxy } from '@chainpay/chain-sim/testing'
import { createSolanaChainClient } from '@chainpay/chain-solana'
import { createTronChainClient } from '@chainpay/chain-tron'
import { defaultAssetRegistry, findNetwork } from '@chainpay/domain'
import type { ChainClient } from '@chainpay/ports'

export interface FaultyChainNode {
  proxy: FaultyRpcProxy
  /** the real client of `network` reading through the proxy */
  clientThroughProxy(network: string, options?: { timeoutMs?: number }): ChainClient
  /** the same client reading the node directly: what a healthy endpoint answers */
  directClient(network: string): ChainClient
  /** stops the proxy; the node is the harness's, closed with it */
  close(): Promise<void>
}

/** the harness's simulator served as TRON and Solana nodes (harness.serve()), behind a faulty proxy */
export async function startFaultyChainNode(harness: IndexerHarness): Promise<FaultyChainNode> {
  const origin = (await harness.serve()).url
  const proxy = await startFaultyRpcProxy({ target: origin })

  const client = (base: string, network: string, timeoutMs?: number): ChainClient => {
    const url = `${base}/chains/${network}`
    const chain = findNetwork(defaultAssetRegistry, network)?.chain
    if (chain === 'TRON') {
      return createTronChainClient({ network, registry: defaultAssetRegistry, fullNodeUrl: url, timeoutMs })
    }
    return createSolanaChainClient({ network, registry: defaultAssetRegistry, rpcUrl: url, timeoutMs })
  }

  return {
    proxy,
    clientThroughProxy: (network, options = {}) => client(proxy.url, network, options.timeoutMs),
    directClient: (network) => client(origin, network),
    close: () => proxy.close(),
  }
}

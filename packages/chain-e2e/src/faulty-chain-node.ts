// What the end-to-end chain tests stand on: the indexer harness's simulated TRON and Solana chains
// served over real HTTP in the real nodes' shapes (java-tron routes, Solana JSON-RPC), a faulty
// proxy in front of them, and the real tronweb and @solana/web3.js clients reading through it.

import { chainAccess, simulatorEndpoints } from '@chainpay/chain-access'
import { type IndexerHarness, testLogger } from '@chainpay/chain-indexer/testing'
import { type FaultyRpcProxy, startFaultyRpcProxy } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, findNetwork } from '@chainpay/domain'
import type { ChainClient } from '@chainpay/ports'

export interface FaultyChainNode {
  proxy: FaultyRpcProxy
  /** the real client of `network` reading through the proxy */
  clientThroughProxy(network: string, options?: { timeoutMs?: number }): Promise<ChainClient>
  /** the same client reading the node directly: what a healthy endpoint answers */
  directClient(network: string): Promise<ChainClient>
  /** stops the proxy; the node is the harness's, closed with it */
  close(): Promise<void>
}

/** the harness's simulator served as TRON and Solana nodes (harness.serve()), behind a faulty proxy */
export async function startFaultyChainNode(harness: IndexerHarness): Promise<FaultyChainNode> {
  const origin = (await harness.serve()).url
  const proxy = await startFaultyRpcProxy({ target: origin })

  const client = (base: string, network: string, timeoutMs = 10_000): Promise<ChainClient> => {
    const chain = findNetwork(defaultAssetRegistry, network)?.chain ?? 'TRON'
    const endpoints = simulatorEndpoints(base, network, chain, undefined)
    return chainAccess(endpoints, {
      registry: defaultAssetRegistry,
      timeoutMs,
      logger: testLogger,
    }).chainClient()
  }

  return {
    proxy,
    clientThroughProxy: (network, options = {}) => client(proxy.url, network, options.timeoutMs),
    directClient: (network) => client(origin, network),
    close: () => proxy.close(),
  }
}

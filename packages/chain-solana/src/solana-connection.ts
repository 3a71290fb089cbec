// The @solana/web3.js Connection an address reader reads through, for callers that do not depend on
// web3.js themselves (the chain indexer): HTTP for calls, the node's websocket for subscriptions.
import { Connection } from '@solana/web3.js'

export interface SolanaConnectionOptions {
  rpcUrl: string
  /** the node's websocket; default web3.js's guess, the RPC port + 1 */
  wsUrl?: string
  /** the fetch calls go through, e.g. one that counts them */
  fetch?: typeof fetch
}

export function createSolanaConnection(options: SolanaConnectionOptions): Connection {
  return new Connection(options.rpcUrl, {
    commitment: 'confirmed',
    // retries belong to the caller's policy, which sees the Retry-After
    disableRetryOnRateLimit: true,
    httpAgent: false,
    ...(options.wsUrl === undefined ? {} : { wsEndpoint: options.wsUrl }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  })
}

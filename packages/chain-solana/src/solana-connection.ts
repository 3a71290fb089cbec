// The @solana/web3.js Connection an address reader reads through, for callers that do not depend on
// web3.js themselves (the chain indexer): HTTP for calls, the node's websocket for subscriptions.
// Its HTTP calls can be interrupted at once (interruptSolanaCalls), for a prompt stop.
import { Connection } from '@solana/web3.js'

export interface SolanaConnectionOptions {
  rpcUrl: string
  /** the node's websocket; default web3.js's guess, the RPC port + 1 */
  wsUrl?: string
  /** the fetch calls go through, e.g. one that counts them */
  fetch?: typeof fetch
  /** sent with every HTTP call, e.g. the simulator's token */
  headers?: Record<string, string>
  /** each HTTP call is abandoned after this */
  timeoutMs?: number
}

/** where each connection made here gets the signal that abandons its HTTP calls (interruptSolanaCalls) */
const gates = new WeakMap<Connection, { controller: AbortController }>()

export function createSolanaConnection(options: SolanaConnectionOptions): Connection {
  const { timeoutMs } = options
  const base = options.fetch ?? fetch
  const gate = { controller: new AbortController() }
  const gated = ((url: string, init: RequestInit = {}) => {
    const signals = [gate.controller.signal]
    if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs))
    if (init.signal) signals.push(init.signal)
    return base(url, { ...init, signal: AbortSignal.any(signals) })
  }) as unknown as typeof fetch
  const connection = new Connection(options.rpcUrl, {
    commitment: 'confirmed',
    // retries belong to the caller's policy, which sees the Retry-After
    disableRetryOnRateLimit: true,
    httpAgent: false,
    fetch: gated,
    ...(options.wsUrl === undefined ? {} : { wsEndpoint: options.wsUrl }),
    ...(options.headers === undefined ? {} : { httpHeaders: options.headers }),
  })
  gates.set(connection, gate)
  return connection
}

/**
 * Abandons the connection's HTTP calls in flight, and those made until the function it returns is
 * called: they fail at once (an AbortError) instead of waiting for a node that does not answer, up
 * to the timeout. For a stop (docs/chains.md, "Solana by address"). A connection not made by
 * createSolanaConnection is left alone.
 */
export function interruptSolanaCalls(connection: Connection): () => void {
  const gate = gates.get(connection)
  if (gate === undefined) return () => {}
  gate.controller.abort(new Error('Solana calls interrupted: the watcher stops'))
  return () => {
    if (gate.controller.signal.aborted) gate.controller = new AbortController()
  }
}

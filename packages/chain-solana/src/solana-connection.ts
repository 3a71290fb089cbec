// The @solana/web3.js Connection every Solana client of chainpay reads through: HTTP for calls,
// failing over between the network's endpoints (solana-failover-fetch.ts), and the node's websocket
// for subscriptions, watched for a peer gone silent (solana-websocket-watchdog.ts). Its HTTP calls
// can be interrupted at once (interruptSolanaCalls), for a prompt stop.
import type { FailoverLogger } from '@chainpay/rpc-failover'
import { Connection } from '@solana/web3.js'
import { type SolanaRpcEndpoint, solanaFailoverFetch } from './solana-failover-fetch.js'
import { defaultWebsocketUrl, startSolanaWebsocketWatchdog } from './solana-websocket-watchdog.js'

export interface SolanaConnectionOptions {
  /** the node's JSON-RPC URL; may embed a provider's API key, which is never logged or echoed */
  rpcUrl: string
  /** the node's websocket; default web3.js's guess, the RPC URL's port + 1 where it names one */
  wsUrl?: string | undefined
  /**
   * more endpoints of the same network, asked in this order when the ones before fail, rate limit or
   * are behind (docs/chains.md, "Several endpoints per network")
   */
  fallbacks?: readonly SolanaRpcEndpoint[] | undefined
  /** for messages and log lines; default `Solana` */
  network?: string | undefined
  /** the fetch calls go through, e.g. one that counts them */
  fetch?: typeof fetch | undefined
  /** sent with every HTTP call, e.g. the simulator's token */
  headers?: Record<string, string> | undefined
  /** each HTTP call to one endpoint is abandoned after this; default 10 s */
  timeoutMs?: number | undefined
  /** how often the websocket is pinged (a silent one is replaced within two intervals); default 10 s */
  pingIntervalMs?: number | undefined
  /** where an endpoint that keeps failing or falls behind is reported */
  logger?: FailoverLogger | undefined
}

const DEFAULT_TIMEOUT_MS = 10_000

/** where each connection made here gets the signal that abandons its HTTP calls (interruptSolanaCalls) */
const gates = new WeakMap<Connection, { controller: AbortController }>()

export function createSolanaConnection(options: SolanaConnectionOptions): Connection {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new Error(`Solana connection: timeoutMs must be a positive integer, got ${timeoutMs}`)
  }
  const endpoints = [{ rpcUrl: options.rpcUrl, wsUrl: options.wsUrl }, ...(options.fallbacks ?? [])]
  const failover = solanaFailoverFetch(endpoints, {
    network: options.network ?? 'Solana',
    timeoutMs,
    fetch: options.fetch,
    logger: options.logger,
  })
  const gate = { controller: new AbortController() }
  const gated = ((url: string, init: RequestInit = {}) => {
    const signals = [gate.controller.signal, ...(init.signal ? [init.signal] : [])]
    return failover(url, { ...init, signal: AbortSignal.any(signals) })
  }) as unknown as typeof fetch
  const wsUrls = endpoints.map((endpoint) => endpoint.wsUrl ?? defaultWebsocketUrl(endpoint.rpcUrl))
  const connection = new Connection(options.rpcUrl, {
    commitment: 'confirmed',
    // retries belong to the caller's policy, which sees the Retry-After
    disableRetryOnRateLimit: true,
    httpAgent: false,
    fetch: gated,
    wsEndpoint: wsUrls[0],
    ...(options.headers === undefined ? {} : { httpHeaders: options.headers }),
  })
  startSolanaWebsocketWatchdog(connection, { wsUrls, pingIntervalMs: options.pingIntervalMs })
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

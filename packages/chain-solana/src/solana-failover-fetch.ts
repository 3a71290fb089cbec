// The fetch a web3.js Connection made here sends every JSON-RPC call through: to the network's
// endpoints in the operator's order, on to the next one when a node fails, rate limits or is behind
// (@chainpay/rpc-failover decides; docs/chains.md, "Several endpoints per network"). What an answer
// means is read here: HTTP failures become ChainRpcErrors (web3.js would keep only the status text,
// and lose a 429's Retry-After), -32005 (node behind or unhealthy) says the node is behind, and so
// does -32016 (minimum context slot not reached) when the node's slot is more than the tolerance
// below the one asked for (a few slots short: this call only goes elsewhere), and getSlot's answer is
// the node's head, compared with the other endpoints' (getSlot asks them too, once a minute).
import { ChainRpcError } from '@chainpay/ports'
import {
  createRpcEndpointPool,
  type EndpointAnswer,
  endpointOrigin,
  type FailoverLogger,
} from '@chainpay/rpc-failover'
import { RATE_LIMITED_CODES, redactorFor, retryAfterMs } from './solana-rpc-errors.js'

export interface SolanaRpcEndpoint {
  /** the node's JSON-RPC URL; may embed a provider's API key, never logged or echoed */
  rpcUrl: string
  /** its websocket; default web3.js's guess from the RPC URL (solana-websocket-watchdog.ts) */
  wsUrl?: string | undefined
}

export interface SolanaFailoverFetchOptions {
  /** for messages and log lines */
  network: string
  /** each HTTP call to one endpoint is abandoned after this */
  timeoutMs: number
  /** the fetch each call goes through, e.g. one that counts them */
  fetch?: typeof fetch | undefined
  logger?: FailoverLogger | undefined
}

/** a slot is 400 ms: 10 are 4 s, more than two endpoints of one provider usually differ by */
export const SOLANA_LAG_TOLERANCE_SLOTS = 10
const NODE_BEHIND = -32005
const MIN_CONTEXT_SLOT_NOT_REACHED = -32016

interface Endpoint extends SolanaRpcEndpoint {
  origin: string
  redact: (text: string) => string
}

export function solanaFailoverFetch(
  endpoints: readonly SolanaRpcEndpoint[],
  options: SolanaFailoverFetchOptions,
): typeof fetch {
  const { timeoutMs } = options
  const base = options.fetch ?? fetch
  const pool = createRpcEndpointPool(
    endpoints.map((endpoint) => ({
      ...endpoint,
      origin: endpointOrigin(endpoint.rpcUrl),
      redact: redactorFor(endpoint.rpcUrl),
    })),
    { network: options.network, lagToleranceHeights: SOLANA_LAG_TOLERANCE_SLOTS, logger: options.logger },
  )

  async function attempt(
    endpoint: Endpoint,
    init: RequestInit,
    headCall: boolean,
  ): Promise<EndpointAnswer<Response>> {
    const signals = [AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]
    let response: Response
    let body: string
    try {
      response = await base(endpoint.rpcUrl, { ...init, signal: AbortSignal.any(signals) })
      body = await response.text()
    } catch (error) {
      // the caller interrupted its calls (interruptSolanaCalls): not the endpoint's failure
      if (init.signal?.aborted) throw error
      if (error instanceof Error && error.name === 'TimeoutError') {
        throw new ChainRpcError('timeout', `no answer within ${timeoutMs} ms`, { cause: error })
      }
      throw new ChainRpcError('unavailable', endpoint.redact(`no answer: ${networkFailure(error)}`), {
        cause: error,
      })
    }
    if (response.status === 429) {
      throw new ChainRpcError('rate-limited', 'HTTP 429 Too Many Requests', {
        retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
      })
    }
    if (!response.ok) {
      const failure = response.status >= 500 ? 'unavailable' : 'bad-response'
      throw new ChainRpcError(failure, endpoint.redact(`HTTP ${response.status}: ${excerpt(body)}`))
    }
    // read only where it can say something: a head call's, or one that holds an error
    const answer = headCall || body.includes('"error"') ? parsed(body) : undefined
    const code = typeof answer?.error?.code === 'number' ? answer.error.code : undefined
    if (code !== undefined && RATE_LIMITED_CODES.has(code)) {
      throw new ChainRpcError(
        'rate-limited',
        `node error ${code}: ${endpoint.redact(String(answer?.error?.message))}`,
      )
    }
    const short = code === MIN_CONTEXT_SLOT_NOT_REACHED ? slotsShort(init.body, answer?.error?.data) : 0
    return {
      // the body is read already (and decoded): only its type still describes it
      value: new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' },
      }),
      behind: code === NODE_BEHIND || short > SOLANA_LAG_TOLERANCE_SLOTS,
      stale: short > 0,
      head: headCall && typeof answer?.result === 'number' ? answer.result : undefined,
    }
  }

  // web3.js hands an error its fetch throws to its caller as it is: a ChainRpcError keeps its Retry-After
  return ((_url: string, init: RequestInit = {}) => {
    // one JSON-RPC call as a JSON string (a batch is an array: never a head call)
    const headCall = typeof init.body === 'string' && parsed(init.body)?.method === 'getSlot'
    return pool.call((endpoint) => attempt(endpoint, init, headCall), { probe: headCall })
  }) as unknown as typeof fetch
}

/** a JSON-RPC call or answer: what is read of it */
interface JsonRpcAnswer {
  method?: unknown
  params?: unknown
  result?: unknown
  error?: { code?: unknown; message?: unknown; data?: unknown }
}

/**
 * how far the node's context slot (-32016's data) is below the minContextSlot the call asked for;
 * 1 when either is unknown: short, by how much is not said
 */
function slotsShort(body: unknown, data: unknown): number {
  const params = typeof body === 'string' ? parsed(body)?.params : undefined
  const config = Array.isArray(params) ? params.at(-1) : undefined
  const asked = (config as { minContextSlot?: unknown } | undefined)?.minContextSlot
  const slot = (data as { contextSlot?: unknown } | undefined)?.contextSlot
  return typeof asked === 'number' && typeof slot === 'number' ? Math.max(1, asked - slot) : 1
}

function parsed(text: string): JsonRpcAnswer | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

function networkFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const { cause } = error
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message
}

function excerpt(body: string): string {
  const text = body.replace(/\s+/g, ' ').trim()
  return text.length > 200 ? `${text.slice(0, 200)}...` : text || '(empty body)'
}

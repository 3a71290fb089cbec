// Several RPC endpoints of one network, used as one (docs/chains.md, "Several endpoints per
// network"). A call goes to the first endpoint in the operator's order that may be asked, and on to
// the next one when it fails (refused, reset, 5xx, no answer in time), is rate limited (a 429: the
// endpoint rests for its Retry-After) or answers from behind the chain: it says so (Solana -32005,
// -32016 for a slot well past its own), or its head is more than a few blocks below another endpoint's. Heads are compared in
// rounds: a head call (Solana getSlot, TRON getnowblock) asks the other endpoints too, at most once a
// minute each, and the answers of one round are of the same moment. An endpoint behind the others
// is asked only when none of them answers, until a later round finds it caught up. An endpoint that
// keeps failing has its circuit opened (one cockatiel breaker per endpoint) and is skipped until a
// trial call.
//
// The chain adapters say what an answer means (chain-solana's fetch, chain-tron's providers); this
// decides where a call goes. Nothing here waits: when no endpoint answers, the call fails (with the
// soonest Retry-After when they are all rate limited) and the caller's own policy decides when to
// try again (withRpcResilience, the address watcher's loop), as with one endpoint.
import { ChainRpcError, type ChainRpcFailure, isChainRpcError } from '@chainpay/ports'
import {
  BrokenCircuitError,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
} from 'cockatiel'

export interface RpcEndpoint {
  /** scheme and host: all that messages and logs may name of an endpoint (its URL may hold a key) */
  origin: string
}

/** what an endpoint answered, as its adapter reads it */
export interface EndpointAnswer<T> {
  value: T
  /** a head call's answer: the chain's height at the endpoint, compared with the other endpoints' */
  head?: number | undefined
  /** the endpoint says it is behind the chain (Solana -32005, or -32016 far below the caller's slot) */
  behind?: boolean | undefined
  /**
   * not as recent as the caller asked (Solana -32016 a few slots short): another endpoint is asked,
   * and this answer kept in case none answers
   */
  stale?: boolean | undefined
}

/** the part of a pino logger the pool writes to */
export interface FailoverLogger {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
}

export interface RpcEndpointPoolOptions {
  /** for messages and log lines */
  network: string
  /** how many heights an endpoint may trail another's answer of the same moment before it is behind */
  lagToleranceHeights: number
  logger?: FailoverLogger | undefined
  breaker?: {
    /** failed calls in a row before an endpoint's circuit opens; default 3 */
    consecutiveFailures?: number
    /** how long it stays open before one trial call; default 30 s */
    halfOpenAfterMs?: number
  }
  /**
   * how often a head call also asks the other endpoints for their head, to compare (one more call
   * per endpoint at most this often, never without a head call); default 60 s. An endpoint found
   * behind is passed over as long, until the next round.
   */
  headProbeIntervalMs?: number
}

export interface RpcEndpointPool<E extends RpcEndpoint> {
  /**
   * `attempt` on the first endpoint that may be asked, then on the next ones until one answers;
   * `probe` for a head call (the chain's tip): the other endpoints are asked too, now and then
   */
  call<T>(attempt: (endpoint: E) => Promise<EndpointAnswer<T>>, options?: { probe?: boolean }): Promise<T>
}

/** a 429 without Retry-After: how long the endpoint rests */
const DEFAULT_RATE_LIMIT_REST_MS = 1000

interface EndpointState<E> {
  endpoint: E
  /** with one endpoint there is no other to go to: the caller's policy is its breaker */
  breaker: CircuitBreakerPolicy | undefined
  rateLimitedUntil: number
  behindUntil: number
  lastProbeAt: number
}

/** the heads one head call and its probes found, by endpoint: answers of the same moment */
type Round<E> = Map<EndpointState<E>, number>

interface Miss<E> {
  state: EndpointState<E>
  error: ChainRpcError
}

export function createRpcEndpointPool<E extends RpcEndpoint>(
  endpoints: readonly E[],
  options: RpcEndpointPoolOptions,
): RpcEndpointPool<E> {
  if (endpoints.length === 0) throw new RangeError(`${options.network}: no RPC endpoint`)
  const { network, lagToleranceHeights, logger } = options
  const probeIntervalMs = options.headProbeIntervalMs ?? 60_000
  const states: EndpointState<E>[] = endpoints.map((endpoint) => ({
    endpoint,
    breaker: endpoints.length > 1 ? breakerFor(endpoint) : undefined,
    rateLimitedUntil: 0,
    behindUntil: 0,
    lastProbeAt: Number.NEGATIVE_INFINITY,
  }))

  function breakerFor(endpoint: E): CircuitBreakerPolicy {
    const breaker = circuitBreaker(
      // a rate limit is an answer: the endpoint rests instead
      handleWhen((error) => isChainRpcError(error) && error.failure !== 'rate-limited'),
      {
        halfOpenAfter: options.breaker?.halfOpenAfterMs ?? 30_000,
        breaker: new ConsecutiveBreaker(options.breaker?.consecutiveFailures ?? 3),
      },
    )
    const fields = { network, endpoint: endpoint.origin }
    breaker.onBreak(() => logger?.warn(fields, 'RPC endpoint keeps failing: calls go to the other endpoints'))
    breaker.onReset(() => logger?.info(fields, 'RPC endpoint answers again'))
    return breaker
  }

  async function ask<T>(
    state: EndpointState<E>,
    attempt: (endpoint: E) => Promise<EndpointAnswer<T>>,
  ): Promise<EndpointAnswer<T>> {
    const { breaker } = state
    if (breaker === undefined) return attempt(state.endpoint)
    // its trial call is under way: cockatiel would hold this call until that one ends
    if (breaker.state === CircuitState.HalfOpen) throw circuitOpen()
    try {
      return await breaker.execute(() => attempt(state.endpoint))
    } catch (error) {
      if (error instanceof BrokenCircuitError) throw circuitOpen()
      throw error
    }
  }

  /**
   * records a head of the round and judges every endpoint that answered in it: behind when another
   * is more than the tolerance ahead, caught up (asked first again) otherwise
   */
  function judge(round: Round<E>, state: EndpointState<E>, height: number): void {
    round.set(state, height)
    if (round.size < 2) return
    const best = Math.max(...round.values())
    for (const [member, head] of round) {
      if (best - head > lagToleranceHeights) {
        markBehind(member, `${best - head} behind the head another endpoint answered`)
      } else if (member.behindUntil > Date.now()) {
        member.behindUntil = 0
        logger?.info(
          { network, endpoint: member.endpoint.origin },
          'RPC endpoint caught up: asked first again',
        )
      }
    }
  }

  /** with one endpoint there is none to prefer: it stays the one asked */
  function markBehind(state: EndpointState<E>, why: string): void {
    if (states.length === 1) return
    const now = Date.now()
    if (state.behindUntil <= now) {
      logger?.warn(
        { network, endpoint: state.endpoint.origin, why },
        'RPC endpoint is behind the chain: asked only when no other endpoint answers',
      )
    }
    state.behindUntil = now + probeIntervalMs
  }

  /** a round of the head call to `asked`, with the other endpoints due for a probe asked the same */
  function probeRound<T>(
    asked: EndpointState<E>,
    attempt: (endpoint: E) => Promise<EndpointAnswer<T>>,
  ): Round<E> | undefined {
    const now = Date.now()
    const due = states.filter(
      (state) =>
        state !== asked && now - state.lastProbeAt >= probeIntervalMs && state.rateLimitedUntil <= now,
    )
    if (due.length === 0) return undefined
    const round: Round<E> = new Map()
    for (const state of [asked, ...due]) state.lastProbeAt = now
    for (const state of due) {
      ask(state, attempt).then(
        (answer) => answer.head !== undefined && judge(round, state, answer.head),
        // its failure counted towards its breaker; the call itself went elsewhere
        () => {},
      )
    }
    return round
  }

  async function call<T>(
    attempt: (endpoint: E) => Promise<EndpointAnswer<T>>,
    callOptions: { probe?: boolean } = {},
  ): Promise<T> {
    const now = Date.now()
    const asking = states.filter((state) => state.rateLimitedUntil <= now)
    // those behind the others last, and only while no answer at all came
    const ordered = [
      ...asking.filter((state) => state.behindUntil <= now),
      ...asking.filter((state) => state.behindUntil > now),
    ]
    const misses: Miss<E>[] = []
    let fallback: EndpointAnswer<T> | undefined
    let round: Round<E> | undefined
    for (const [position, state] of ordered.entries()) {
      if (fallback !== undefined && state.behindUntil > now) break
      if (position === 0 && callOptions.probe) round = probeRound(state, attempt)
      let answer: EndpointAnswer<T>
      try {
        answer = await ask(state, attempt)
      } catch (error) {
        // an interrupted call (the caller stops), or a bug: not the endpoint's failure
        if (!isChainRpcError(error)) throw error
        if (error.failure === 'rate-limited') {
          state.rateLimitedUntil = Date.now() + (error.retryAfterMs ?? DEFAULT_RATE_LIMIT_REST_MS)
        }
        misses.push({ state, error })
        continue
      }
      if (round !== undefined && answer.head !== undefined) judge(round, state, answer.head)
      if (answer.behind) markBehind(state, 'the node says it is behind')
      if (answer.stale || state.behindUntil > Date.now()) {
        fallback ??= answer
        continue
      }
      return answer.value
    }
    if (fallback !== undefined) return fallback.value
    throw noEndpointAnswered(misses)
  }

  return { call }

  function noEndpointAnswered(misses: Miss<E>[]): ChainRpcError {
    const now = Date.now()
    const resting = states.filter((state) => state.rateLimitedUntil > now)
    const [only] = misses
    // one endpoint: its own error, as the caller would have had it without a pool
    if (states.length === 1 && only !== undefined) return only.error
    const all = [
      ...misses,
      ...resting
        .filter((state) => !misses.some((miss) => miss.state === state))
        .map((state) => {
          const retryAfterMs = state.rateLimitedUntil - now
          const error = new ChainRpcError(
            'rate-limited',
            `rate limited, not calling for ${retryAfterMs} ms`,
            {
              retryAfterMs,
            },
          )
          return { state, error }
        }),
    ]
    // one kind of failure is that kind (all rate limited: the soonest Retry-After); a mix is 'unavailable'
    const failures = new Set(all.map((miss) => miss.error.failure))
    const failure: ChainRpcFailure = (failures.size === 1 && [...failures][0]) || 'unavailable'
    const retryAfterMs =
      failure === 'rate-limited' ? Math.min(...all.map((miss) => miss.error.retryAfterMs ?? 0)) : undefined
    const what = all.map(({ state, error }) =>
      states.length > 1 ? `${state.endpoint.origin}: ${error.message}` : error.message,
    )
    return new ChainRpcError(failure, `${network}: no RPC endpoint answered: ${what.join('; ')}`, {
      retryAfterMs,
      cause: all.at(-1)?.error,
    })
  }
}

function circuitOpen(): ChainRpcError {
  return new ChainRpcError('unavailable', 'circuit open after repeated failures')
}

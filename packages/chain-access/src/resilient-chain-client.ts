// A chain client that rides out a flaky RPC endpoint: transient failures (timeouts, 429, 5xx, resets)
// are retried with jittered exponential backoff, a rate limit's Retry-After is the least it waits, and
// a circuit breaker stops calling an endpoint that keeps failing. The policies are cockatiel's.
//
// How this sits under the indexer's own retry: the work loop (createWorkLoop in indexer.ts) already
// reruns a failed iteration after min(10 s, poll interval * 2^failures). The retries here are per call
// and bounded (by default 4 attempts, with waits of a few seconds at most between them), so that one
// dropped request or one 429 does not cost a whole iteration and its error log line, while a longer
// outage still surfaces soon as a failed iteration. Once calls keep failing after their retries, the breaker opens: the iterations the
// loop keeps running then fail at once without touching the endpoint, until one trial call after
// `halfOpenAfterMs` finds it answering again. A rate limit that asks for a longer wait than
// `maxBackoffMs` is not waited out inside a call either: calls fail fast until it has passed.

import type { Logger } from '@chainpay/platform'
import {
  type ChainBlock,
  type ChainClient,
  type ChainHead,
  ChainRpcError,
  type ChainRpcFailure,
  isChainRpcError,
} from '@chainpay/ports'
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleWhen,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
  retry,
  TaskCancelledError,
  TimeoutStrategy,
  timeout,
} from 'cockatiel'

export type CircuitBreakerState = 'closed' | 'open' | 'half-open'

/** a failed attempt that is tried again after `delayMs` */
export interface RpcRetry {
  method: 'getHead' | 'getBlocks' | 'finalInclusion' | 'firstAvailableHeight'
  failure: ChainRpcFailure
  /** the attempt that failed, from 1 */
  attempt: number
  delayMs: number
}

export interface ResilientChainClientOptions {
  logger: Logger
  /** for the log lines; default the client's network */
  network?: string
  /** attempts per call, the first included; default 4 */
  maxAttempts?: number
  /** the scale of the first backoff (jittered); default 250 ms */
  initialBackoffMs?: number
  /** longest wait between attempts; a longer Retry-After ends the call instead; default 10 s */
  maxBackoffMs?: number
  /**
   * a backstop for one attempt that a client library lets hang: it fails as a 'timeout' (the
   * request itself is left to the library's own HTTP timeout); default 60 s
   */
  attemptTimeoutMs?: number
  breaker?: {
    /** calls in a row that failed after their retries before the circuit opens; default 5 */
    consecutiveFailures?: number
    /** how long the circuit stays open before one trial call; default 30 s */
    halfOpenAfterMs?: number
  }
  onStateChange?(state: CircuitBreakerState): void
  onRetry?(retry: RpcRetry): void
}

export interface ResilientChainClient extends ChainClient {
  /** the circuit breaker's state, for readiness and metrics */
  state(): CircuitBreakerState
}

export function withRpcResilience(
  client: ChainClient,
  options: ResilientChainClientOptions,
): ResilientChainClient {
  const network = options.network ?? client.network
  const logger = options.logger.child({ module: 'chain-rpc', network })
  const maxAttempts = positiveInteger('maxAttempts', options.maxAttempts ?? 4)
  const initialBackoffMs = positiveInteger('initialBackoffMs', options.initialBackoffMs ?? 250)
  const maxBackoffMs = positiveInteger('maxBackoffMs', options.maxBackoffMs ?? 10_000)
  const attemptTimeoutMs = positiveInteger('attemptTimeoutMs', options.attemptTimeoutMs ?? 60_000)
  const consecutiveFailures = positiveInteger(
    'breaker.consecutiveFailures',
    options.breaker?.consecutiveFailures ?? 5,
  )
  const halfOpenAfterMs = positiveInteger(
    'breaker.halfOpenAfterMs',
    options.breaker?.halfOpenAfterMs ?? 30_000,
  )

  const isTransient = (error: unknown) => isChainRpcError(error) && error.transient
  // a Retry-After longer than any wait here is honoured by failing fast (rateLimitedUntil) instead
  const isRetryable = (error: unknown) =>
    isTransient(error) && ((error as ChainRpcError).retryAfterMs ?? 0) <= maxBackoffMs

  const attemptTimeout = timeout(attemptTimeoutMs, TimeoutStrategy.Aggressive)
  const backoff = honouringRetryAfter(
    new ExponentialBackoff({ initialDelay: initialBackoffMs, maxDelay: maxBackoffMs }),
  )
  // bad-response is an answer, so it neither opens the circuit nor keeps it open
  const breaker = circuitBreaker(handleWhen(isTransient), {
    halfOpenAfter: halfOpenAfterMs,
    breaker: new ConsecutiveBreaker(consecutiveFailures),
  })

  breaker.onBreak((reason) => {
    const error = 'error' in reason ? reason.error : undefined
    logger.warn(
      { failure: isChainRpcError(error) ? error.failure : undefined, halfOpenAfterMs },
      'chain RPC circuit opened: calls fail fast until a trial call succeeds',
    )
  })
  breaker.onHalfOpen(() => logger.info('chain RPC circuit half-open: trying one call'))
  breaker.onReset(() => logger.info('chain RPC circuit closed: the endpoint answers again'))
  breaker.onStateChange((state) => options.onStateChange?.(stateName(state)))

  /** epoch ms before which a rate limit asked not to call again */
  let rateLimitedUntil = 0

  async function call<T>(method: RpcRetry['method'], attempt: () => Promise<T>): Promise<T> {
    const waitMs = rateLimitedUntil - Date.now()
    if (waitMs > 0) {
      throw new ChainRpcError('rate-limited', `${network} RPC: rate limited, not calling for ${waitMs} ms`, {
        retryAfterMs: waitMs,
      })
    }
    // A policy per call, so that its retries are reported with the method they belong to; cockatiel's
    // maxAttempts counts the retries after the first attempt.
    const retryPolicy = retry(handleWhen(isRetryable), { maxAttempts: maxAttempts - 1, backoff })
    retryPolicy.onRetry((event) => {
      const error = 'error' in event ? event.error : undefined
      if (!isChainRpcError(error)) return
      const retried = { method, failure: error.failure, attempt: event.attempt, delayMs: event.delay }
      logger.debug(retried, 'chain RPC call failed; retrying')
      options.onRetry?.(retried)
    })
    try {
      return await breaker.execute(() => retryPolicy.execute(() => withAttemptTimeout(method, attempt)))
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw new ChainRpcError('unavailable', `${network} RPC: circuit open after repeated failures`, {
          cause: error,
        })
      }
      if (isChainRpcError(error) && error.retryAfterMs !== undefined && error.retryAfterMs > maxBackoffMs) {
        rateLimitedUntil = Math.max(rateLimitedUntil, Date.now() + error.retryAfterMs)
        logger.warn({ retryAfterMs: error.retryAfterMs }, 'chain RPC rate limited; pausing calls')
      }
      throw error
    }
  }

  async function withAttemptTimeout<T>(method: string, attempt: () => Promise<T>): Promise<T> {
    try {
      return await attemptTimeout.execute(() => attempt())
    } catch (error) {
      if (error instanceof TaskCancelledError) {
        throw new ChainRpcError('timeout', `${network} RPC: ${method} took over ${attemptTimeoutMs} ms`, {
          cause: error,
        })
      }
      throw error
    }
  }

  return {
    network: client.network,
    getHead: (): Promise<ChainHead> => call('getHead', () => client.getHead()),
    getBlocks: (fromHeight, toHeight): Promise<ChainBlock[]> =>
      call('getBlocks', () => client.getBlocks(fromHeight, toHeight)),
    ...(client.finalInclusion === undefined
      ? {}
      : {
          finalInclusion: (txHash: string) =>
            call('finalInclusion', () => client.finalInclusion?.(txHash) ?? Promise.resolve(undefined)),
        }),
    ...(client.firstAvailableHeight === undefined
      ? {}
      : {
          firstAvailableHeight: () =>
            call('firstAvailableHeight', () => client.firstAvailableHeight?.() ?? Promise.resolve(0)),
        }),
    state: () => stateName(breaker.state),
  }
}

type RetryBackoffContext = IRetryBackoffContext<unknown>

/** the backoff's waits, but never shorter than the Retry-After of the failure being retried */
function honouringRetryAfter(
  factory: IBackoffFactory<RetryBackoffContext>,
): IBackoffFactory<RetryBackoffContext> {
  const step = (
    inner: IBackoff<RetryBackoffContext>,
    context: RetryBackoffContext,
  ): IBackoff<RetryBackoffContext> => {
    const error = 'error' in context.result ? context.result.error : undefined
    const retryAfterMs = isChainRpcError(error) ? (error.retryAfterMs ?? 0) : 0
    return {
      duration: Math.max(inner.duration, retryAfterMs),
      next: (next) => step(inner.next(next), next),
    }
  }
  return { next: (context) => step(factory.next(context), context) }
}

function stateName(state: CircuitState): CircuitBreakerState {
  switch (state) {
    case CircuitState.Closed:
      return 'closed'
    case CircuitState.HalfOpen:
      return 'half-open'
    default:
      // Isolated is an open circuit held by hand; nothing here isolates it
      return 'open'
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`chain RPC resilience: ${name} must be a positive integer, got ${value}`)
  }
  return value
}

// How a bus subscription paces the retries of a message whose handler fails, and how often it says
// so: a store that is down for an hour must neither lose the message nor fill the log. Part of the
// port, so that every bus adapter (SQLite, Kafka) paces alike.

import type { SubscribeOptions } from './bus.js'

export interface RetryPolicy {
  /** Infinity unless the subscriber asked to dead-letter after a number of attempts */
  maxAttempts: number
  retryDelayMs: number
  maxRetryDelayMs: number
}

const defaultRetryDelayMs = 200
const defaultMaxRetryDelayMs = 30_000
/** how often a message that keeps failing is logged, once the doubling log interval exceeds it */
export const failureLogIntervalMs = 60_000

/** the subscriber's retry options with their defaults; throws RangeError on a meaningless one */
export function retryPolicyOf(
  options: Pick<SubscribeOptions, 'maxAttempts' | 'retryDelayMs' | 'maxRetryDelayMs'>,
): RetryPolicy {
  const { maxAttempts = Number.POSITIVE_INFINITY } = options
  if (maxAttempts !== Number.POSITIVE_INFINITY && !(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError(`bus subscription: maxAttempts must be a positive integer, got ${maxAttempts}`)
  }
  return {
    maxAttempts,
    retryDelayMs: delayOption('retryDelayMs', options.retryDelayMs ?? defaultRetryDelayMs),
    maxRetryDelayMs: delayOption('maxRetryDelayMs', options.maxRetryDelayMs ?? defaultMaxRetryDelayMs),
  }
}

/** the wait after the `attempt`th failure: the first delay, doubled per failure, capped */
export function retryDelayAfter(attempt: number, policy: RetryPolicy): number {
  // beyond 2^30 the doubling could only overflow: the cap was reached long before
  const doublings = Math.min(attempt - 1, 30)
  return Math.min(policy.retryDelayMs * 2 ** doublings, policy.maxRetryDelayMs)
}

/**
 * Whether the `attempt`th failure of one message is worth a log line: attempts 1, 2, 4, 8... so
 * that a short hiccup shows in full, and at least once a minute however long an outage lasts.
 */
export function shouldLogFailure(attempt: number, msSinceLastLog: number): boolean {
  return Number.isInteger(Math.log2(attempt)) || msSinceLastLog >= failureLogIntervalMs
}

function delayOption(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`bus subscription: ${name} must be a finite number of milliseconds, got ${value}`)
  }
  return value
}

/** resolves after `ms`, or as soon as any of `signals` aborts; never holds the process open */
export function pauseUnlessAborted(ms: number, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) {
      resolve()
      return
    }
    const done = () => {
      clearTimeout(timer)
      for (const signal of signals) signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    timer.unref()
    for (const signal of signals) signal.addEventListener('abort', done, { once: true })
  })
}

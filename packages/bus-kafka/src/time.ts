// Waiting, bounded: a broker that is gone must not hold a stop, a close or a scrape forever.

/** rejects with "`what` did not finish within `ms` ms" if `promise` has not settled by then */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms)
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** resolves after `ms`, or as soon as any of `signals` aborts; never holds the process open */
export function pause(ms: number, signals: AbortSignal[]): Promise<void> {
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

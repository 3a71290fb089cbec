// The loop behind the services that poll or are woken (the event relay, the chain indexers, the
// webhook dispatcher): run an iteration, rest until woken or the poll interval has passed, rest longer
// after each failure in a row. stop() waits for the iteration in progress, so nothing is cut off
// halfway. A loop that is woken by new work keeps a long poll interval as its safety net, and its
// failures can still be retried soon (failureBackoffMs).

/**
 * 'more': run the next iteration at once; 'idle': rest for the poll interval first; { restMs }: rest
 * that long (at most the poll interval), for work that is due later (a checkpoint kept back)
 */
export type WorkLoopOutcome = 'more' | 'idle' | { restMs: number }

export interface WorkLoopOptions {
  iterate(): Promise<WorkLoopOutcome>
  pollIntervalMs: number
  /** after n failures in a row the loop rests min(maxBackoffMs, failureBackoffMs * 2^n) */
  maxBackoffMs: number
  /** the base of the backoff after failures; default pollIntervalMs */
  failureBackoffMs?: number
  /** told of every failed iteration before the loop rests; for logging */
  onFailure(error: unknown, retry: { failures: number; retryInMs: number }): void
}

export interface WorkLoop {
  /** starts the loop unless it is running */
  start(): void
  /** ends the rest at once; a wake during an iteration skips the rest after it */
  wake(): void
  /** lets the iteration in progress finish, and resolves once the loop has ended */
  stop(): Promise<void>
  isRunning(): boolean
  /**
   * For readiness: why the running loop is not doing its work (its latest iteration failed, until
   * one succeeds); undefined when it is, or is not running. No error text: the failures are logged
   * through onFailure as they happen, and an error may name an endpoint.
   */
  notReadyReason(): string | undefined
}

export function createWorkLoop(options: WorkLoopOptions): WorkLoop {
  const { iterate, pollIntervalMs, maxBackoffMs, onFailure } = options
  const failureBackoffMs = options.failureBackoffMs ?? pollIntervalMs
  let running: Promise<void> | undefined
  let stopping = false
  // a wake that comes while an iteration runs is remembered, so that the rest after it is skipped
  let woken = false
  let endRest: (() => void) | undefined
  /** failed iterations in a row, the latest included; 0 after one that succeeded */
  let failuresInARow = 0

  const rest = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping || woken) return resolve()
      const timer = setTimeout(done, ms)
      timer.unref()
      endRest = done
      function done() {
        clearTimeout(timer)
        endRest = undefined
        resolve()
      }
    })

  async function loop(): Promise<void> {
    failuresInARow = 0
    while (!stopping) {
      woken = false
      try {
        const outcome = await iterate()
        failuresInARow = 0
        if (outcome === 'idle') await rest(pollIntervalMs)
        else if (outcome !== 'more') await rest(Math.min(pollIntervalMs, Math.max(0, outcome.restMs)))
      } catch (error) {
        failuresInARow += 1
        const failures = failuresInARow
        const retryInMs = Math.min(maxBackoffMs, failureBackoffMs * 2 ** Math.min(failures, 20))
        onFailure(error, { failures, retryInMs })
        await rest(retryInMs)
      }
    }
  }

  return {
    start() {
      if (running) return
      stopping = false
      running = loop()
    },
    wake() {
      woken = true
      endRest?.()
    },
    async stop() {
      stopping = true
      endRest?.()
      await running
      running = undefined
    },
    isRunning: () => running !== undefined,
    notReadyReason() {
      if (running === undefined || stopping) return undefined
      if (failuresInARow > 0) return `its latest ${failuresInARow} iteration(s) in a row failed`
      return undefined
    },
  }
}

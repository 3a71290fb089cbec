// Readiness of a service (its /readyz, docs/operations.md "Health"): what it depends on answers, and
// each of its workers does its work. A worker that does not is named in the rejection, which /readyz
// logs; the probe itself only gets 503.

/** a worker of a service that can tell why it is not doing its work (a work loop whose iterations fail) */
export interface ReadinessReporter {
  name?: string
  /** undefined when it does its work */
  notReadyReason(): string | undefined
}

/**
 * `dependencies` (its stores, the bus...) first: their answer when they do not answer (their
 * rejection names why, where they can tell). Then `workers`: a rejection naming every one that does
 * not do its work, which follows from no failing dependency.
 */
export function readinessOf(
  dependencies: () => Promise<boolean>,
  workers: readonly ReadinessReporter[],
): () => Promise<boolean> {
  return async () => {
    if (!(await dependencies())) return false
    const notReady = workers.flatMap((worker, index) => {
      const reason = worker.notReadyReason()
      return reason === undefined ? [] : [`${worker.name ?? `worker ${index + 1}`}: ${reason}`]
    })
    if (notReady.length > 0) throw new Error(`not ready: ${notReady.join('; ')}`)
    return true
  }
}

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
 * `dependencies` (its stores, the bus...) and then `workers`: rejects naming every worker that is not
 * ready, else resolves what `dependencies` does.
 */
export function readinessOf(
  dependencies: () => Promise<boolean>,
  workers: readonly ReadinessReporter[],
): () => Promise<boolean> {
  return async () => {
    const notReady = workers.flatMap((worker, index) => {
      const reason = worker.notReadyReason()
      return reason === undefined ? [] : [`${worker.name ?? `worker ${index + 1}`}: ${reason}`]
    })
    if (notReady.length > 0) throw new Error(`not ready: ${notReady.join('; ')}`)
    return dependencies()
  }
}

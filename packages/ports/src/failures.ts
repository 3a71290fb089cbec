// The failures the ports declare, whatever adapter stands behind them. Each adapter translates its
// driver's errors into these (translateFailures), so that no code outside an adapter knows a
// driver's error names: the HTTP foundation answers UnavailableError with 503 SERVICE_UNAVAILABLE
// and Retry-After (docs/api.md, "Errors"), and anything else stays a 500.

/**
 * What stands behind a port cannot serve right now (down, unreachable, busy, out of disk, closed):
 * the same call may succeed later. Whether the operation happened is unknown to the caller.
 */
export class UnavailableError extends Error {
  override readonly name: string = 'UnavailableError'
}

/** A store's database (SQLite file, MongoDB, EventStoreDB) cannot serve right now. */
export class StoreUnavailableError extends UnavailableError {
  override readonly name: string = 'StoreUnavailableError'
}

/** true for an UnavailableError, or an error that wraps one */
export function isUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof UnavailableError) return true
    current = current.cause
  }
  return false
}

/**
 * `port` with every method's failures passed through `translate`, which returns the error to throw
 * instead (a port failure) or the error itself. Covers methods that throw and methods whose promise
 * rejects alike; the adapter's own objects stay untouched.
 */
export function translateFailures<Port extends object>(
  port: Port,
  translate: (error: unknown) => unknown,
): Port {
  const translated = { ...port } as Record<string, unknown>
  for (const [name, member] of Object.entries(port)) {
    if (typeof member !== 'function') continue
    translated[name] = (...args: unknown[]) => {
      let result: unknown
      try {
        result = member.apply(port, args)
      } catch (error) {
        throw translate(error)
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw translate(error)
          })
        : result
    }
  }
  return translated as Port
}

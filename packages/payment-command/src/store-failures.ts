// Tells a store that is down (busy, locked, out of disk, closed) from a mistake in our own code: the
// first may succeed on a retry and is answered 503 SERVICE_UNAVAILABLE (decisions.md section 8),
// the second is a 500.

/**
 * SQLite primary result codes that say the database cannot serve right now, not that the statement
 * was wrong: BUSY, LOCKED, NOMEM, READONLY (the file or its disk became read-only), IOERR, FULL,
 * CANTOPEN, PROTOCOL. CORRUPT is left out: retrying never helps, an operator must act.
 */
const UNAVAILABLE_SQLITE_CODES: ReadonlySet<number> = new Set([5, 6, 7, 8, 10, 13, 14, 15])

/** what node:sqlite throws once its database is closed */
const CLOSED_DATABASE_MESSAGES: ReadonlySet<string> = new Set([
  'database is not open',
  'statement has been finalized',
])

/** what the MongoDB driver throws when it cannot reach the server, or loses it during an operation */
const UNAVAILABLE_MONGODB_ERRORS: ReadonlySet<string> = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
])

/** the KurrentDB client's error types (its errors' `type`) that say the server cannot serve right now */
const UNAVAILABLE_KURRENTDB_TYPES: ReadonlySet<string> = new Set([
  'unavailable',
  'deadline-exceeded',
  'timeout',
  'not-leader',
])

/** true when `error`, or an error it wraps, says that a store is unavailable */
export function isStoreUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (saysUnavailable(current as Error & { code?: unknown; errcode?: unknown; type?: unknown })) return true
    current = current.cause
  }
  return false
}

function saysUnavailable(error: Error & { code?: unknown; errcode?: unknown; type?: unknown }): boolean {
  if (UNAVAILABLE_MONGODB_ERRORS.has(error.name)) return true
  if (typeof error.type === 'string' && UNAVAILABLE_KURRENTDB_TYPES.has(error.type)) return true
  if (error.code === 'ERR_SQLITE_ERROR' && typeof error.errcode === 'number') {
    // extended result codes carry the primary code in their low byte
    return UNAVAILABLE_SQLITE_CODES.has(error.errcode & 0xff)
  }
  return error.code === 'ERR_INVALID_STATE' && CLOSED_DATABASE_MESSAGES.has(error.message)
}

// node:sqlite's errors, translated into the ports' failures (@chainpay/ports, failures.ts): a
// database that cannot serve right now becomes StoreUnavailableError, which callers answer with 503
// and retry; a mistake in a statement stays what it is, a bug that must reach the logs as a 500.

import { StoreUnavailableError } from '@chainpay/ports'

/**
 * SQLite primary result codes that say the database cannot serve right now, not that the statement
 * was wrong: BUSY, LOCKED, NOMEM, READONLY (the file or its disk became read-only), IOERR, FULL,
 * CANTOPEN, PROTOCOL. CORRUPT is left out: retrying never helps, an operator must act.
 */
const UNAVAILABLE_CODES: ReadonlySet<number> = new Set([5, 6, 7, 8, 10, 13, 14, 15])

/** what node:sqlite throws once its database is closed */
const CLOSED_DATABASE_MESSAGES: ReadonlySet<string> = new Set([
  'database is not open',
  'statement has been finalized',
])

type SqliteError = Error & { code?: unknown; errcode?: unknown }

/** the port failure `error` means, or `error` itself */
export function translateSqliteFailure(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreUnavailableError) return error
  const { code, errcode, message } = error as SqliteError
  // extended result codes carry the primary code in their low byte
  const unavailable =
    (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && UNAVAILABLE_CODES.has(errcode & 0xff)) ||
    (code === 'ERR_INVALID_STATE' && CLOSED_DATABASE_MESSAGES.has(message))
  return unavailable ? new StoreUnavailableError(`SQLite: ${message}`, { cause: error }) : error
}

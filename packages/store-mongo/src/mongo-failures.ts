// The MongoDB driver's errors, translated into the ports' failures (@chainpay/ports, failures.ts): a
// server that cannot be reached, or is lost during an operation, becomes StoreUnavailableError,
// which callers answer with 503 and retry; a query the server refused (a duplicate key, a bad
// operator) stays what it is, a bug that must reach the logs as a 500.

import { StoreUnavailableError } from '@chainpay/ports'

/** the driver's classes for a server it cannot reach, or lost during an operation */
const UNAVAILABLE_ERRORS: ReadonlySet<string> = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  // no pooled connection freed in time (database.ts's waitQueueTimeoutMS): the server is stuck
  'MongoWaitQueueTimeoutError',
  // the pool was emptied under the operation after a network error
  'MongoPoolClearedError',
])

/** the port failure `error` means, or `error` itself */
export function translateMongoFailure(error: unknown): unknown {
  if (!(error instanceof Error) || !UNAVAILABLE_ERRORS.has(error.name)) return error
  return new StoreUnavailableError(`MongoDB: ${error.message}`, { cause: error })
}

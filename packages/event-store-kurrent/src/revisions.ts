// Between the port's revisions and the client's stream states, both ways, and the client's errors
// translated into the port's failures (@chainpay/ports, failures.ts).

import { type ExpectedRevision, StoreUnavailableError, WrongExpectedRevisionError } from '@chainpay/ports'
import {
  ANY,
  type AppendStreamState,
  type CurrentStreamState,
  ErrorType,
  NO_STREAM,
} from '@kurrent/kurrentdb-client'

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'no_stream') return NO_STREAM
  if (expected === 'any') return ANY
  if (!Number.isSafeInteger(expected) || expected < 0) {
    throw new RangeError(
      `expected revision: a revision is an integer from 0 (use 'no_stream' for a new stream); got ${expected}`,
    )
  }
  return BigInt(expected)
}

/** the port's actual revision: -1 when the stream does not exist */
export function toActualRevision(state: CurrentStreamState): number {
  return state === NO_STREAM ? -1 : Number(state)
}

/**
 * The port's WrongExpectedRevisionError for the client's wrong-expected-version error; any other
 * error unchanged. Recognised by its `type`, which also holds for an error from another copy of the
 * client package, where `instanceof` would not.
 */
export function translateAppendError(error: unknown, streamId: string, expected: ExpectedRevision): unknown {
  if (!hasErrorType(error, ErrorType.WRONG_EXPECTED_VERSION)) return error
  const actualState = (error as { actualState?: CurrentStreamState }).actualState
  if (actualState === undefined) return error
  return new WrongExpectedRevisionError(streamId, expected, toActualRevision(actualState))
}

/** the client's error types that say the server cannot serve right now, not that the call was wrong */
const UNAVAILABLE_TYPES: readonly ErrorType[] = [
  ErrorType.UNAVAILABLE,
  ErrorType.DEADLINE_EXCEEDED,
  ErrorType.TIMEOUT,
  ErrorType.NOT_LEADER,
]

/**
 * gRPC status codes that say the same, on the errors the client passes through unwrapped (an append
 * that finds no connection: "14 UNAVAILABLE: No connection established"): UNAVAILABLE and
 * DEADLINE_EXCEEDED
 */
const UNAVAILABLE_GRPC_CODES: readonly number[] = [14, 4]

/** StoreUnavailableError for a server that cannot serve right now; any other error unchanged */
export function translateKurrentFailure(error: unknown): unknown {
  const grpcCode = error instanceof Error ? (error as { code?: unknown }).code : undefined
  const unavailable =
    UNAVAILABLE_TYPES.some((type) => hasErrorType(error, type)) ||
    (typeof grpcCode === 'number' && UNAVAILABLE_GRPC_CODES.includes(grpcCode))
  if (!unavailable) return error
  return new StoreUnavailableError(`EventStoreDB: ${(error as Error).message}`, { cause: error })
}

export function isStreamNotFound(error: unknown): boolean {
  return hasErrorType(error, ErrorType.STREAM_NOT_FOUND)
}

function hasErrorType(error: unknown, type: ErrorType): boolean {
  return error instanceof Error && (error as { type?: unknown }).type === type
}

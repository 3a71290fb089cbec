// Between the port's revisions and the client's stream states, both ways.

import { type ExpectedRevision, WrongExpectedRevisionError } from '@chainpay/ports'
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

export function isStreamNotFound(error: unknown): boolean {
  return hasErrorType(error, ErrorType.STREAM_NOT_FOUND)
}

function hasErrorType(error: unknown, type: ErrorType): boolean {
  return error instanceof Error && (error as { type?: unknown }).type === type
}

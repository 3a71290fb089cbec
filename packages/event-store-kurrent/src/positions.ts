// The port's opaque position string for a place in EventStoreDB's $all: `${commit}:${prepare}`, both
// as decimal digits. Only this module reads or writes that form.

import type { Position } from '@kurrent/kurrentdb-client'

const MAX_LOG_POSITION = 2n ** 64n - 1n

// no leading zeros: one position has exactly one string, so positions can be compared as text for equality
const positionText = /^(0|[1-9]\d*):(0|[1-9]\d*)$/

export function encodePosition(position: Position): string {
  for (const part of [position.commit, position.prepare]) {
    if (part < 0n || part > MAX_LOG_POSITION) {
      throw new RangeError(`not an EventStoreDB log position: ${position.commit}/${position.prepare}`)
    }
  }
  return `${position.commit}:${position.prepare}`
}

export function decodePosition(text: string): Position {
  const match = positionText.exec(text)
  if (match === null) throw new Error(`not a KurrentDB event store position: ${text}`)
  const commit = BigInt(match[1] ?? '')
  const prepare = BigInt(match[2] ?? '')
  if (commit > MAX_LOG_POSITION || prepare > MAX_LOG_POSITION) {
    throw new Error(`not a KurrentDB event store position (beyond the 64-bit log): ${text}`)
  }
  return { commit, prepare }
}

/** $all order: by commit position, then by prepare position within one commit */
export function comparePositions(a: Position, b: Position): -1 | 0 | 1 {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1
  return 0
}

/**
 * Where the last event of a successful append sits in $all. Every event appended through the gRPC API
 * commits itself, so its position is (its log position, its log position), and the commit position
 * the server reports for an append is the log position of the append's last event. The prepare
 * position it reports is not the last event's: EventStoreDB before KurrentDB reports the append's
 * first prepare there. Resuming from (commit, first prepare) would read the last event again.
 */
export function appendedPosition(reported: Position): Position {
  return { commit: reported.commit, prepare: reported.commit }
}

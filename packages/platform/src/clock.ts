/** Time comes from here so that tests can drive it. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** ISO 8601 UTC with milliseconds: 2026-11-21T14:03:07.123Z */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString()
}

/** A clock that only moves when told to, for tests and simulations. */
export interface ManualClock extends Clock {
  set(time: Date | string): void
  advance(ms: number): void
}

export function createManualClock(start: Date | string): ManualClock {
  let current = new Date(start).getTime()
  if (Number.isNaN(current)) throw new RangeError(`manual clock: not a time: ${String(start)}`)
  return {
    now: () => new Date(current),
    set(time) {
      const next = new Date(time).getTime()
      if (Number.isNaN(next)) throw new RangeError(`manual clock: not a time: ${String(time)}`)
      current = next
    },
    advance(ms) {
      current += ms
    },
  }
}

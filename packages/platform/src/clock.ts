/** Time comes from here so that tests can drive it. */
export interface Clock {
  now(): Date
}

export declare const systemClock: Clock

/** ISO 8601 UTC with milliseconds: 2026-11-21T14:03:07.123Z */
export declare function isoNow(clock: Clock): string

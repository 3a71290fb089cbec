// When a failed webhook delivery is tried again: after each failed attempt the next entry of the
// schedule, about 52 hours in all; once it is exhausted the delivery is marked failed.

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/** 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 24 h */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  30_000,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  12 * HOUR,
  24 * HOUR,
]

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: MINUTE, h: HOUR, d: 24 * HOUR }
const DURATION_PATTERN = /^([0-9]{1,9})(ms|s|m|h|d)$/

/**
 * "30s,2m,10m,1h" as milliseconds, for configuration. Each entry is a whole number followed by
 * ms, s, m, h or d; entries must be positive. Throws an Error naming the offending entry.
 */
export function parseRetrySchedule(text: string): number[] {
  if (text.trim() === '') {
    throw new Error('retry schedule: expected comma-separated durations such as "30s,2m,10m,1h", got nothing')
  }
  return text.split(',').map((raw, index) => {
    const entry = raw.trim()
    const match = DURATION_PATTERN.exec(entry)
    if (match === null) {
      throw new Error(
        `retry schedule: entry ${index + 1} '${entry}' is not a duration (a whole number followed by ms, s, m, h or d, such as 30s)`,
      )
    }
    const ms = Number(match[1]) * (unitMs[match[2] as string] as number)
    if (ms <= 0) throw new Error(`retry schedule: entry ${index + 1} '${entry}' must be longer than zero`)
    return ms
  })
}

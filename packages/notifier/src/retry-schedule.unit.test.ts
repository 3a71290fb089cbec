import { describe, expect, it } from 'vitest'
import { DEFAULT_RETRY_SCHEDULE_MS, parseRetrySchedule } from './retry-schedule.js'

describe('parseRetrySchedule', () => {
  it('reads durations in ms, s, m, h and d', () => {
    expect(parseRetrySchedule('30s,2m,10m,1h')).toEqual([30_000, 120_000, 600_000, 3_600_000])
    expect(parseRetrySchedule('250ms, 1d')).toEqual([250, 86_400_000])
  })

  it('reads the default schedule written out', () => {
    expect(parseRetrySchedule('30s,2m,10m,30m,1h,2h,4h,8h,12h,24h')).toEqual(DEFAULT_RETRY_SCHEDULE_MS)
  })

  it('adds up to about two days by default', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((sum, delay) => sum + delay, 0)
    expect(total / 3_600_000).toBeCloseTo(51.7, 1)
  })

  it.each([
    ['', /got nothing/],
    ['  ', /got nothing/],
    ['30s,,2m', /entry 2 '' is not a duration/],
    ['30', /entry 1 '30' is not a duration/],
    ['1.5m', /entry 1 '1.5m' is not a duration/],
    ['-5s', /entry 1 '-5s' is not a duration/],
    ['30s,2 minutes', /entry 2 '2 minutes' is not a duration \(a whole number followed by ms, s, m, h or d/],
    ['0s', /entry 1 '0s' must be longer than zero/],
  ])('rejects %j', (text, problem) => {
    expect(() => parseRetrySchedule(text)).toThrow(problem)
  })
})

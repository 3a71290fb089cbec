import { describe, expect, it } from 'vitest'
import { DEFAULT_RESUBSCRIBE_DELAYS, resubscribeDelayMs } from './append-watcher.js'

describe('resubscribeDelayMs', () => {
  it('starts at the initial wait and doubles with each failure in a row', () => {
    const delays = { initialMs: 100, maxMs: 10_000 }
    expect([1, 2, 3, 4, 5].map((failures) => resubscribeDelayMs(failures, delays))).toEqual([
      100, 200, 400, 800, 1600,
    ])
  })

  it('never waits longer than the maximum, however many failures', () => {
    const delays = { initialMs: 100, maxMs: 1000 }
    expect(resubscribeDelayMs(5, delays)).toBe(1000)
    expect(resubscribeDelayMs(10_000, delays)).toBe(1000)
    expect(resubscribeDelayMs(10_000, DEFAULT_RESUBSCRIBE_DELAYS)).toBe(DEFAULT_RESUBSCRIBE_DELAYS.maxMs)
  })
})

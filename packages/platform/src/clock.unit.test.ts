import { describe, expect, it } from 'vitest'
import { createManualClock, isoNow, systemClock } from './clock.js'

describe('systemClock', () => {
  it('tells the current time', () => {
    const before = Date.now()
    const now = systemClock.now().getTime()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
  })
})

describe('isoNow', () => {
  it('writes ISO 8601 UTC with milliseconds', () => {
    expect(isoNow(createManualClock('2026-11-21T14:03:07Z'))).toBe('2026-11-21T14:03:07.000Z')
    expect(isoNow(systemClock)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })
})

describe('createManualClock', () => {
  it('stays still until set or advanced', () => {
    const clock = createManualClock('2026-11-21T14:03:07.123Z')
    expect(isoNow(clock)).toBe('2026-11-21T14:03:07.123Z')
    clock.advance(60_000)
    expect(isoNow(clock)).toBe('2026-11-21T14:04:07.123Z')
    clock.set(new Date('2027-01-01T00:00:00.000Z'))
    expect(isoNow(clock)).toBe('2027-01-01T00:00:00.000Z')
  })

  it('hands out copies, so a caller cannot move it', () => {
    const clock = createManualClock('2026-11-21T14:03:07.123Z')
    clock.now().setTime(0)
    expect(isoNow(clock)).toBe('2026-11-21T14:03:07.123Z')
  })

  it('rejects text that is not a time', () => {
    expect(() => createManualClock('soon')).toThrow(RangeError)
    expect(() => createManualClock('2026-11-21T14:03:07Z').set('later')).toThrow(RangeError)
  })
})

import { createManualClock } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { createUnsavedRevisions } from './read-your-writes.js'

const start = '2030-01-15T12:00:00.000Z'

describe('createUnsavedRevisions: what read-your-writes remembers', () => {
  it('is ahead of an older stored revision, and forgets the payment once the store caught up', () => {
    const unsaved = createUnsavedRevisions({
      clock: createManualClock(start),
      maxEntries: 10_000,
      ttlMs: 600_000,
    })
    expect(unsaved.aheadOf('pay-1', 0)).toBeNull()
    unsaved.remember('pay-1', 2, 'm_pay-1')
    expect(unsaved.aheadOf('pay-1', 1)).toBe('m_pay-1')
    expect(unsaved.aheadOf('pay-2', 1)).toBeNull()
    expect(unsaved.aheadOf('pay-1', 2)).toBeNull()
    expect(unsaved.aheadOf('pay-1', 1)).toBeNull()
  })

  it('keeps the newest revision remembered for a payment', () => {
    const unsaved = createUnsavedRevisions({
      clock: createManualClock(start),
      maxEntries: 10_000,
      ttlMs: 600_000,
    })
    unsaved.remember('pay-1', 3, 'm_pay-1')
    unsaved.remember('pay-1', 1, 'm_pay-1')
    expect(unsaved.aheadOf('pay-1', 2)).toBe('m_pay-1')
  })

  it('forgets a revision after its time to live', () => {
    const clock = createManualClock(start)
    const unsaved = createUnsavedRevisions({ clock, maxEntries: 10_000, ttlMs: 60_000 })
    unsaved.remember('pay-1', 1, 'm_pay-1')
    clock.advance(59_999)
    expect(unsaved.aheadOf('pay-1', 0)).toBe('m_pay-1')
    clock.advance(1)
    expect(unsaved.aheadOf('pay-1', 0)).toBeNull()
  })

  it('holds at most maxEntries payments, forgetting the least recently remembered first', () => {
    const unsaved = createUnsavedRevisions({ clock: createManualClock(start), maxEntries: 2, ttlMs: 600_000 })
    unsaved.remember('pay-1', 1, 'm_pay-1')
    unsaved.remember('pay-2', 1, 'm_pay-2')
    unsaved.remember('pay-1', 2, 'm_pay-1')
    unsaved.remember('pay-3', 1, 'm_pay-3')
    expect(unsaved.aheadOf('pay-2', 0)).toBeNull()
    expect(unsaved.aheadOf('pay-1', 0)).toBe('m_pay-1')
    expect(unsaved.aheadOf('pay-3', 0)).toBe('m_pay-3')
  })
})

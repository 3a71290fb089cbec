import { createManualClock } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { createUnsavedRevisions } from './unsaved-revisions.js'

const start = '2030-01-15T12:00:00.000Z'

describe('createUnsavedRevisions', () => {
  it('is ahead of an older stored revision, and forgets the payment once the store caught up', () => {
    const unsaved = createUnsavedRevisions({ clock: createManualClock(start) })
    expect(unsaved.isAhead('pay-1', 0)).toBe(false)
    unsaved.remember('pay-1', 2)
    expect(unsaved.isAhead('pay-1', 1)).toBe(true)
    expect(unsaved.isAhead('pay-2', 1)).toBe(false)
    expect(unsaved.isAhead('pay-1', 2)).toBe(false)
    expect(unsaved.isAhead('pay-1', 1)).toBe(false)
  })

  it('keeps the newest revision remembered for a payment', () => {
    const unsaved = createUnsavedRevisions({ clock: createManualClock(start) })
    unsaved.remember('pay-1', 3)
    unsaved.remember('pay-1', 1)
    expect(unsaved.isAhead('pay-1', 2)).toBe(true)
  })

  it('forgets a revision after its time to live', () => {
    const clock = createManualClock(start)
    const unsaved = createUnsavedRevisions({ clock, ttlMs: 60_000 })
    unsaved.remember('pay-1', 1)
    clock.advance(59_999)
    expect(unsaved.isAhead('pay-1', 0)).toBe(true)
    clock.advance(1)
    expect(unsaved.isAhead('pay-1', 0)).toBe(false)
  })

  it('holds at most maxEntries payments, forgetting the least recently remembered first', () => {
    const unsaved = createUnsavedRevisions({ clock: createManualClock(start), maxEntries: 2 })
    unsaved.remember('pay-1', 1)
    unsaved.remember('pay-2', 1)
    unsaved.remember('pay-1', 2)
    unsaved.remember('pay-3', 1)
    expect(unsaved.isAhead('pay-2', 0)).toBe(false)
    expect(unsaved.isAhead('pay-1', 0)).toBe(true)
    expect(unsaved.isAhead('pay-3', 0)).toBe(true)
  })
})

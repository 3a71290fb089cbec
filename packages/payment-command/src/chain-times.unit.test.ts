import { describe, expect, it } from 'vitest'
import { createChainTimeTracker } from './chain-times.js'

describe('createChainTimeTracker', () => {
  it('knows nothing of a network until its watcher reports', () => {
    expect(createChainTimeTracker().get('TRON')).toBeNull()
  })

  it('keeps the latest block time per network; an older report changes nothing', () => {
    const times = createChainTimeTracker()
    times.update('TRON', '2026-11-21T14:10:00.000Z')
    times.update('TRON', '2026-11-21T14:05:00.000Z')
    times.update('SOLANA', '2026-11-21T14:01:00.000Z')
    expect(times.get('TRON')).toBe('2026-11-21T14:10:00.000Z')
    times.update('TRON', '2026-11-21T14:10:00.500Z')
    expect(times.get('TRON')).toBe('2026-11-21T14:10:00.500Z')
    expect(times.get('SOLANA')).toBe('2026-11-21T14:01:00.000Z')
  })

  it('lists the networks whose watcher has reported, once each', () => {
    const times = createChainTimeTracker()
    expect(times.networks()).toEqual([])
    times.update('SOLANA', '2026-11-21T14:01:00.000Z')
    times.update('TRON', '2026-11-21T14:10:00.000Z')
    times.update('SOLANA', '2026-11-21T14:02:00.000Z')
    expect(times.networks()).toEqual(['SOLANA', 'TRON'])
  })

  it('gives a held payment a chain time just before what holds it, and lets it go with the next report', () => {
    const times = createChainTimeTracker()
    expect(times.forPayment('SOLANA', 'p1')).toBeNull()
    times.update('SOLANA', '2026-11-21T14:31:00.000Z', [
      { paymentId: 'p1', before: '2026-11-21T14:29:58.000Z' },
    ])
    expect(times.forPayment('SOLANA', 'p1')).toBe('2026-11-21T14:29:57.999Z')
    expect(times.forPayment('SOLANA', 'p2')).toBe('2026-11-21T14:31:00.000Z')
    // an older report (replayed) changes nothing; the same time again replaces the holds
    times.update('SOLANA', '2026-11-21T14:30:00.000Z')
    expect(times.forPayment('SOLANA', 'p1')).toBe('2026-11-21T14:29:57.999Z')
    times.update('SOLANA', '2026-11-21T14:31:00.000Z')
    expect(times.forPayment('SOLANA', 'p1')).toBe('2026-11-21T14:31:00.000Z')
  })

  it('refuses a report that is not a time', () => {
    expect(() => createChainTimeTracker().update('TRON', 'yesterday')).toThrow(/TRON.*yesterday/)
  })
})

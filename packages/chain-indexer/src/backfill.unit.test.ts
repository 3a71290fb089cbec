import type { ChainBlock } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { createScanHistory } from './backfill.js'

function blocks(...heights: number[]): ChainBlock[] {
  return heights.map((height) => ({
    height,
    hash: `hash-${height}`,
    parentHash: `hash-${height - 1}`,
    time: '2026-11-21T14:00:00.000Z',
    transfers: [],
  }))
}

describe('createScanHistory', () => {
  it('is empty at first', () => {
    const history = createScanHistory()
    expect(history.oldestMatchedAtMs()).toBeUndefined()
    expect(history.lowestHeightMatchedSince(0)).toBeUndefined()
  })

  it('finds the lowest height matched at or after a time', () => {
    const history = createScanHistory()
    history.record(blocks(1, 2, 3), 1_000)
    history.record(blocks(4, 5), 2_000)
    history.record(blocks(6), 3_000)
    expect(history.oldestMatchedAtMs()).toBe(1_000)
    expect(history.lowestHeightMatchedSince(1_500)).toBe(4)
    expect(history.lowestHeightMatchedSince(2_000)).toBe(4)
    expect(history.lowestHeightMatchedSince(3_000)).toBe(6)
    expect(history.lowestHeightMatchedSince(3_001)).toBeUndefined()
  })

  it('counts heights scanned again after a rewind', () => {
    const history = createScanHistory()
    history.record(blocks(10, 11, 12), 1_000)
    history.record(blocks(3, 4, 5), 2_000)
    expect(history.lowestHeightMatchedSince(2_000)).toBe(3)
  })

  it('keeps only the latest records', () => {
    const history = createScanHistory(3)
    history.record(blocks(1, 2), 1_000)
    history.record(blocks(3, 4), 2_000)
    expect(history.oldestMatchedAtMs()).toBe(1_000)
    history.record(blocks(5), 3_000)
    expect(history.oldestMatchedAtMs()).toBe(2_000)
    expect(history.lowestHeightMatchedSince(0)).toBe(3)
  })
})

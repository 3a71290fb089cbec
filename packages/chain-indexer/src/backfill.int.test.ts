import { createManualClock } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { firstHeightAtOrAfter } from './backfill.js'
import { createIndexerHarness, type IndexerHarness } from './testing/indexer-harness.js'

const clock = createManualClock('2026-11-21T14:00:00.000Z')
let harness: IndexerHarness

beforeEach(async () => {
  clock.set('2026-11-21T14:00:00.000Z')
  harness = await createIndexerHarness({ clock: () => clock.now() })
  // block 1 at 14:00:00, then one block every 3 s: block n at 14:00:00 + 3 (n - 1) s
  for (let block = 2; block <= 40; block++) {
    clock.advance(3_000)
    await harness.sim.mineBlocks('TRON', 1)
  }
})

afterEach(async () => {
  await harness.close()
})

describe('firstHeightAtOrAfter', () => {
  const client = () => harness.sim.client('TRON')
  const at = (seconds: number) => Date.parse('2026-11-21T14:00:00.000Z') + seconds * 1000

  it('finds the first block at or after a time', async () => {
    expect(await firstHeightAtOrAfter(client(), at(30), 0, 40)).toBe(11)
    expect(await firstHeightAtOrAfter(client(), at(31), 0, 40)).toBe(12)
    expect(await firstHeightAtOrAfter(client(), at(0), 1, 40)).toBe(1)
  })

  it('stays within the range it is given', async () => {
    expect(await firstHeightAtOrAfter(client(), at(30), 20, 40)).toBe(20)
    expect(await firstHeightAtOrAfter(client(), at(500), 0, 40)).toBe(40)
  })

  it('counts a height without a block as after the time, so it never starts later than needed', async () => {
    expect(await firstHeightAtOrAfter(client(), at(-100), 0, 40)).toBe(0)
  })
})

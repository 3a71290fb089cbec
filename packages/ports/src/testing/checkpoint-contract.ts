import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CheckpointStore } from '../checkpoints.js'

export interface CheckpointStoreFixture {
  checkpoints: CheckpointStore
  /** releases whatever setup created */
  teardown(): Promise<void>
}

/**
 * The behaviour every CheckpointStore adapter promises. `setup` runs before each test; tests use
 * fresh random names, so a store holding older checkpoints is fine.
 */
export function describeCheckpointStoreContract(
  adapterName: string,
  setup: () => Promise<CheckpointStoreFixture>,
): void {
  describe(`CheckpointStore contract: ${adapterName}`, () => {
    let fixture: CheckpointStoreFixture
    let checkpoints: CheckpointStore
    beforeEach(async () => {
      fixture = await setup()
      checkpoints = fixture.checkpoints
    })
    afterEach(async () => {
      await fixture.teardown()
    })

    it('loads null for a name never stored', async () => {
      expect(await checkpoints.load(checkpointName())).toBeNull()
    })

    it('loads the position stored under a name', async () => {
      const name = checkpointName()
      await checkpoints.store(name, '42')
      expect(await checkpoints.load(name)).toBe('42')
    })

    it('keeps only the latest position of a name', async () => {
      const name = checkpointName()
      await checkpoints.store(name, '7')
      await checkpoints.store(name, '1234567890123456789012')
      expect(await checkpoints.load(name)).toBe('1234567890123456789012')
    })

    it('keeps opaque positions verbatim', async () => {
      const name = checkpointName()
      await checkpoints.store(name, 'C:1024/P:1000')
      expect(await checkpoints.load(name)).toBe('C:1024/P:1000')
    })

    it('keeps names independent', async () => {
      const [relay, indexer] = [checkpointName(), checkpointName()]
      await checkpoints.store(relay, '10')
      await checkpoints.store(indexer, '20')
      await checkpoints.store(relay, '11')
      expect([await checkpoints.load(relay), await checkpoints.load(indexer)]).toEqual(['11', '20'])
    })
  })
}

function checkpointName(): string {
  return `contract-${randomUUID()}`
}

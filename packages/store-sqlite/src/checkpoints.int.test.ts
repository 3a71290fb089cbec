import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeCheckpointStoreContract } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { createSqliteCheckpointStore } from './checkpoints.js'
import { openSqliteDatabase } from './database.js'

describeCheckpointStoreContract('SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-checkpoints-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.db'))
  return {
    checkpoints: createSqliteCheckpointStore(db),
    async teardown() {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describeCheckpointStoreContract('SQLite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    checkpoints: createSqliteCheckpointStore(db),
    async teardown() {
      db.close()
    },
  }
})

describe('createSqliteCheckpointStore', () => {
  it('keeps positions after the file is closed and reopened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpay-checkpoints-'))
    const path = join(dir, 'chainpay.db')
    try {
      const first = openSqliteDatabase(path)
      await createSqliteCheckpointStore(first).store('relay', '314')
      first.close()
      const reopened = openSqliteDatabase(path)
      expect(await createSqliteCheckpointStore(reopened).load('relay')).toBe('314')
      reopened.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

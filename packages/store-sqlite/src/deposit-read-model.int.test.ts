import { describeDepositReadModelContract, sampleDepositRecord } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { openSqliteDatabase } from './database.js'
import { createSqliteDepositReadModel, depositReadModelMigrations } from './deposit-read-model.js'
import { migrateSqliteComponent } from './schema-versions.js'

describeDepositReadModelContract('sqlite deposits_read', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    store: createSqliteDepositReadModel(db),
    teardown: async () => {
      if (db.isOpen) db.close()
    },
  }
})

describe('deposits_read written before the network column', () => {
  it("gets each deposit's network from its state, so the operator's balances find them by network", async () => {
    const db = openSqliteDatabase(':memory:')
    try {
      // the table as the first release of deposits left it, with a confirmed deposit in it
      migrateSqliteComponent(db, 'read-model:deposits_read', depositReadModelMigrations.slice(0, 1))
      const { state } = sampleDepositRecord('d1', 2, { status: 'confirmed', network: 'TRON_NILE' })
      db.prepare(
        `INSERT INTO deposits_read (deposit_id, revision, merchant_id, merchant_user_id, status, detected_at, state)
         VALUES ('d1', 2, 'mer_a', 'user-1', 'confirmed', ?, ?)`,
      ).run(state.detected.detectedAt, JSON.stringify(state))
      const store = createSqliteDepositReadModel(db)
      expect(
        (await store.listConfirmed({ limit: 10, network: 'TRON_NILE' })).map((r) => r.depositId),
      ).toEqual(['d1'])
      expect(await store.listConfirmed({ limit: 10, network: 'TRON' })).toEqual([])
    } finally {
      db.close()
    }
  })
})

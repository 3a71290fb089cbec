import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describePaymentReadModelContract, samplePaymentDocument } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import {
  createSqlitePaymentReadModel,
  createSqlitePaymentSearch,
  readModelMigrations,
  sqlitePaymentListing,
} from './read-model.js'
import { migrateSqliteComponent } from './schema-versions.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-read-model-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqlitePaymentReadModel(db),
  loseDatabase: async () => db.close(),
  teardown: async () => {
    if (db.isOpen) db.close()
  },
})

describePaymentReadModelContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describePaymentReadModelContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqlitePaymentReadModel', () => {
  it('keeps documents across closing and reopening the database file', async () => {
    const file = freshFile()
    const document = samplePaymentDocument('pay_1', 4)
    const first = openSqliteDatabase(file)
    await createSqlitePaymentReadModel(first).save(document)
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqlitePaymentReadModel(reopened)
      expect(await store.get('pay_1')).toEqual(document)
      expect(await store.save(samplePaymentDocument('pay_1', 4))).toBe('stale')
    } finally {
      reopened.close()
    }
  })

  it('gives the states written before foreign funds an empty list of them (migration 3)', async () => {
    const db = openSqliteDatabase(freshFile())
    try {
      const document = samplePaymentDocument('pay_1', 4)
      await createSqlitePaymentReadModel(db).save(document)
      // as the build before foreign funds left it (with the payment lists of migration 2)
      db.exec(`
        UPDATE payments_read SET state = json_remove(state, '$.foreignFunds', '$.sweeps');
        DROP INDEX payments_read_funded;
        ALTER TABLE payments_read DROP COLUMN wallet_id;
        ALTER TABLE payments_read DROP COLUMN funded;
        UPDATE schema_versions SET version = 2 WHERE component = 'read-model:payments_read'
      `)
      expect(
        JSON.parse(String(db.prepare('SELECT state FROM payments_read').get()?.state)),
      ).not.toHaveProperty('foreignFunds')

      expect(await createSqlitePaymentReadModel(db).get('pay_1')).toEqual(document)
    } finally {
      db.close()
    }
  })
})

describe('read model schema migration 4 (balances)', () => {
  it('gives the states written before it empty sweeps, and the funded payments their index', async () => {
    const db = openSqliteDatabase(freshFile())
    try {
      migrateSqliteComponent(db, 'read-model:payments_read', readModelMigrations('payments_read').slice(0, 3))
      const insert = db.prepare(
        'INSERT INTO payments_read (payment_id, merchant_id, revision, state, updated_at) VALUES (?, ?, ?, ?, ?)',
      )
      for (const document of [samplePaymentDocument('pay_paid', 19), samplePaymentDocument('pay_open', 2)]) {
        const { sweeps: _sweeps, ...before } = document.state
        insert.run(document.paymentId, 'mer_1', document.revision, JSON.stringify(before), document.updatedAt)
      }

      const store = createSqlitePaymentReadModel(db)
      expect(await store.get('pay_paid')).toEqual(samplePaymentDocument('pay_paid', 19))
      expect((await store.listFunded({ limit: 10, walletId: 'operator' })).map((d) => d.paymentId)).toEqual([
        'pay_paid',
      ])
    } finally {
      db.close()
    }
  })
})

describe("read model schema migration 6 (support's search by metadata value)", () => {
  it('fills the side table with the metadata values of the payments kept before it', async () => {
    const db = openSqliteDatabase(freshFile())
    try {
      migrateSqliteComponent(db, 'read-model:payments_read', readModelMigrations('payments_read').slice(0, 5))
      const document = samplePaymentDocument('pay_1', 4)
      db.prepare(
        'INSERT INTO payments_read (payment_id, merchant_id, revision, state, updated_at) VALUES (?, ?, ?, ?, ?)',
      ).run(
        document.paymentId,
        'mer_1',
        document.revision,
        JSON.stringify(document.state),
        document.updatedAt,
      )

      const search = createSqlitePaymentSearch(db)
      // the sample's metadata: { $where: 'sleep(1000)', 'a.b': 'dotted', 'emoji 💸': true, count: 3, none: null }
      for (const value of ['sleep(1000)', 'dotted', 'true', '3'])
        expect((await search.findByReference('mer_1', value, 10)).map((found) => found.paymentId)).toEqual([
          'pay_1',
        ])
      expect(await search.findByReference('mer_2', 'dotted', 10)).toEqual([])
      expect(db.prepare('SELECT count(*) AS n FROM payments_read_metadata').get()?.n).toBe(4)
    } finally {
      db.close()
    }
  })
})

describe('read model schema migration 2 (payment lists)', () => {
  it('gives documents written before it their listed columns and the fee policy their events upcast to', async () => {
    const db = openSqliteDatabase(freshFile())
    try {
      // the table at version 1, holding a payment as the release before it wrote it
      migrateSqliteComponent(db, 'read-model:payments_read', readModelMigrations('payments_read').slice(0, 1))
      const current = samplePaymentDocument('pay_old', 2, { status: 'confirmed' })
      const { feeBps: _bps, fixedFeeUnits: _fixed, ...createdV1 } = current.state.created
      db.prepare(
        'INSERT INTO payments_read (payment_id, merchant_id, revision, state, updated_at) VALUES (?, ?, ?, ?, ?)',
      ).run(
        'pay_old',
        'mer_1',
        2,
        JSON.stringify({ ...current.state, created: createdV1 }),
        current.updatedAt,
      )

      const store = createSqlitePaymentReadModel(db)
      const upgraded = samplePaymentDocument('pay_old', 2, {
        status: 'confirmed',
        created: { ...current.state.created, feeBps: 0, fixedFeeUnits: current.state.created.feeUnits },
      })
      expect(await store.get('pay_old')).toEqual(upgraded)
      expect(
        await store.list({ merchantId: 'mer_1', limit: 10, statuses: ['confirmed'], network: 'TRON' }),
      ).toEqual([upgraded])
    } finally {
      db.close()
    }
  })
})

describe('a page of the list', () => {
  it('is a range of the (merchant_id, created_at, payment_id) index, read in its order: no scan, no sort', () => {
    const db = openSqliteDatabase(':memory:')
    try {
      createSqlitePaymentReadModel(db)
      const build = sqlitePaymentListing('payments_read')
      const queries = [
        { merchantId: 'mer_1', limit: 21 },
        { merchantId: 'mer_1', limit: 21, after: { createdAt: '2030-01-01T00:00:00.000Z', paymentId: 'p' } },
        {
          merchantId: 'mer_1',
          limit: 21,
          after: { createdAt: '2030-01-01T00:00:00.000Z', paymentId: 'p' },
          createdFrom: '2029-01-01T00:00:00.000Z',
          createdTo: '2031-01-01T00:00:00.000Z',
          statuses: ['pending', 'confirmed'] as const,
          network: 'TRON',
          currency: 'USDT',
        },
      ]
      for (const query of queries) {
        const { sql, parameters } = build({
          ...query,
          statuses: query.statuses ? [...query.statuses] : undefined,
        })
        const plan = db
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...parameters)
          .map((row) => String(row.detail))
        expect(plan, sql).toEqual([
          expect.stringMatching(/^SEARCH payments_read USING INDEX payments_read_listed \(merchant_id=\?/),
        ])
      }
    } finally {
      db.close()
    }
  })
})

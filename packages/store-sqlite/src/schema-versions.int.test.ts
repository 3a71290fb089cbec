// Versioned storage on SQLite (docs/operations.md, "Upgrades and rollbacks"): each store component
// migrates forward in order, one transaction per migration, and a file newer than the code stops.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteDeliveryStore, deliveryMigrations } from './deliveries.js'
import {
  columnsOf,
  migrateSqliteComponent,
  onSqliteMigration,
  SchemaTooNewError,
  type SqliteMigration,
  sqliteSchemaVersion,
} from './schema-versions.js'

const opened: DatabaseSync[] = []
const dirs: string[] = []

function open(): DatabaseSync {
  const db = openSqliteDatabase(':memory:')
  opened.push(db)
  return db
}

afterEach(() => {
  for (const db of opened.splice(0)) db.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** migrations that record the order they ran in, in table applied */
function recording(count: number): SqliteMigration[] {
  return Array.from({ length: count }, (_, i) => ({
    description: `step ${i + 1}`,
    apply: (db: DatabaseSync) => {
      db.exec('CREATE TABLE IF NOT EXISTS applied (step INTEGER NOT NULL)')
      db.prepare('INSERT INTO applied (step) VALUES (?)').run(i + 1)
    },
  }))
}

const appliedSteps = (db: DatabaseSync) =>
  db
    .prepare('SELECT step FROM applied ORDER BY rowid')
    .all()
    .map((row) => Number(row.step))

describe('SQLite schema versions', () => {
  it('a new file runs every migration once, in order, and records the last version', () => {
    const db = open()
    migrateSqliteComponent(db, 'sample', recording(3))
    expect(appliedSteps(db)).toEqual([1, 2, 3])
    expect(sqliteSchemaVersion(db, 'sample')).toBe(3)
    migrateSqliteComponent(db, 'sample', recording(3))
    expect(appliedSteps(db)).toEqual([1, 2, 3])
  })

  it('tells the listener of each migration applied, with its version and description, once', () => {
    const db = open()
    const heard: unknown[] = []
    onSqliteMigration(db, (applied) => heard.push(applied))
    migrateSqliteComponent(db, 'sample', recording(2))
    migrateSqliteComponent(db, 'sample', recording(3))
    migrateSqliteComponent(db, 'sample', recording(3))
    expect(heard).toEqual([
      { component: 'sample', version: 1, description: 'step 1' },
      { component: 'sample', version: 2, description: 'step 2' },
      { component: 'sample', version: 3, description: 'step 3' },
    ])
  })

  it('a file at version 2 runs only the migrations after it', () => {
    const db = open()
    migrateSqliteComponent(db, 'sample', recording(2))
    migrateSqliteComponent(db, 'sample', recording(4))
    expect(appliedSteps(db)).toEqual([1, 2, 3, 4])
    expect(sqliteSchemaVersion(db, 'sample')).toBe(4)
  })

  it('components sharing a file keep versions of their own', () => {
    const db = open()
    migrateSqliteComponent(db, 'one', [])
    migrateSqliteComponent(db, 'two', recording(2))
    expect(sqliteSchemaVersion(db, 'one')).toBe(0)
    expect(sqliteSchemaVersion(db, 'two')).toBe(2)
  })

  it('a migration that fails leaves the file at the version before it, its changes undone', () => {
    const db = open()
    const failing: SqliteMigration = {
      description: 'fails halfway',
      apply: (db) => {
        db.exec('CREATE TABLE half (x INTEGER)')
        throw new Error('disk on fire')
      },
    }
    expect(() => migrateSqliteComponent(db, 'sample', [...recording(1), failing])).toThrow('disk on fire')
    expect(sqliteSchemaVersion(db, 'sample')).toBe(1)
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined()
  })

  it('a file whose schema is newer than the code stops with which version and what to do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpay-schema-'))
    dirs.push(dir)
    const db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
    opened.push(db)
    migrateSqliteComponent(db, 'deliveries', [...deliveryMigrations, ...recording(1)])
    let thrown: unknown
    try {
      createSqliteDeliveryStore(db)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(SchemaTooNewError)
    const message = (thrown as Error).message
    expect(message).toContain(join(dir, 'chainpay.sqlite'))
    expect(message).toContain(
      `schema of deliveries is at version ${deliveryMigrations.length + 1}, newer than the ${deliveryMigrations.length} this build knows`,
    )
    expect(message).toContain('run that build (or a newer one), or restore the backup')
  })

  it('a delivery log written before versions gets target_host filled for the deliveries it holds', async () => {
    const db = open()
    // the b991541 schema and a delivery it recorded, with no version row
    deliveryMigrations[0]?.apply(db)
    db.exec(`
      INSERT INTO webhook_deliveries (delivery_id, payment_id, merchant_id, event_type, sequence, payload,
        target_url, status, attempts, next_attempt_at, created_at)
      VALUES ('d1', 'p1', 'm1', 'payment.pending', 1, '{}', 'https://shop.example:8443/hooks', 'pending', 0,
        '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')
    `)
    expect(columnsOf(db, 'webhook_deliveries').has('target_host')).toBe(false)
    const store = createSqliteDeliveryStore(db)
    expect(sqliteSchemaVersion(db, 'deliveries')).toBe(deliveryMigrations.length)
    const row = db.prepare("SELECT target_host FROM webhook_deliveries WHERE delivery_id = 'd1'").get()
    expect(row?.target_host).toBe('shop.example')
    const due = await store.claimDue('2026-01-02T00:00:00.000Z', {
      limit: 10,
      leaseMs: 1_000,
      perTargetHost: 1,
    })
    expect(due.map((d) => d.deliveryId)).toEqual(['d1'])
  })
})

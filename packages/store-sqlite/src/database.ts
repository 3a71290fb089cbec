import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

export type { DatabaseSync }

/**
 * Opens (creating if needed) the SQLite database that holds every embedded adapter's tables.
 * WAL with synchronous=NORMAL: a committed transaction survives the process being killed (kill -9);
 * set `synchronous: 'FULL'` to also survive power loss, at the price of an fsync per commit.
 */
export function openSqliteDatabase(
  path: string,
  options: { synchronous?: 'NORMAL' | 'FULL' } = {},
): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new DatabaseSync(path)
  // first, so that switching a new file to WAL waits for another process opening it at the same time
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA journal_mode = WAL')
  db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`)
  db.exec('PRAGMA foreign_keys = ON')
  return db
}

/**
 * Runs `work` inside one write transaction (BEGIN IMMEDIATE takes the write lock up front, so two
 * processes sharing the file never deadlock on lock upgrade). `work` must be synchronous.
 */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE')
  try {
    const result = work()
    db.exec('COMMIT')
    return result
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
}

/** a readiness check: the database answers a query (a closed one rejects) */
export function sqliteAnswers(db: DatabaseSync): () => Promise<boolean> {
  return async () => db.prepare('SELECT 1 AS ok').get()?.ok === 1
}

import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { ensurePrivateDirectory, ensurePrivateFile, restrictToOwner } from '@chainpay/platform'

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
  if (path !== ':memory:') makePrivate(path)
  const db = new DatabaseSync(path)
  // first, so that switching a new file to WAL waits for another process opening it at the same time
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA journal_mode = WAL')
  db.exec(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`)
  db.exec('PRAGMA foreign_keys = ON')
  return db
}

/**
 * The database holds every sealed secret: its directory is the owner's (0700, see
 * ensurePrivateDirectory) and the file 0600 before SQLite opens it, since SQLite creates the -wal
 * and -shm files with the database file's permissions. Those of an older installation are set to
 * 0600 too.
 */
function makePrivate(path: string): void {
  ensurePrivateDirectory(dirname(path))
  ensurePrivateFile(path)
  restrictToOwner(`${path}-wal`)
  restrictToOwner(`${path}-shm`)
  restrictToOwner(`${path}-journal`)
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

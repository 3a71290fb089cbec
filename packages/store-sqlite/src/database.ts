import { dirname } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { ensurePrivateDirectory, ensurePrivateFile, restrictToOwner } from '@chainpay/platform'

export type { DatabaseSync }

/**
 * How hard a commit is made durable (docs/operations.md, "SQLITE_SYNCHRONOUS"). In WAL mode, FULL
 * syncs the write-ahead log at every commit: a committed transaction survives power loss. NORMAL
 * syncs it only at checkpoints: a commit survives the process being killed (kill -9), but a power
 * loss or an operating system crash can take back the last commits, acknowledged payments and the
 * address indexes they spent included, so an address could be handed out again.
 */
export type SqliteSynchronous = 'FULL' | 'NORMAL'

export const SQLITE_SYNCHRONOUS_MODES: readonly SqliteSynchronous[] = ['FULL', 'NORMAL']

/** Opens (creating if needed) the SQLite database that holds every embedded adapter's tables; FULL by default. */
export function openSqliteDatabase(
  path: string,
  options: { synchronous?: SqliteSynchronous } = {},
): DatabaseSync {
  const synchronous = options.synchronous ?? 'FULL'
  // spliced into a PRAGMA below, which takes no parameter: only a known name gets there
  if (!SQLITE_SYNCHRONOUS_MODES.includes(synchronous))
    throw new Error(`unknown synchronous mode ${synchronous}`)
  if (path !== ':memory:') makePrivate(path)
  const db = new DatabaseSync(path)
  // first, so that switching a new file to WAL waits for another process opening it at the same time
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA journal_mode = WAL')
  db.exec(`PRAGMA synchronous = ${synchronous}`)
  db.exec('PRAGMA foreign_keys = ON')
  return db
}

/** what the connection's `PRAGMA synchronous` says it does, by name (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA) */
export function sqliteSynchronousOf(db: DatabaseSync): string {
  const level = Number(db.prepare('PRAGMA synchronous').get()?.synchronous)
  return ['OFF', 'NORMAL', 'FULL', 'EXTRA'][level] ?? `unknown (${level})`
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
 * processes sharing the file never deadlock on lock upgrade). `work` must be synchronous. Inside a
 * transaction already open (a group commit's, group-commit.ts) it is a savepoint of that one.
 */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  const nested = db.isTransaction
  db.exec(nested ? 'SAVEPOINT nested_work' : 'BEGIN IMMEDIATE')
  try {
    const result = work()
    db.exec(nested ? 'RELEASE nested_work' : 'COMMIT')
    return result
  } catch (error) {
    db.exec(nested ? 'ROLLBACK TO nested_work' : 'ROLLBACK')
    if (nested) db.exec('RELEASE nested_work')
    throw error
  }
}

/** a readiness check: the database answers a query (a closed one rejects) */
export function sqliteAnswers(db: DatabaseSync): () => Promise<boolean> {
  return async () => db.prepare('SELECT 1 AS ok').get()?.ok === 1
}

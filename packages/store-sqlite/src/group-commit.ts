// Group commit (docs/capacity.md, "Commits per create"): the writes that the adapters on one SQLite
// connection are asked for during one turn of the event loop go into one transaction, so that one
// commit (one fsync of the write-ahead log with synchronous=FULL) carries them all instead of one
// each. Every write is answered only once the transaction that carries it is committed, so a caller
// that acknowledges after its write (a create's 201, a consumer's offset) never acknowledges
// anything a kill -9 or a power loss could take back. Each write runs in a savepoint of its own: one
// that throws is rolled back alone and rejects its own caller, the others commit. Readers on the
// connection see only committed state: the transaction is opened and committed within one
// synchronous flush, nothing else runs in between. Writes asked for while a caller holds a
// transaction open on the connection join that transaction instead; its commit is the caller's.

import type { DatabaseSync } from './database.js'

export interface GroupCommit {
  /**
   * Runs `work` (synchronous, on this connection) in the next shared transaction; resolves with its
   * result once that transaction is committed, or rejects with its own error (its savepoint rolled
   * back) or the commit's.
   */
  run<T>(work: () => T): Promise<T>
  /** transactions committed and the writes they carried, since the connection's committer was made */
  counts(): { commits: number; writes: number }
}

interface QueuedWrite {
  work: () => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
}

const committers = new WeakMap<DatabaseSync, GroupCommit>()

/** the one group committer of a connection: every adapter on it must share it for writes to group */
export function groupCommitOf(db: DatabaseSync): GroupCommit {
  let committer = committers.get(db)
  if (committer === undefined) {
    committer = createGroupCommit(db)
    committers.set(db, committer)
  }
  return committer
}

function createGroupCommit(db: DatabaseSync): GroupCommit {
  let queue: QueuedWrite[] = []
  let commits = 0
  let writes = 0

  const flush = () => {
    const batch = queue
    queue = []
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = []
    // a transaction its caller holds open across awaits (as inTransaction's would be, nested): the
    // writes join it, each in its savepoint, and its commit is the caller's
    let outer = false
    try {
      // (a closed connection throws here too)
      outer = db.isTransaction
      if (!outer) db.exec('BEGIN IMMEDIATE')
    } catch (error) {
      for (const write of batch) write.reject(error)
      return
    }
    try {
      for (const write of batch) {
        db.exec('SAVEPOINT group_write')
        try {
          outcomes.push({ ok: true, value: write.work() })
          db.exec('RELEASE group_write')
        } catch (error) {
          db.exec('ROLLBACK TO group_write')
          db.exec('RELEASE group_write')
          outcomes.push({ ok: false, error })
        }
      }
      if (!outer) db.exec('COMMIT')
    } catch (error) {
      // the commit itself failed (or a savepoint could not be rolled back): nothing of it holds
      if (db.isTransaction && !outer) db.exec('ROLLBACK')
      for (const write of batch) write.reject(error)
      return
    }
    if (!outer) commits += 1
    writes += batch.length
    for (const [i, write] of batch.entries()) {
      const outcome = outcomes[i]
      if (outcome?.ok) write.resolve(outcome.value)
      else write.reject(outcome?.error)
    }
  }

  return {
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        // the first write of a turn schedules the flush, after whatever else this turn asks for
        if (queue.length === 0) setImmediate(flush)
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
      })
    },
    counts: () => ({ commits, writes }),
  }
}

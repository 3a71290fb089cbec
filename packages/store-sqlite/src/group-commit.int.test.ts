import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, inTransaction, openSqliteDatabase } from './database.js'
import { createSqliteEventStore } from './event-store.js'
import { groupCommitOf } from './group-commit.js'

const killFixture = fileURLToPath(new URL('../dist/testing/group-commit-kill.js', import.meta.url))

let dir: string
let path: string
let db: DatabaseSync
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-group-commit-'))
  path = join(dir, 'chainpay.sqlite')
  db = openSqliteDatabase(path)
  db.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE)')
})
afterEach(() => {
  if (db.isOpen) db.close()
  rmSync(dir, { recursive: true, force: true })
})

const insert = (value: string) => () =>
  Number(db.prepare('INSERT INTO rows (value) VALUES (?)').run(value).lastInsertRowid)
const stored = (database: DatabaseSync) =>
  database
    .prepare('SELECT value FROM rows ORDER BY id')
    .all()
    .map((row) => row.value)

describe('groupCommitOf: the writes of one turn in one transaction', () => {
  it('commits 50 concurrent writes once, and answers each with its own result', async () => {
    const group = groupCommitOf(db)
    const before = group.counts()
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => group.run(insert(`v${i}`))))
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(group.counts()).toEqual({ commits: before.commits + 1, writes: before.writes + 50 })
    expect(groupCommitOf(db)).toBe(group)
  })

  it('answers a write only once it is committed: another connection sees it then, and not before', async () => {
    const other = openSqliteDatabase(path)
    try {
      const written = groupCommitOf(db).run(insert('seen'))
      expect(stored(other)).toEqual([])
      await written
      expect(stored(other)).toEqual(['seen'])
    } finally {
      other.close()
    }
  })

  it('rolls back a write that throws alone: its caller gets its error, the others commit', async () => {
    const group = groupCommitOf(db)
    const results = await Promise.allSettled([
      group.run(insert('a')),
      group.run(() => {
        insert('b')()
        insert('a')() // UNIQUE: the whole write goes, 'b' with it
      }),
      group.run(insert('c')),
    ])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/)
    expect(stored(db)).toEqual(['a', 'c'])
  })

  it('runs inTransaction within a group write as a savepoint of it', async () => {
    const group = groupCommitOf(db)
    await group.run(() => inTransaction(db, insert('nested')))
    await expect(group.run(() => inTransaction(db, () => insert('nested')()))).rejects.toThrow(/UNIQUE/)
    expect(stored(db)).toEqual(['nested'])
    expect(db.isTransaction).toBe(false)
  })

  it("joins a transaction its caller holds open, whose commit or rollback is the caller's", async () => {
    const group = groupCommitOf(db)
    db.exec('BEGIN')
    await group.run(insert('held'))
    db.exec('ROLLBACK')
    db.exec('BEGIN')
    await group.run(insert('kept'))
    db.exec('COMMIT')
    expect(stored(db)).toEqual(['kept'])
  })

  it('rejects every write of a turn whose transaction cannot begin, and commits the next turn', async () => {
    const other = openSqliteDatabase(path)
    try {
      other.exec('PRAGMA busy_timeout = 0')
      db.exec('PRAGMA busy_timeout = 0')
      other.exec('BEGIN IMMEDIATE')
      const group = groupCommitOf(db)
      const failed = await Promise.allSettled([group.run(insert('x')), group.run(insert('y'))])
      expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected'])
      other.exec('ROLLBACK')
      await group.run(insert('z'))
      expect(stored(db)).toEqual(['z'])
    } finally {
      other.close()
    }
  })
})

describe('kill -9 in the middle of a group commit', () => {
  it('keeps every acknowledged append, and nothing of the transaction it was killed in', async () => {
    db.close()
    const child = spawn(process.execPath, [killFixture, path, '300'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let errors = ''
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      output += text
    })
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      errors += text
    })
    // 'close', not 'exit': 'exit' can come before the last of its output is read (it did, on a busy
    // machine: 275 of 300 lines), 'close' only once its stdout and stderr are done
    const signal = await new Promise((resolve) =>
      child.once('close', (_code, exitSignal) => resolve(exitSignal)),
    )
    expect(errors).toBe('')
    expect(signal).toBe('SIGKILL')
    const acked = output
      .split('\n')
      .filter((line) => line.startsWith('acked '))
      .map((line) => line.slice('acked '.length))
    expect(acked.length).toBeGreaterThanOrEqual(300)

    const reopened = openSqliteDatabase(path)
    try {
      const store = createSqliteEventStore(reopened)
      const streams = new Set((await store.readAll(null, 100_000)).map((event) => event.streamId))
      // every answered append is there; none that was not answered: the killed transaction left nothing
      expect([...streams].sort()).toEqual([...acked].sort())
      await store.close()
    } finally {
      reopened.close()
    }
  })
})

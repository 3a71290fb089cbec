import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { StoreUnavailableError } from '@chainpay/ports'
import { afterEach, describe, expect, it } from 'vitest'
import { createSqliteCheckpointStore } from './checkpoints.js'
import { openSqliteDatabase } from './database.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** true when node:sqlite's `error` becomes the ports' StoreUnavailableError */
const isStoreUnavailable = (error: unknown) => translateSqliteFailure(error) instanceof StoreUnavailableError

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** what `work` throws */
function thrownBy(work: () => unknown): unknown {
  try {
    work()
  } catch (error) {
    return error
  }
  throw new Error('expected the work to throw')
}

function freshFile(): string {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-store-failures-'))
  directories.push(directory)
  return join(directory, 'chainpay.sqlite')
}

describe('translateSqliteFailure', () => {
  it('says yes to a database locked by another writer, also when wrapped', () => {
    const file = freshFile()
    const holder = new DatabaseSync(file)
    const waiter = new DatabaseSync(file)
    try {
      holder.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER) STRICT')
      waiter.exec('PRAGMA busy_timeout = 0')
      holder.exec('BEGIN IMMEDIATE')
      const busy = thrownBy(() => waiter.exec('INSERT INTO t VALUES (1)'))
      holder.exec('ROLLBACK')
      expect(busy).toMatchObject({ code: 'ERR_SQLITE_ERROR', errcode: 5 })
      expect(isStoreUnavailable(busy)).toBe(true)
      expect(translateSqliteFailure(busy)).toMatchObject({
        cause: busy,
        message: expect.stringMatching(/^SQLite: /),
      })
    } finally {
      waiter.close()
      holder.close()
    }
  })

  it('says yes to a closed database and to a statement it finalized on closing', () => {
    const db = new DatabaseSync(':memory:')
    const statement = db.prepare('SELECT 1 AS one')
    db.close()
    expect(isStoreUnavailable(thrownBy(() => db.exec('SELECT 1')))).toBe(true)
    expect(isStoreUnavailable(thrownBy(() => statement.get()))).toBe(true)
  })

  it('says yes to a database file that cannot be opened or written', () => {
    expect(isStoreUnavailable(thrownBy(() => new DatabaseSync(join(freshFile(), 'no-such-dir', 'x'))))).toBe(
      true,
    )
    const file = freshFile()
    const writer = new DatabaseSync(file)
    writer.exec('CREATE TABLE t (x INTEGER) STRICT')
    writer.close()
    const readOnly = new DatabaseSync(file, { readOnly: true })
    try {
      expect(isStoreUnavailable(thrownBy(() => readOnly.exec('INSERT INTO t VALUES (1)')))).toBe(true)
    } finally {
      readOnly.close()
    }
  })

  it('says no to a mistake in our own statements or data, which a retry never fixes', () => {
    const db = new DatabaseSync(':memory:')
    try {
      db.exec('CREATE TABLE t (x INTEGER NOT NULL) STRICT')
      expect(isStoreUnavailable(thrownBy(() => db.exec('SELEC 1')))).toBe(false)
      expect(isStoreUnavailable(thrownBy(() => db.exec('SELECT * FROM missing')))).toBe(false)
      expect(isStoreUnavailable(thrownBy(() => db.exec('INSERT INTO t VALUES (NULL)')))).toBe(false)
    } finally {
      db.close()
    }
  })

  it('says no to errors that are not a store speaking', () => {
    for (const error of [
      new Error('SQLITE_BUSY: database is locked'),
      new StoreUnavailableError('already translated'),
      new TypeError("Cannot read properties of undefined (reading 'status')"),
      Object.assign(new Error('stream already closed'), { code: 'ERR_INVALID_STATE' }),
      'database is locked',
      null,
    ]) {
      expect(isStoreUnavailable(error)).toBe(error instanceof StoreUnavailableError)
      expect(translateSqliteFailure(error)).toBe(error)
    }
  })
})

describe('the SQLite stores', () => {
  it('fail with StoreUnavailableError once their database is closed, thrown or rejected alike', async () => {
    const db = openSqliteDatabase(':memory:')
    const checkpoints = createSqliteCheckpointStore(db)
    await checkpoints.store('relay', '7')
    db.close()
    await expect(checkpoints.load('relay')).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(checkpoints.store('relay', '8')).rejects.toMatchObject({
      name: 'StoreUnavailableError',
      cause: { code: 'ERR_INVALID_STATE' },
    })
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase, sqliteSynchronousOf } from './database.js'

const directories: string[] = []
const opened: DatabaseSync[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const open = (options?: Parameters<typeof openSqliteDatabase>[1]) => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-database-'))
  directories.push(directory)
  const db = openSqliteDatabase(join(directory, 'chainpay.sqlite'), options)
  opened.push(db)
  return db
}
const pragma = (db: DatabaseSync, name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0]

describe('openSqliteDatabase', () => {
  it('syncs every commit to disk by default: WAL with synchronous FULL (2), so power loss loses no commit', () => {
    const db = open()
    expect(pragma(db, 'journal_mode')).toBe('wal')
    expect(pragma(db, 'synchronous')).toBe(2)
    expect(sqliteSynchronousOf(db)).toBe('FULL')
  })

  it('runs with synchronous NORMAL (1) only when asked to', () => {
    const db = open({ synchronous: 'NORMAL' })
    expect(pragma(db, 'synchronous')).toBe(1)
    expect(sqliteSynchronousOf(db)).toBe('NORMAL')
  })

  it('refuses a mode it does not know rather than splicing it into a PRAGMA', () => {
    expect(() => open({ synchronous: 'OFF; DROP TABLE x' as never })).toThrow(/unknown synchronous mode/)
  })
})

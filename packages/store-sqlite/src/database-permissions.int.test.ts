// The database file holds every merchant's sealed secrets: it, its -wal and -shm files and its
// directory are the owner's alone, whatever the process's umask.

import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteDatabase } from './database.js'

const modeOf = (path: string) => statSync(path).mode & 0o777

let root: string
let savedUmask: number
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'chainpay-sqlite-modes-'))
  savedUmask = process.umask()
})
afterEach(() => {
  process.umask(savedUmask)
  rmSync(root, { recursive: true, force: true })
})

function writeSomething(path: string) {
  const db = openSqliteDatabase(path)
  db.exec('CREATE TABLE IF NOT EXISTS t (x INTEGER) STRICT')
  db.prepare('INSERT INTO t (x) VALUES (1)').run()
  return db
}

describe.each([0o022, 0o000])('openSqliteDatabase under umask %o', (umask) => {
  beforeEach(() => {
    process.umask(umask)
  })

  it('creates the data directory 0700 and the database, its -wal and -shm files 0600', () => {
    const dataDir = join(root, 'data')
    const file = join(dataDir, 'chainpay.sqlite')
    const db = writeSomething(file)
    try {
      expect(existsSync(`${file}-wal`)).toBe(true)
      expect(existsSync(`${file}-shm`)).toBe(true)
      expect({
        dataDir: modeOf(dataDir),
        database: modeOf(file),
        wal: modeOf(`${file}-wal`),
        shm: modeOf(`${file}-shm`),
      }).toEqual({ dataDir: 0o700, database: 0o600, wal: 0o600, shm: 0o600 })
    } finally {
      db.close()
    }
  })
})

describe('openSqliteDatabase on an older installation', () => {
  it('tightens a data directory of its own and database files that others could read', () => {
    process.umask(0o022)
    const dataDir = join(root, 'data')
    mkdirSync(dataDir)
    const file = join(dataDir, 'chainpay.sqlite')
    const before = writeSomething(file)
    // as an earlier version left them, while the process runs (the -wal and -shm files exist)
    chmodSync(dataDir, 0o755)
    for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644)
    const db = openSqliteDatabase(file)
    try {
      expect([dataDir, file, `${file}-wal`, `${file}-shm`].map(modeOf)).toEqual([0o700, 0o600, 0o600, 0o600])
      expect(db.prepare('SELECT count(*) AS n FROM t').get()?.n).toBe(1)
    } finally {
      db.close()
      before.close()
    }
  })
})

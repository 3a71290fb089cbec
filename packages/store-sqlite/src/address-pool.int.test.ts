import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSqliteAddressPool } from './address-pool.js'
import { type DatabaseSync, openSqliteDatabase } from './database.js'

const pooled = (index: number) => ({
  index,
  address: `T-address-${index}`,
  derivationPath: `m/44'/195'/0'/0/${index}`,
})

describe('createSqliteAddressPool', () => {
  let dir: string
  let path: string
  let db: DatabaseSync
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chainpay-pool-'))
    path = join(dir, 'chainpay.sqlite')
    db = openSqliteDatabase(path)
  })
  afterEach(() => {
    if (db.isOpen) db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('hands out the lowest index first, each once, per pool', async () => {
    const store = createSqliteAddressPool(db)
    await store.add('TRON@a', [pooled(7), pooled(3)])
    await store.add('TRON@b', [pooled(1)])
    expect(await store.size('TRON@a')).toBe(2)
    expect(await store.take('TRON@a')).toEqual(pooled(3))
    expect(await store.take('TRON@a')).toEqual(pooled(7))
    expect(await store.take('TRON@a')).toBeNull()
    expect(await store.take('TRON@b')).toEqual(pooled(1))
  })

  it('drops the addresses of a pool below an index, and only those', async () => {
    const store = createSqliteAddressPool(db)
    await store.add('TRON@a', [pooled(3), pooled(4), pooled(5), pooled(9)])
    await store.add('TRON@b', [pooled(1)])
    expect(await store.dropBelow('TRON@a', 5)).toBe(2)
    expect(await store.dropBelow('TRON@a', 5)).toBe(0)
    expect(await store.take('TRON@a')).toEqual(pooled(5))
    expect(await store.size('TRON@a')).toBe(1)
    expect(await store.size('TRON@b')).toBe(1)
  })

  it('never hands one address to two concurrent takes', async () => {
    const store = createSqliteAddressPool(db)
    await store.add(
      'SOLANA@a',
      Array.from({ length: 30 }, (_, i) => pooled(i)),
    )
    const taken = await Promise.all(Array.from({ length: 40 }, () => store.take('SOLANA@a')))
    const indexes = taken.flatMap((entry) => (entry === null ? [] : [entry.index]))
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i))
    expect(taken.filter((entry) => entry === null)).toHaveLength(10)
  })

  it('keeps what was added and not taken across a reopen of the file', async () => {
    await createSqliteAddressPool(db).add('TRON@a', [pooled(0), pooled(1)])
    await createSqliteAddressPool(db).take('TRON@a')
    db.close()
    db = openSqliteDatabase(path)
    const reopened = createSqliteAddressPool(db)
    expect(await reopened.take('TRON@a')).toEqual(pooled(1))
    expect(await reopened.take('TRON@a')).toBeNull()
  })
})

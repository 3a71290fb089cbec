// The restore guard on a real SQLite file: after a restore of an older copy, no index a payment got
// since the copy is handed out again, from the counters or from the pool; after a clean stop nothing
// is skipped; after a crash at most a block.

import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addressFamily, defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import {
  createSqliteAddressAllocator,
  createSqliteAddressPool,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ADDRESS_MARKS_FILE, type AddressMarks, createAddressMarks, MARK_BLOCK } from './address-marks.js'

const TRON = addressFamily(defaultAssetRegistry, 'TRON')
const POOL = 'TRON@operator-key'
const MERCHANT_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'

let dir: string
let logged: Array<{ level: string; msg: string; counters?: unknown; poolDropped?: unknown }>

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-marks-'))
  logged = []
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** payment-command's part as it starts on `file`: the guard run, the allocator and pool wrapped */
async function start(file: string) {
  const db = openSqliteDatabase(file)
  const logger = createRootLogger({
    service: 'test',
    level: 'info',
    destination: { write: (line: string) => logged.push(JSON.parse(line)) },
  })
  const marks = createAddressMarks({
    file: join(dir, ADDRESS_MARKS_FILE),
    allocator: createSqliteAddressAllocator(db),
    pool: createSqliteAddressPool(db),
    registry: defaultAssetRegistry,
    poolOf: (chain) => `${chain}@operator-key`,
    logger,
  })
  await marks.guard()
  return { db, marks }
}

/** an address for a payment of the operator's wallet: from the pool, else allocated on the spot */
async function handOut(marks: AddressMarks): Promise<number> {
  const pooled = await marks.pool.take(POOL)
  return pooled?.index ?? (await marks.allocator.allocate(TRON))
}

/** what the pool refill does: `count` indexes from the allocator into the pool */
async function refill(marks: AddressMarks, count: number): Promise<void> {
  const addresses = []
  for (let i = 0; i < count; i++) {
    const index = await marks.allocator.allocate(TRON)
    addresses.push({ index, address: `T${index}`, derivationPath: `m/44'/195'/0'/0/${index}` })
  }
  await marks.pool.add(POOL, addresses)
}

describe('address marks', () => {
  it('after a restore of an older copy, hands out no index a payment got since the copy, and warns', async () => {
    const live = join(dir, 'chainpay.sqlite')
    const first = await start(live)
    await refill(first.marks, 20)
    const before: number[] = []
    for (let i = 0; i < 5; i++) before.push(await handOut(first.marks))
    await first.marks.allocator.allocate(TRON, MERCHANT_KEY)
    first.db.close()
    // the backup (the file, closed: the same bytes as SQLite's backup writes)
    const copy = join(dir, 'backup.sqlite')
    copyFileSync(live, copy)

    // the life the restore will lose: payments from the pool, the pool refilled, a merchant's key
    const second = await start(live)
    const lost: number[] = []
    for (let i = 0; i < 18; i++) lost.push(await handOut(second.marks))
    await refill(second.marks, 3)
    lost.push(await handOut(second.marks))
    const lostOfMerchant = await second.marks.allocator.allocate(TRON, MERCHANT_KEY)
    second.marks.close()
    second.db.close()

    // the restore: the copy put in place of the database, the marks file kept
    copyFileSync(copy, live)
    rmSync(`${live}-wal`, { force: true })
    rmSync(`${live}-shm`, { force: true })
    logged = []
    const restored = await start(live)
    const warning = logged.find((line) => line.level === 'warn')
    expect(warning?.msg).toMatch(/^the database is behind the address marks: it was restored from a copy/)
    const next: number[] = []
    for (let i = 0; i < 30; i++) next.push(await handOut(restored.marks))
    await refill(restored.marks, 10)
    for (let i = 0; i < 10; i++) next.push(await handOut(restored.marks))
    for (const index of next) {
      expect(lost).not.toContain(index)
      expect(before).not.toContain(index)
    }
    expect(await restored.marks.allocator.allocate(TRON, MERCHANT_KEY)).toBeGreaterThan(lostOfMerchant)
    restored.marks.close()
    restored.db.close()
  })

  it('after a clean stop skips nothing and says nothing; the file is the owner’s alone', async () => {
    const live = join(dir, 'chainpay.sqlite')
    const first = await start(live)
    await refill(first.marks, 10)
    const handed = [await handOut(first.marks), await handOut(first.marks)]
    first.marks.close()
    first.db.close()
    expect(statSync(join(dir, ADDRESS_MARKS_FILE)).mode & 0o777).toBe(0o600)

    logged = []
    const second = await start(live)
    expect(logged).toEqual([])
    // the pool goes on where it was, and the counter too
    expect([await handOut(second.marks), await handOut(second.marks)]).toEqual([2, 3])
    expect(handed).toEqual([0, 1])
    await second.marks.pool.dropBelow(POOL, 1_000)
    expect(await handOut(second.marks)).toBe(10)
    second.marks.close()
    second.db.close()
  })

  it('after a crash skips at most a block of indexes', async () => {
    const live = join(dir, 'chainpay.sqlite')
    const first = await start(live)
    // the first index moves the mark a block ahead; the next two are below it
    for (let i = 0; i < 3; i++) await handOut(first.marks)
    // no close: a kill -9
    first.db.close()
    expect(JSON.parse(readFileSync(join(dir, ADDRESS_MARKS_FILE), 'utf8'))).toMatchObject({
      clean: false,
      allocated: { TRON: 1 + MARK_BLOCK },
    })
    logged = []
    const second = await start(live)
    expect(logged.map((line) => line.msg)).toEqual([
      'after an unclean stop, address indexes reserved by the address marks are skipped',
    ])
    expect(await handOut(second.marks)).toBe(1 + MARK_BLOCK)
    second.marks.close()
    second.db.close()
  })

  it('after a restore on another machine, takes the marks an operator wrote by hand: counters and pool past them', async () => {
    const live = join(dir, 'chainpay.sqlite')
    const first = await start(live)
    await refill(first.marks, 20)
    const before = [await handOut(first.marks), await handOut(first.marks)]
    first.db.close()
    // the old machine is gone with its marks; the copy's counter is 20: the operator adds a margin
    writeFileSync(
      join(dir, ADDRESS_MARKS_FILE),
      JSON.stringify({ version: 1, clean: false, allocated: { TRON: 1020 }, taken: { TRON: 1020 } }),
    )
    logged = []
    const restored = await start(live)
    expect(logged.map((line) => line.level)).toEqual(['warn'])
    expect(logged[0]?.poolDropped).toEqual([{ pool: POOL, below: 1020, count: 18 }])
    expect(await handOut(restored.marks)).toBe(1020)
    expect(before).toEqual([0, 1])
    restored.marks.close()
    restored.db.close()
  })

  it('refuses a marks file it cannot read, naming it', async () => {
    writeFileSync(join(dir, ADDRESS_MARKS_FILE), '{"version":1,"allocated":{"TRON":-1},"taken":{}}')
    await expect(start(join(dir, 'chainpay.sqlite'))).rejects.toThrow(
      /address-marks.json: not an address marks file/,
    )
  })
})

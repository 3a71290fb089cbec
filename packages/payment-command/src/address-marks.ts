// The restore guard (docs/operations.md, "Backup and restore"). A database restored from a copy has
// the address counters and the address pool of the time of the copy: without this, the next payments
// would get the addresses of the payments created after the copy, which the restore lost, and a
// late transfer to one of those would be credited to a stranger. So a file kept next to the database
// and never restored with it (DATA_DIR/address-marks.json) holds, per key, a mark above every index
// handed out: `allocated` for the allocator's counters, `taken` for the addresses taken from the
// pool. A mark is moved ahead by a block before an index reaches it, so the file is written (with
// fsync) once per MARK_BLOCK payments, not per payment; a clean stop writes the exact marks.
//
// At start, before anything allocates, every counter is raised to its mark and every pooled address
// below its mark is dropped. After a clean stop and no restore, nothing moves. After a crash, at most
// a block of indexes is skipped (indexes are free; an address is never handed out twice). After a
// restore, the indexes the copy lost are skipped, and a warning says so.

import { readFileSync } from 'node:fs'
import { type AddressFamily, type AssetRegistry, addressFamily, type Chain } from '@chainpay/domain'
import { type Logger, writePrivateFileAtomically } from '@chainpay/platform'
import { type AddressIndexAllocator, type AddressPoolStore, allocationKey } from '@chainpay/ports'

/** the marks' file in DATA_DIR, next to chainpay.sqlite and never restored with it */
export const ADDRESS_MARKS_FILE = 'address-marks.json'

/** how far a mark is moved ahead of the index that reached it */
export const MARK_BLOCK = 100

interface MarksFile {
  version: 1
  /** false while a process runs: a start that finds it false follows a crash (or a kill -9) */
  clean: boolean
  /** per allocation key (allocationKey): above every index the allocator handed out */
  allocated: Record<string, number>
  /**
   * per pool name (`TRON@<key id>`): above every index taken from the pool; a chain alone (`TRON`),
   * as an operator writes it after a restore on another machine, names the operator's current pool
   */
  taken: Record<string, number>
}

export interface AddressMarks {
  /** the allocator, each index recorded below its key's mark before it is handed out */
  allocator: AddressIndexAllocator
  /** the pool store, each address taken recorded below its pool's mark before it is handed out */
  pool: AddressPoolStore
  /** raises the counters and drops the pooled addresses below the marks; before anything allocates */
  guard(): Promise<void>
  /** writes the exact marks, as after a clean stop; after the last allocation */
  close(): void
}

export function createAddressMarks(options: {
  file: string
  allocator: AddressIndexAllocator
  pool: AddressPoolStore
  /** the registry the families come from (a key's family: its chain and every network on it) */
  registry: AssetRegistry
  /** the pool of the operator's current key of a chain */
  poolOf(chain: Chain): string
  logger: Logger
}): AddressMarks {
  const { file, registry, logger } = options
  const found = readMarks(file)
  const marks: MarksFile = found ?? { version: 1, clean: false, allocated: {}, taken: {} }
  /** the exact marks of this run: one above the highest index handed out, per key */
  const exact: Pick<MarksFile, 'allocated' | 'taken'> = {
    allocated: { ...marks.allocated },
    taken: { ...marks.taken },
  }
  const save = (clean: boolean, values: Pick<MarksFile, 'allocated' | 'taken'>) => {
    marks.clean = clean
    writePrivateFileAtomically(file, `${JSON.stringify({ ...values, version: 1, clean }, null, 2)}\n`)
  }
  /** records `index` as handed out under `key`; writes the file first when it reaches the mark */
  const record = (kind: 'allocated' | 'taken', key: string, index: number) => {
    exact[kind][key] = Math.max(exact[kind][key] ?? 0, index + 1)
    if (index + 1 > (marks[kind][key] ?? 0)) {
      marks[kind][key] = index + 1 + MARK_BLOCK
      save(false, marks)
    }
  }
  const { allocator, pool } = options

  return {
    allocator: {
      async allocate(family, keyId) {
        const index = await allocator.allocate(family, keyId)
        record('allocated', allocationKey(family, keyId), index)
        return index
      },
      raiseTo: (family, next, keyId) => allocator.raiseTo(family, next, keyId),
    },
    pool: {
      add: (name, addresses) => pool.add(name, addresses),
      async take(name) {
        const taken = await pool.take(name)
        if (taken !== null) record('taken', name, taken.index)
        return taken
      },
      size: (name) => pool.size(name),
      dropBelow: (name, index) => pool.dropBelow(name, index),
    },
    async guard() {
      // a pool's addresses come from its chain's operator counter: that counter starts past the
      // pool's mark too, so that no address added from now on is below it
      const targets = { ...marks.allocated }
      for (const [name, mark] of Object.entries(marks.taken)) {
        const chain = name.split('@')[0] ?? name
        targets[chain] = Math.max(targets[chain] ?? 0, mark)
      }
      const moved: Array<{ key: string; from: number; to: number }> = []
      for (const [key, mark] of Object.entries(targets)) {
        exact.allocated[key] = Math.max(exact.allocated[key] ?? 0, mark)
        const { family, keyId } = familyOf(registry, key)
        const before = await allocator.raiseTo(family, mark, keyId)
        if (before < mark) moved.push({ key, from: before, to: mark })
      }
      const dropped: Array<{ pool: string; below: number; count: number }> = []
      for (const [name, mark] of Object.entries(marks.taken)) {
        const poolName = name.includes('@') ? name : options.poolOf(chainOf(name))
        const count = await pool.dropBelow(poolName, mark)
        if (count > 0) dropped.push({ pool: poolName, below: mark, count })
      }
      // a crash leaves the marks up to a block ahead; more than that, or anything after a clean
      // stop, is a database behind what this installation handed out: a restored copy
      const restored =
        (found?.clean === true && (moved.length > 0 || dropped.length > 0)) ||
        moved.some(({ from, to }) => to - from > MARK_BLOCK) ||
        dropped.some(({ count }) => count > MARK_BLOCK)
      if (restored) {
        logger.warn(
          { file, counters: moved, poolDropped: dropped },
          'the database is behind the address marks: it was restored from a copy (or lost writes); the address counters now start past every index handed out before, and the pooled addresses taken since the copy are dropped, so that no payment gets the address of one the copy lost. Payments created after the copy are unknown to this database: see docs/operations.md, "Backup and restore"',
        )
      } else if (moved.length > 0 || dropped.length > 0) {
        logger.info(
          { file, counters: moved, poolDropped: dropped },
          'after an unclean stop, address indexes reserved by the address marks are skipped',
        )
      } else if (found === undefined) {
        logger.info({ file }, 'address marks created: a restored database will not hand out addresses again')
      }
      // from now on a stop without close() is unclean
      save(false, marks)
    },
    close() {
      save(true, exact)
    },
  }
}

function readMarks(file: string): MarksFile | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const parsed = JSON.parse(text) as Partial<MarksFile>
  const valid = (record: unknown): record is Record<string, number> =>
    typeof record === 'object' &&
    record !== null &&
    Object.values(record).every((value) => Number.isSafeInteger(value) && (value as number) >= 0)
  if (parsed.version !== 1 || !valid(parsed.allocated) || !valid(parsed.taken)) {
    throw new Error(
      `${file}: not an address marks file (version 1, allocated and taken: indexes per key); fix or remove it (docs/operations.md, "Backup and restore")`,
    )
  }
  return { version: 1, clean: parsed.clean === true, allocated: parsed.allocated, taken: parsed.taken }
}

function chainOf(name: string): Chain {
  if (name !== 'TRON' && name !== 'SOLANA') throw new Error(`address marks: unknown chain ${name}`)
  return name
}

/** an allocation key's family and key id: `TRON`, or `TRON/<key id>` for a merchant wallet's key */
function familyOf(registry: AssetRegistry, key: string): { family: AddressFamily; keyId?: string } {
  const [chain, keyId] = key.split('/') as [Chain, string | undefined]
  if (chain !== 'TRON' && chain !== 'SOLANA') throw new Error(`address marks: unknown chain in ${key}`)
  return { family: addressFamily(registry, chain), ...(keyId === undefined ? {} : { keyId }) }
}

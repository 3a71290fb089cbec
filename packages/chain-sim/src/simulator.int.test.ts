import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { DomainError, defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import type { ChainBlock } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { simulatedAddress } from './chain-format.js'
import { type ChainSimulator, createChainSimulator, type SimulatedNetwork } from './simulator.js'

const logger = createRootLogger({ service: 'chain-sim-test', level: 'silent' })
const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'
const USDT_TRC20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

let directory: string
let path: string
const opened: Array<{ db: DatabaseSync; simulator: ChainSimulator }> = []

function open(
  networks: SimulatedNetwork[] = [
    { network: 'TRON', blockIntervalMs: 60_000 },
    { network: 'SOLANA', blockIntervalMs: 60_000 },
  ],
  clock?: () => Date,
) {
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL')
  try {
    const simulator = createChainSimulator({ db, registry: defaultAssetRegistry, networks, logger, clock })
    opened.push({ db, simulator })
    return { db, simulator }
  } catch (error) {
    db.close()
    throw error
  }
}

async function close({ db, simulator }: { db: DatabaseSync; simulator: ChainSimulator }) {
  await simulator.stop()
  if (db.isOpen) db.close()
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'chain-sim-'))
  path = join(directory, 'chainpay.sqlite')
})

afterEach(async () => {
  for (const entry of opened.splice(0)) await close(entry)
  rmSync(directory, { recursive: true, force: true })
})

async function blockOf(simulator: ChainSimulator, network: string, txHash: string): Promise<ChainBlock> {
  const head = await simulator.head(network)
  const blocks = await simulator.client(network).getBlocks(1, head.height)
  const block = blocks.find((candidate) => candidate.transfers.some((transfer) => transfer.txHash === txHash))
  if (!block) throw new Error(`transaction ${txHash} is in no block`)
  return block
}

describe('createChainSimulator', () => {
  it('starts each network at block 1, linked to the genesis parent, timed by the clock', async () => {
    const { simulator } = open(undefined, () => new Date('2026-11-21T14:03:07.123Z'))
    const [tron] = await simulator.client('TRON').getBlocks(1, 1)
    expect(tron).toMatchObject({ height: 1, parentHash: '0'.repeat(64), time: '2026-11-21T14:03:07.123Z' })
    expect(tron?.hash).toMatch(/^0{15}1[0-9a-f]{48}$/)
    const solanaHead = await simulator.head('SOLANA')
    expect(solanaHead.height).toBe(1)
    expect((await simulator.client('SOLANA').getBlocks(1, 1))[0]?.parentHash).toBe('1'.repeat(32))
    expect(simulator.networks).toEqual(['TRON', 'SOLANA'])
  })

  it('refuses networks outside the registry and bad intervals', () => {
    expect(() => open([{ network: 'BITCOIN', blockIntervalMs: 1000 }])).toThrow(/not in the asset registry/)
    expect(() => open([{ network: 'TRON', blockIntervalMs: 0 }])).toThrow(/blockIntervalMs/)
  })

  it('matches network names ignoring case and answers NOT_FOUND for networks it does not run', async () => {
    const { simulator } = open([{ network: 'tron', blockIntervalMs: 60_000 }])
    expect(simulator.networkNamed('Tron')).toBe('TRON')
    expect(simulator.networkNamed('SOLANA')).toBeUndefined()
    expect(simulator.client('tron').network).toBe('TRON')
    await expect(simulator.head('SOLANA')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(simulator.mineBlocks('BITCOIN', 1)).rejects.toBeInstanceOf(DomainError)
  })
})

describe('submitTransfer', () => {
  it('converts the amount with the asset decimals and uses the registry contract', async () => {
    const { simulator } = open()
    const to = simulatedAddress('TRON')
    const native = await simulator.submitTransfer('tron', { to, amount: '1.5', currency: 'TRX' })
    const token = await simulator.submitTransfer('TRON', { to, amount: '0.000001', currency: 'USDT' })
    const sol = await simulator.submitTransfer('SOLANA', {
      to: 'ata',
      amount: '2.000000001',
      currency: 'SOL',
    })
    const usdc = await simulator.submitTransfer('SOLANA', { to: 'ata', amount: '25', currency: 'USDC' })
    await simulator.mineBlocks('TRON', 1)
    await simulator.mineBlocks('SOLANA', 1)

    const tronBlock = await blockOf(simulator, 'TRON', native.txHash)
    expect(
      tronBlock.transfers.map(({ txHash, asset, amountUnits, to: receiver }) => ({
        txHash,
        asset,
        amountUnits,
        receiver,
      })),
    ).toEqual([
      { txHash: native.txHash, asset: { kind: 'native' }, amountUnits: '1500000', receiver: to },
      {
        txHash: token.txHash,
        asset: { kind: 'token', contract: USDT_TRC20 },
        amountUnits: '1',
        receiver: to,
      },
    ])
    expect(native.txHash).toMatch(/^[0-9a-f]{64}$/)
    const solanaBlock = await blockOf(simulator, 'SOLANA', sol.txHash)
    expect(solanaBlock.transfers.map((transfer) => [transfer.asset, transfer.amountUnits])).toEqual([
      [{ kind: 'native' }, '2000000001'],
      [{ kind: 'token', contract: USDC_MINT }, '25000000'],
    ])
    expect(usdc.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,88}$/)
  })

  it('makes a counterfeit token when the contract is overridden', async () => {
    const { simulator } = open()
    const from = simulatedAddress('TRON')
    const { txHash } = await simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '100',
      currency: 'USDT',
      contract: COUNTERFEIT_USDT,
      from,
    })
    await simulator.mineBlocks('TRON', 1)
    const [transfer] = (await blockOf(simulator, 'TRON', txHash)).transfers
    expect(transfer).toMatchObject({
      from,
      asset: { kind: 'token', contract: COUNTERFEIT_USDT },
      amountUnits: '100000000',
      success: true,
    })
  })

  it('includes a failed transfer with success=false', async () => {
    const { simulator } = open()
    const { txHash } = await simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '3',
      currency: 'SOL',
      fail: true,
    })
    await simulator.mineBlocks('SOLANA', 1)
    const block = await blockOf(simulator, 'SOLANA', txHash)
    expect(block.height).toBe(2)
    expect(block.transfers).toEqual([
      expect.objectContaining({ txHash, success: false, amountUnits: '3000000000' }),
    ])
  })

  it('rejects malformed amounts, unknown currencies and empty addresses', async () => {
    const { simulator } = open()
    const to = simulatedAddress('TRON')
    for (const amount of ['1.0000001', '-1', '1e3', '', '01']) {
      await expect(simulator.submitTransfer('TRON', { to, amount, currency: 'USDT' })).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      })
    }
    await expect(
      simulator.submitTransfer('TRON', { to, amount: '1', currency: 'SOL' }),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_ASSET',
    })
    await expect(
      simulator.submitTransfer('TRON', { to: ' ', amount: '1', currency: 'TRX' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    })
    expect((await simulator.client('TRON').getBlocks(1, 10)).flatMap((block) => block.transfers)).toEqual([])
  })
})

describe('mineBlocks', () => {
  it('mines contiguous, linked blocks with the mempool in submission order, in the first of them', async () => {
    const { simulator } = open()
    const submitted = []
    for (const amount of ['1', '2', '3']) {
      submitted.push((await simulator.submitTransfer('TRON', { to: 'TX', amount, currency: 'TRX' })).txHash)
    }
    const head = await simulator.mineBlocks('TRON', 3)
    expect(head.height).toBe(4)
    const blocks = await simulator.client('TRON').getBlocks(1, 4)
    expect(blocks.map((block) => block.height)).toEqual([1, 2, 3, 4])
    expect(blocks.map((block) => block.transfers.map((transfer) => transfer.txHash))).toEqual([
      [],
      submitted,
      [],
      [],
    ])
    for (let height = 1; height < 4; height += 1) {
      expect(blocks[height]?.parentHash).toBe(blocks[height - 1]?.hash)
    }
    expect(head).toEqual({ height: 4, hash: blocks[3]?.hash, time: blocks[3]?.time })
    expect(await simulator.mineBlocks('TRON', 0)).toEqual(head)
    await expect(simulator.mineBlocks('TRON', -1)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('never lets block time go backwards, whatever the clock says', async () => {
    let now = new Date('2026-11-21T14:00:00.000Z')
    const { simulator } = open(undefined, () => now)
    now = new Date('2026-11-21T13:00:00.000Z')
    const head = await simulator.mineBlocks('SOLANA', 1)
    expect(head.time).toBe('2026-11-21T14:00:00.000Z')
    now = new Date('2026-11-21T14:00:03.000Z')
    expect((await simulator.mineBlocks('SOLANA', 1)).time).toBe('2026-11-21T14:00:03.000Z')
  })
})

describe('block production on a timer', () => {
  it('is named for the service runner, so that its log lines say what it is', () => {
    const { simulator } = open()
    expect(simulator.name).toBe('chain simulator')
  })

  it('produces blocks by itself once started and stops when told', async () => {
    const { simulator } = open([{ network: 'SOLANA', blockIntervalMs: 20 }])
    const { txHash } = await simulator.submitTransfer('SOLANA', { to: 'ata', amount: '1', currency: 'USDC' })
    await simulator.start()
    await simulator.start()
    await expect
      .poll(async () => (await simulator.head('SOLANA')).height, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(4)
    expect((await blockOf(simulator, 'SOLANA', txHash)).height).toBe(2)
    await simulator.stop()
    await simulator.stop()
    const stoppedAt = await simulator.head('SOLANA')
    expect((await simulator.mineBlocks('SOLANA', 1)).height).toBe(stoppedAt.height + 1)
  })
})

describe('durability', () => {
  it('keeps the chain and the mempool across close and reopen, and continues from the stored head', async () => {
    const first = open()
    await first.simulator.mineBlocks('TRON', 2)
    const mined = await first.simulator.submitTransfer('TRON', { to: 'TX', amount: '4', currency: 'TRX' })
    await first.simulator.mineBlocks('TRON', 1)
    const pending = await first.simulator.submitTransfer('TRON', { to: 'TY', amount: '5', currency: 'TRX' })
    const storedHead = await first.simulator.head('TRON')
    const storedBlocks = await first.simulator.client('TRON').getBlocks(1, storedHead.height)
    // no stop(): the process just goes away
    first.db.close()

    const second = open()
    expect(await second.simulator.head('TRON')).toEqual(storedHead)
    expect(await second.simulator.client('TRON').getBlocks(1, storedHead.height)).toEqual(storedBlocks)
    expect((await blockOf(second.simulator, 'TRON', mined.txHash)).height).toBe(4)

    const next = await second.simulator.mineBlocks('TRON', 1)
    expect(next.height).toBe(storedHead.height + 1)
    const [block] = await second.simulator.client('TRON').getBlocks(next.height, next.height)
    expect(block?.parentHash).toBe(storedHead.hash)
    expect(block?.transfers.map((transfer) => [transfer.txHash, transfer.amountUnits])).toEqual([
      [pending.txHash, '5000000'],
    ])
  })

  it('resumes timed production from the stored head after a restart', async () => {
    const first = open([{ network: 'TRON', blockIntervalMs: 20 }])
    const storedHead = await first.simulator.mineBlocks('TRON', 5)
    await close(first)

    const second = open([{ network: 'TRON', blockIntervalMs: 20 }])
    await second.simulator.start()
    await expect
      .poll(async () => (await second.simulator.head('TRON')).height, { timeout: 10_000 })
      .toBeGreaterThan(storedHead.height)
    await second.simulator.stop()
    const [next] = await second.simulator
      .client('TRON')
      .getBlocks(storedHead.height + 1, storedHead.height + 1)
    expect(next?.parentHash).toBe(storedHead.hash)
  })
})

describe('dropTransaction', () => {
  it('replaces the block holding it and every later block, keeping heights, times and other transfers', async () => {
    const { simulator } = open()
    const kept = await simulator.submitTransfer('SOLANA', { to: 'a', amount: '1', currency: 'SOL' })
    const dropped = await simulator.submitTransfer('SOLANA', { to: 'b', amount: '2', currency: 'SOL' })
    await simulator.mineBlocks('SOLANA', 1)
    const later = await simulator.submitTransfer('SOLANA', { to: 'c', amount: '3', currency: 'SOL' })
    const head = await simulator.mineBlocks('SOLANA', 2)
    const before = await simulator.client('SOLANA').getBlocks(1, head.height)

    expect(await simulator.dropTransaction('solana', dropped.txHash)).toBe(true)

    const after = await simulator.client('SOLANA').getBlocks(1, head.height)
    expect(after.map((block) => [block.height, block.time])).toEqual(
      before.map((block) => [block.height, block.time]),
    )
    expect(after[0]?.hash).toBe(before[0]?.hash)
    for (const height of [2, 3, 4]) {
      expect(after[height - 1]?.hash).not.toBe(before[height - 1]?.hash)
      expect(after[height - 1]?.parentHash).toBe(after[height - 2]?.hash)
    }
    expect(after[1]?.transfers.map((transfer) => transfer.txHash)).toEqual([kept.txHash])
    expect(after[2]?.transfers.map((transfer) => transfer.txHash)).toEqual([later.txHash])
    expect(await simulator.head('SOLANA')).toEqual({
      height: head.height,
      hash: after[3]?.hash,
      time: head.time,
    })
  })

  it('takes a transaction out of the mempool before it is mined', async () => {
    const { simulator } = open()
    const { txHash } = await simulator.submitTransfer('TRON', { to: 'TX', amount: '1', currency: 'TRX' })
    const head = await simulator.head('TRON')
    expect(await simulator.dropTransaction('TRON', txHash)).toBe(true)
    expect(await simulator.head('TRON')).toEqual(head)
    await simulator.mineBlocks('TRON', 1)
    expect((await simulator.client('TRON').getBlocks(1, 2)).flatMap((block) => block.transfers)).toEqual([])
  })

  it('returns false for a transaction it does not know, also one of another network', async () => {
    const { simulator } = open()
    const { txHash } = await simulator.submitTransfer('TRON', { to: 'TX', amount: '1', currency: 'TRX' })
    expect(await simulator.dropTransaction('SOLANA', txHash)).toBe(false)
    expect(await simulator.dropTransaction('TRON', 'f'.repeat(64))).toBe(false)
  })
})

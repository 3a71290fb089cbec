import type { DatabaseSync } from 'node:sqlite'
import { DomainError } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { simulatedAddress } from './chain-format.js'
import type { ChainSimulator } from './simulator.js'
import { openTestSimulator, type TestSimulator, testNetworks } from './testing/simulator-node.js'

const USDT_TRC20 = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

let chain: TestSimulator
let db: DatabaseSync
let simulator: ChainSimulator

beforeEach(() => {
  chain = openTestSimulator({ networks: testNetworks('TRON', 'SOLANA') })
  ;({ db, simulator } = chain)
})

afterEach(() => chain.close())

describe('chain simulator transactions', () => {
  it('keeps several TRC20 transfers of one TRON transaction in order, indexed by position', async () => {
    const from = simulatedAddress('TRON')
    const [first, second] = [simulatedAddress('TRON'), simulatedAddress('TRON')]
    const { txHash } = await simulator.submitTransaction('TRON', {
      from,
      transfers: [
        { to: first, amount: '1.5', currency: 'USDT' },
        { to: second, amount: '2', currency: 'USDT', contract: COUNTERFEIT_USDT },
      ],
    })
    const head = await simulator.mineBlocks('TRON', 1)
    const [block] = await simulator.client('TRON').getBlocks(head.height, head.height)
    expect(block?.transfers).toEqual([
      {
        txHash,
        index: 0,
        from,
        to: first,
        asset: { kind: 'token', contract: USDT_TRC20 },
        amountUnits: '1500000',
        success: true,
      },
      {
        txHash,
        index: 1,
        from,
        to: second,
        asset: { kind: 'token', contract: COUNTERFEIT_USDT },
        amountUnits: '2000000',
        success: true,
      },
    ])
    const [details] = await simulator.blockDetails('TRON', head.height, head.height)
    expect(details).toMatchObject({ height: head.height, hash: head.hash, time: head.time })
    expect(details?.transactions).toEqual([
      {
        txHash,
        from,
        failure: null,
        transfers: [
          { to: first, contract: USDT_TRC20, amountUnits: '1500000', decimals: 6 },
          { to: second, contract: COUNTERFEIT_USDT, amountUnits: '2000000', decimals: 6 },
        ],
        submittedAt: expect.any(String),
      },
    ])
  })

  it('mixes SOL and SPL transfers in one Solana transaction', async () => {
    const owner = simulatedAddress('SOLANA')
    const tokenAccount = simulatedAddress('SOLANA')
    const { txHash } = await simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: owner, amount: '0.000000001', currency: 'SOL' },
        { to: tokenAccount, amount: '3', currency: 'USDC' },
      ],
    })
    const head = await simulator.mineBlocks('SOLANA', 1)
    const [details] = await simulator.blockDetails('SOLANA', head.height, head.height)
    expect(details?.transactions[0]).toMatchObject({
      txHash,
      failure: null,
      transfers: [
        { to: owner, contract: null, amountUnits: '1', decimals: 9 },
        { to: tokenAccount, contract: USDC_MINT, amountUnits: '3000000', decimals: 6 },
      ],
    })
  })

  it('records how a transaction failed, and a plain failed transfer as the chain default', async () => {
    const outOfEnergy = await simulator.submitTransaction('TRON', {
      transfers: [{ to: simulatedAddress('TRON'), amount: '1', currency: 'USDT' }],
      failure: 'OUT_OF_ENERGY',
    })
    const reverted = await simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '1',
      currency: 'USDT',
      fail: true,
    })
    const head = await simulator.mineBlocks('TRON', 1)
    const [details] = await simulator.blockDetails('TRON', head.height, head.height)
    expect(details?.transactions.map(({ txHash, failure }) => ({ txHash, failure }))).toEqual([
      { txHash: outOfEnergy.txHash, failure: 'OUT_OF_ENERGY' },
      { txHash: reverted.txHash, failure: 'REVERT' },
    ])
    const [block] = await simulator.client('TRON').getBlocks(head.height, head.height)
    expect(block?.transfers.map((transfer) => transfer.success)).toEqual([false, false])
  })

  it('refuses what the chain cannot carry', async () => {
    const to = simulatedAddress('TRON')
    const rejected = [
      simulator.submitTransaction('TRON', {
        transfers: [
          { to, amount: '1', currency: 'TRX' },
          { to, amount: '1', currency: 'USDT' },
        ],
      }),
      simulator.submitTransaction('TRON', { transfers: [] }),
      simulator.submitTransaction('TRON', {
        transfers: [{ to, amount: '1', currency: 'USDT' }],
        failure: 'INSTRUCTION_ERROR',
      }),
      simulator.submitTransaction('SOLANA', {
        transfers: [{ to, amount: '1', currency: 'SOL' }],
        failure: 'REVERT',
      }),
      simulator.submitTransaction('TRON', { transfers: [{ to: '', amount: '1', currency: 'USDT' }] }),
    ]
    for (const attempt of rejected) {
      await expect(attempt).rejects.toBeInstanceOf(DomainError)
    }
    await expect(
      simulator.submitTransaction('TRON', { transfers: [{ to: '', amount: '1', currency: 'USDT' }] }),
    ).rejects.toThrow(/transfers\[0\]\.to/)
  })

  it('drops every transfer of a dropped transaction', async () => {
    const { txHash } = await simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: simulatedAddress('SOLANA'), amount: '1', currency: 'SOL' },
        { to: simulatedAddress('SOLANA'), amount: '2', currency: 'SOL' },
      ],
    })
    const head = await simulator.mineBlocks('SOLANA', 2)
    expect(await simulator.dropTransaction('SOLANA', txHash)).toBe(true)
    const blocks = await simulator.blockDetails('SOLANA', 1, head.height)
    expect(blocks.flatMap((block) => block.transactions)).toEqual([])
  })

  it('finalizes TRON 18 and Solana 31 blocks below the head, never below 0', async () => {
    expect(await simulator.finalizedHeight('TRON')).toBe(0)
    const tron = await simulator.mineBlocks('TRON', 30)
    expect(await simulator.finalizedHeight('TRON')).toBe(tron.height - 18)
    const solana = await simulator.mineBlocks('SOLANA', 40)
    expect(await simulator.finalizedHeight('solana')).toBe(solana.height - 31)
  })

  it('moves transfers kept by an earlier build into the multi-transfer table once', async () => {
    await simulator.stop()
    // as an earlier build left its file: no schema version (docs/operations.md, "Upgrades and rollbacks")
    db.exec(`
      DELETE FROM schema_versions WHERE component = 'chain-simulator';
      CREATE TABLE sim_transactions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, network TEXT NOT NULL, tx_hash TEXT NOT NULL,
        block_height INTEGER, from_address TEXT NOT NULL, to_address TEXT NOT NULL, contract TEXT,
        amount_units TEXT NOT NULL, success INTEGER NOT NULL, submitted_at TEXT NOT NULL,
        UNIQUE (network, tx_hash));
      INSERT INTO sim_transactions
        (network, tx_hash, block_height, from_address, to_address, contract, amount_units, success, submitted_at)
      VALUES ('TRON', 'aa', NULL, 'Tfrom', 'Tto', NULL, '5', 0, '2026-11-21T00:00:00.000Z');
    `)
    const reopened = openTestSimulator({ db, networks: testNetworks('TRON') }).simulator
    const head = await reopened.mineBlocks('TRON', 1)
    const [block] = await reopened.client('TRON').getBlocks(head.height, head.height)
    expect(block?.transfers).toEqual([
      {
        txHash: 'aa',
        index: 0,
        from: 'Tfrom',
        to: 'Tto',
        asset: { kind: 'native' },
        amountUnits: '5',
        success: false,
      },
    ])
    const legacy = db.prepare("SELECT name FROM sqlite_master WHERE name = 'sim_transactions'").get()
    expect(legacy).toBeUndefined()
  })
})

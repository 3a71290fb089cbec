import { randomUUID } from 'node:crypto'
import { simulatedWalletAddress } from '@chainpay/chain-sim'
import {
  DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
  type DepositObservation,
  depositAddressEventBusMessage,
} from '@chainpay/contracts'
import { type ConsumedMessage, Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { associatedTokenAccount } from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainIndexer } from './indexer.js'
import {
  createIndexerHarness,
  depositAddressCreated as depositAddressCreatedOn,
  depositsAt,
  harnessIndexer,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
  testLogger,
} from './testing/indexer-harness.js'

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

let harness: IndexerHarness

beforeEach(async () => {
  harness = await createIndexerHarness()
})

afterEach(async () => {
  await harness.close()
})

/** DepositAddressCreated of a fresh TRON address for `merchantUserId`, as the deposit relay publishes it */
function depositAddressCreated(merchantUserId: string): { address: string; message: ConsumedMessage } {
  const address = simulatedWalletAddress('TRON')
  const published = depositAddressEventBusMessage({
    eventId: randomUUID(),
    streamId: `deposit-address-${randomUUID()}`,
    revision: 0,
    schemaVersion: DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
    recordedAt: new Date().toISOString(),
    type: 'DepositAddressCreated',
    data: {
      merchantId: 'mer_shop',
      merchantUserId,
      chain: 'TRON',
      address,
      derivationPath: "m/44'/195'/0'/2/7",
      walletId: 'operator',
      index: 7,
      createdAt: new Date().toISOString(),
    },
  })
  return { address, message: { topic: Topics.depositEvents, offset: '0', ...published } }
}

async function depositsTo(address: string): Promise<DepositObservation[]> {
  return (await harness.observations.settle()).filter(
    (observation): observation is DepositObservation =>
      observation.kind === 'deposit' && observation.address === address,
  )
}

const trail = (observations: DepositObservation[]) =>
  observations.map((o) => [o.status, o.confirmations, o.final, o.dropReason])

async function depositAddressWatched(indexer: ChainIndexer, merchantUserId: string): Promise<string> {
  const created = depositAddressCreated(merchantUserId)
  await indexer.handleDepositEvent(created.message)
  return created.address
}

describe('deposit addresses in the chain indexer (decisions.md section 22)', () => {
  it('given a deposit address with no payment, when USDT and TRX arrive, then each is a deposit counted to final', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const address = await depositAddressWatched(indexer, 'user:42')
    const usdt = await harness.sim.submitTransfer('TRON', { to: address, amount: '25', currency: 'USDT' })
    const trx = await harness.sim.submitTransfer('TRON', { to: address, amount: '3', currency: 'TRX' })

    for (let block = 0; block < 25; block++) await mineAndScan(harness, indexer)

    const observations = await depositsTo(address)
    const ofUsdt = observations.filter((o) => o.txHash === usdt.txHash)
    expect(ofUsdt.map((o) => o.confirmations)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(ofUsdt.at(-1)).toMatchObject({ status: 'seen', final: true })
    expect(ofUsdt[0]).toEqual({
      kind: 'deposit',
      network: 'TRON',
      merchantId: 'mer_shop',
      merchantUserId: 'user:42',
      address,
      txHash: usdt.txHash,
      transferIndex: 0,
      currency: 'USDT',
      decimals: 6,
      amountUnits: '25000000',
      blockHeight: expect.any(Number),
      blockTime: expect.any(String),
      confirmations: 1,
      requiredConfirmations: 20,
      final: false,
      status: 'seen',
      dropReason: null,
      observedAt: expect.any(String),
    })
    expect(observations.filter((o) => o.txHash === trx.txHash).at(-1)).toMatchObject({
      currency: 'TRX',
      amountUnits: '3000000',
      final: true,
    })
    // no payment observation of any kind for them
    const others = (await harness.observations.settle()).filter(
      (o) => o.kind === 'transfer' || o.kind === 'foreign_funds',
    )
    expect(others).toEqual([])
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it('given an open USDT payment on the deposit address, its USDT pays it, TRX there is a deposit', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const address = await depositAddressWatched(indexer, 'bob')
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT', address })
    await indexer.handlePaymentEvent(payment.message)
    const usdt = await harness.sim.submitTransfer('TRON', { to: address, amount: '10', currency: 'USDT' })
    const trx = await harness.sim.submitTransfer('TRON', { to: address, amount: '1', currency: 'TRX' })
    await mineAndScan(harness, indexer)

    expect((await harness.observations.transfersOf(payment.paymentId)).map((o) => o.txHash)).toEqual([
      usdt.txHash,
    ])
    expect((await depositsTo(address)).map((o) => [o.txHash, o.currency])).toEqual([[trx.txHash, 'TRX']])
  })

  it('given a deposit counted, when the chain drops it, then it is in doubt and then dropped', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const address = await depositAddressWatched(indexer, 'carol')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: address,
      amount: '5',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer, 2)

    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await indexer.scanOnce()
    await mineAndScan(harness, indexer, 25)

    expect(trail(await depositsTo(address))).toEqual([
      ['seen', 1, false, null],
      ['seen', 3, false, null],
      ['in_doubt', 3, false, null],
      ['dropped', 3, false, 'EXPIRED'],
    ])
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it('given a Solana deposit address scanned by blocks (SOLANA_WATCH_MODE=blocks), SOL to it and USDC to its token account are deposits counted to final', async () => {
    const indexer = harnessIndexer(harness, 'SOLANA')
    await indexer.scanOnce()
    const created = depositAddressCreatedOn('SOLANA', 'erin')
    await indexer.handleDepositEvent(created.message)
    const { address } = created
    const sol = await harness.sim.submitTransfer('SOLANA', { to: address, amount: '2', currency: 'SOL' })
    // into its associated token account, opened for it
    const tokenAccount = associatedTokenAccount(address, USDC_MINT)
    await harness.sim.openTokenAccount('SOLANA', { owner: address, currency: 'USDC', address: tokenAccount })
    const usdc = await harness.sim.submitTransfer('SOLANA', {
      to: tokenAccount,
      amount: '9',
      currency: 'USDC',
    })

    for (let block = 0; block < 34; block++) await mineAndScan(harness, indexer)

    const observations = depositsAt(await harness.observations.settle(), address)
    expect(observations.filter((o) => o.final).map((o) => [o.txHash, o.currency, o.amountUnits])).toEqual(
      expect.arrayContaining([
        [sol.txHash, 'SOL', '2000000000'],
        [usdc.txHash, 'USDC', '9000000'],
      ]),
    )
    expect(observations.filter((o) => o.final)).toHaveLength(2)
    expect(observations[0]).toMatchObject({ merchantUserId: 'erin', confirmations: 1, final: false })
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('resumes watching the deposit addresses after a restart, and watches one address once', async () => {
    const first = harnessIndexer(harness, 'TRON')
    await first.scanOnce()
    const created = depositAddressCreated('dave')
    await first.handleDepositEvent(created.message)
    await first.handleDepositEvent(created.message)
    expect(first.depositWatch.size).toBe(1)

    const db = harness.reopen()
    const restarted = harnessIndexer(harness, 'TRON', {
      store: createSqliteChainIndexerStore(db),
      bus: createSqliteBus(db, { logger: testLogger }),
    })
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '7',
      currency: 'USDT',
    })
    await mineAndScan(harness, restarted)
    expect((await depositsTo(created.address)).map((o) => o.txHash)).toEqual([txHash])
    expect(restarted.depositWatch.size).toBe(1)
  })
})

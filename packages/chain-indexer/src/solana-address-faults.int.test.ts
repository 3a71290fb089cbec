// The Solana address indexer when the chain or the node misbehaves (docs/chains.md, "Forks:
// transfers in doubt", "Solana by address: the watcher"): forks, a node that does not answer, that
// does not return a transaction yet, a store or bus that goes away, a stop while a call hangs, a node
// started from a snapshot. Through @solana/web3.js against the simulator served over HTTP and its
// websocket; time is the test's clock.

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startSimulatorNode } from '@chainpay/chain-sim/testing'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { defaultAssetRegistry } from '@chainpay/domain'
import { at } from '@chainpay/domain/testing'
import { createRootLogger } from '@chainpay/platform'
import { StoreUnavailableError } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { associatedTokenAccount } from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createSolanaAddressIndexer,
  DEFAULT_CHECK_INTERVAL_MS,
  DISCONNECTED_CHECK_INTERVAL_MS,
  type SolanaAddressIndexer,
} from './solana-address-indexer.js'
import { FINALITY_OVERDUE_MS } from './solana-transfer-follower.js'
import {
  type AddressIndexerRig,
  addressIndexerRig,
  FINALITY_DEPTH,
  HOUR_MS,
  ITERATION_MS,
  MINUTE_MS,
} from './testing/address-indexer.js'
import {
  createIndexerHarness,
  type IndexerHarness,
  paymentCreated,
  type TestPayment,
  testLogger,
} from './testing/index.js'

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

let harness: IndexerHarness
let rig: AddressIndexerRig
const clock = { ms: 0 }

beforeEach(async () => {
  clock.ms = Date.parse('2030-01-01T00:00:00.000Z')
  harness = await createIndexerHarness({ clock: () => new Date(clock.ms) })
  rig = await addressIndexerRig(harness, clock)
  await harness.sim.mineBlocks('SOLANA', 1)
})

afterEach(async () => {
  await rig.stop()
  await harness.close()
})

/** the payment's transfer observations as [status, reason, slot] */
const trail = async (paymentId: string) =>
  (await harness.observations.transfersOf(paymentId)).map((observation) => [
    observation.status,
    observation.dropReason,
    observation.blockHeight,
  ])

/** the block times of the chain time reports so far */
const progressTimes = async () =>
  (await harness.observations.settle()).flatMap((message) =>
    message.kind === 'progress' ? [Date.parse(message.blockTime)] : [],
  )

/** a SOL payment paid 10 SOL, its transfer seen at confirmed */
async function seenPayment(
  indexer: SolanaAddressIndexer,
): Promise<{ payment: TestPayment; txHash: string; slot: number }> {
  const payment = await rig.watched(indexer, 'SOL')
  const txHash = await rig.pay(payment.address, '10', 'SOL')
  await rig.notified(indexer)
  await indexer.scanOnce()
  const slot = (await harness.sim.transactionHeight('SOLANA', txHash)) as number
  expect(await trail(payment.paymentId)).toEqual([['seen', null, slot]])
  return { payment, txHash, slot }
}

describe('a counted transfer that a fork takes back (docs/chains.md, "Forks: transfers in doubt")', () => {
  it('popped and included again: in doubt once, then seen in its new block, and final there', async () => {
    const indexer = rig.indexer()
    const { payment, txHash, slot } = await seenPayment(indexer)
    expect(await harness.sim.dropTransaction('SOLANA', txHash, { requeue: true })).toBe(true)
    rig.resetCalls()
    // a fork sends no notification: the finality that does not come has its status asked
    await rig.runFor(indexer, FINALITY_OVERDUE_MS)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
    ])
    expect(rig.calls).toEqual(['getSignatureStatuses'])
    // in doubt is said once, however often the status is asked
    await rig.runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toHaveLength(2)

    await harness.sim.mineBlocks('SOLANA', 1)
    const again = (await harness.sim.transactionHeight('SOLANA', txHash)) as number
    expect(again).toBeGreaterThan(slot)
    await rig.runFor(indexer, 10_000)
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, 5_000)
        const observations = await harness.observations.transfersOf(payment.paymentId)
        expect(observations.at(-1)).toMatchObject({
          status: 'seen',
          blockHeight: again,
          confirmations: 32,
          final: true,
        })
      },
      { timeout: 10_000, interval: 50 },
    )
    expect((await trail(payment.paymentId)).map(([status]) => status)).toEqual([
      'seen',
      'in_doubt',
      'seen',
      'seen',
    ])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('included again as a failed transaction: in doubt, then dropped REVERTED', async () => {
    const indexer = rig.indexer()
    const { payment, txHash, slot } = await seenPayment(indexer)
    expect(await harness.sim.dropTransaction('SOLANA', txHash, { requeue: true, fail: true })).toBe(true)
    await rig.runFor(indexer, FINALITY_OVERDUE_MS)
    await harness.sim.mineBlocks('SOLANA', 1)
    await rig.runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
      ['dropped', 'REVERTED', slot],
    ])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('dropped for good: in doubt, then dropped EXPIRED once its blockhash expired on the chain', async () => {
    const indexer = rig.indexer()
    const { payment, txHash, slot } = await seenPayment(indexer)
    expect(await harness.sim.dropTransaction('SOLANA', txHash)).toBe(true)
    // the node forgets a transaction of an abandoned fork, as a real node does (web3.js reads it)
    const reader = createSolanaAddressReader({
      network: 'SOLANA',
      registry: defaultAssetRegistry,
      connection: createSolanaConnection({ rpcUrl: rig.node.solanaUrl('SOLANA') }),
    })
    expect((await reader.statuses([txHash])).states).toEqual(new Map([[txHash, null]]))
    expect(await reader.transaction(txHash)).toBeNull()
    await rig.runFor(indexer, FINALITY_OVERDUE_MS)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
    ])
    // a block a minute after its own is within its blockhash's two minutes: a later fork may still
    // include it, so it stays in doubt
    await harness.sim.mineBlocks('SOLANA', 1)
    await rig.runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toHaveLength(2)
    // the chain time is past its blockhash's expiry only once a later block says so
    await rig.runFor(indexer, 2 * MINUTE_MS)
    expect(await trail(payment.paymentId)).toHaveLength(2)
    await harness.sim.mineBlocks('SOLANA', 1)
    await rig.runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
      ['dropped', 'EXPIRED', slot],
    ])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })
})

describe('a node that does not answer, or not yet (decisions 19, Liveness)', () => {
  it('never puts a transfer in doubt for a node that fails to answer: a failed call is unknown, not gone', async () => {
    const indexer = rig.indexer()
    const { payment, slot } = await seenPayment(indexer)
    rig.fault('getSignatureStatuses', 'unavailable')
    rig.resetCalls()
    for (let elapsed = 0; elapsed < 2 * FINALITY_OVERDUE_MS; elapsed += ITERATION_MS) {
      rig.advance(ITERATION_MS)
      await indexer.scanOnce().catch(() => {})
    }
    expect(rig.count('getSignatureStatuses')).toBeGreaterThan(0)
    rig.fault('getSignatureStatuses', undefined)
    await rig.runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([['seen', null, slot]])
    expect(await harness.store.listTracked('SOLANA')).toHaveLength(1)
  })

  it('asks again, with backoff, for a transaction the node does not return for a minute, and holds back no other payment', async () => {
    const indexer = rig.indexer()
    const expiresAtMs = rig.now() + 2 * HOUR_MS
    const slow = await rig.watched(indexer, 'SOL')
    const other = await rig.watched(indexer, 'SOL')
    await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS)
    rig.advance(expiresAtMs - 60_000 - rig.now())
    // the node lists the slow payment's transaction, and answers null for it
    const { txHash: late } = await harness.sim.submitTransfer('SOLANA', {
      to: slow.address,
      amount: '1',
      currency: 'SOL',
    })
    rig.fault('getTransaction', 'null', (params) => params[0] === late)
    await harness.sim.mineBlocks('SOLANA', 1)
    const lateTime = await harness.sim.blockDetails(
      'SOLANA',
      (await harness.sim.head('SOLANA')).height,
      (await harness.sim.head('SOLANA')).height,
    )
    await rig.notified(indexer)
    rig.resetCalls()
    // the first read answered null: nothing is due while it waits for its next attempt, so the
    // loop rests instead of spinning on it
    await indexer.scanOnce()
    expect(rig.count('getTransaction')).toBe(1)
    expect(indexer.watcher.due).toBe(false)
    await rig.runFor(indexer, MINUTE_MS)
    // 1, 2, 4, 8, 16 s apart, then 30 s: a handful of calls in a minute, never a spin
    expect(rig.count('getTransaction')).toBeGreaterThanOrEqual(4)
    expect(rig.count('getTransaction')).toBeLessThanOrEqual(8)
    // meanwhile the other payment is read at once
    const paid = await rig.pay(other.address, '2', 'SOL')
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, ITERATION_MS)
        expect((await harness.observations.transfersOf(other.paymentId)).map(({ txHash }) => txHash)).toEqual(
          [paid],
        )
      },
      { timeout: 10_000, interval: 20 },
    )
    expect(await harness.observations.transfersOf(slow.paymentId)).toEqual([])
    // at the deadline the chain time passes it for every payment but the slow one, held before its transaction
    await harness.sim.mineBlocks('SOLANA', 1)
    await rig.runFor(indexer, 5_000)
    const [progress] = (await harness.observations.settle())
      .filter((message) => message.kind === 'progress')
      .slice(-1)
    expect(progress).toMatchObject({
      holds: [{ paymentId: slow.paymentId, before: lateTime[0]?.time }],
    })
    expect(Date.parse(progress?.kind === 'progress' ? progress.blockTime : '')).toBeGreaterThanOrEqual(
      expiresAtMs,
    )
    // the node returns it: read, and the chain time reported again without the hold
    rig.fault('getTransaction', undefined)
    await rig.runFor(indexer, 30_000)
    expect((await harness.observations.transfersOf(slow.paymentId)).map(({ txHash }) => txHash)).toEqual([
      late,
    ])
    const [released] = (await harness.observations.settle())
      .filter((message) => message.kind === 'progress')
      .slice(-1)
    expect(released).toMatchObject({
      kind: 'progress',
      blockTime: progress?.kind === 'progress' ? progress.blockTime : '',
    })
    expect(released).not.toHaveProperty('holds')
  })
})

describe('a websocket that does not open (a wrong SOLANA_WS_URL, a node without one)', () => {
  it('checks the open payments’ accounts every 15 s and says so once; with only final payments, says nothing', async () => {
    // a port nobody listens on
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const lines: string[] = []
    const indexer = rig.indexer({
      wsUrl: `ws://127.0.0.1:${port}`,
      logger: createRootLogger({
        service: 'test',
        level: 'warn',
        destination: { write: (line) => lines.push(line) },
      }),
    })
    const warnings = () =>
      lines
        .map((line) => JSON.parse(line))
        .filter((line) => line.msg.includes("the node's websocket is not open"))
    const payment = await rig.watched(indexer, 'SOL')
    await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS)
    rig.resetCalls()
    await rig.runFor(indexer, MINUTE_MS)
    expect(rig.count('getMultipleAccounts')).toBe(4)
    expect(warnings()).toHaveLength(1)
    // paid meanwhile: found by the next of those checks
    const txHash = await rig.pay(payment.address, '1', 'SOL')
    await rig.runFor(indexer, 15_000)
    expect((await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash)).toEqual([
      txHash,
    ])

    await rig.emit(indexer, {
      type: 'PaymentConfirmed',
      data: { paymentId: payment.paymentId, receivedUnits: '1000000000', txHash, confirmedAt: at(10) },
    })
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await rig.runFor(indexer, MINUTE_MS)
    await indexer.stop()
    // started again with only a final payment: nothing is followed over the websocket
    lines.length = 0
    const restarted = rig.indexer({
      wsUrl: `ws://127.0.0.1:${port}`,
      logger: createRootLogger({
        service: 'test',
        level: 'warn',
        destination: { write: (line) => lines.push(line) },
      }),
    })
    await restarted.scanOnce()
    rig.resetCalls()
    await rig.runFor(restarted, DEFAULT_CHECK_INTERVAL_MS - MINUTE_MS)
    expect(rig.count('getMultipleAccounts')).toBe(0)
    expect(warnings()).toEqual([])
  })
})

describe('a node behind the chain (decisions 19: not evidence of absence)', () => {
  it('lists again an account whose balance changed before any transaction names it, until one does', async () => {
    // no websocket (a port nobody listens on): the open payment's accounts are checked on a timer
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const indexer = rig.indexer({ wsUrl: `ws://127.0.0.1:${port}` })
    const payment = await rig.watched(indexer, 'SOL')
    // the balance moves before the node lists the transaction (the simulator's account reads
    // include what is not in a block yet; a node of a provider's pool may answer so)
    const { txHash } = await harness.sim.submitTransfer('SOLANA', {
      to: payment.address,
      amount: '1',
      currency: 'SOL',
    })
    rig.resetCalls()
    await rig.runFor(indexer, DISCONNECTED_CHECK_INTERVAL_MS + ITERATION_MS)
    expect(rig.count('getMultipleAccounts')).toBeGreaterThan(0)
    expect(rig.count('getSignaturesForAddress')).toBeGreaterThan(0)
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([])
    await harness.sim.mineBlocks('SOLANA', 1)
    // asked again a second later, not only when the balance moves again
    await rig.runFor(indexer, 3_000)
    expect((await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash)).toEqual([
      txHash,
    ])
  })

  it('takes a change its listing cannot explain for seen the second time, not every round', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const lines: string[] = []
    const indexer = rig.indexer({
      wsUrl: `ws://127.0.0.1:${port}`,
      logger: createRootLogger({
        service: 'test',
        level: 'warn',
        destination: { write: (line) => lines.push(line) },
      }),
    })
    const payment = await rig.watched(indexer, 'SOL')
    const first = await rig.pay(payment.address, '1', 'SOL')
    // the check reads the balance with the first transfer; its listing fails, and a second transfer
    // lands before the listing is asked again: the listing names both, stored with the first balance
    rig.fault('getSignaturesForAddress', 'unavailable')
    await rig.runFor(indexer, DISCONNECTED_CHECK_INTERVAL_MS + ITERATION_MS).catch(() => {})
    const second = await rig.pay(payment.address, '2', 'SOL')
    rig.fault('getSignaturesForAddress', undefined)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, ITERATION_MS)
        expect(
          (await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash),
        ).toEqual(expect.arrayContaining([first, second]))
      },
      { timeout: 15_000, interval: 50 },
    )
    // the next checks see the second balance, which nothing new explains: put back once, then seen
    await rig.runFor(indexer, 3 * MINUTE_MS)
    rig.resetCalls()
    await rig.runFor(indexer, 2 * MINUTE_MS)
    expect(rig.count('getMultipleAccounts')).toBeGreaterThan(0)
    expect(rig.count('getSignaturesForAddress')).toBe(0)
    expect(lines.filter((line) => line.includes('lists no transaction for it'))).toHaveLength(1)
  })

  it('does not put a transfer in doubt when a node 20 slots behind does not know it yet', async () => {
    const lagging = await startSimulatorNode({ simulator: harness.sim, behind: 20 })
    try {
      const indexer = rig.indexer()
      const { payment, slot } = await seenPayment(indexer)
      rig.route('getSignatureStatuses', lagging.solanaUrl('SOLANA'))
      rig.resetCalls()
      await rig.runFor(indexer, FINALITY_OVERDUE_MS + 10_000)
      expect(rig.count('getSignatureStatuses')).toBeGreaterThan(0)
      expect(await trail(payment.paymentId)).toEqual([['seen', null, slot]])
      rig.route('getSignatureStatuses', undefined)
    } finally {
      await lagging.close()
    }
  })

  it('at a deadline, waits for a node that is behind the chain time rather than miss what it has not seen', async () => {
    const lagging = await startSimulatorNode({ simulator: harness.sim, behind: 20 })
    try {
      const indexer = rig.indexer()
      const expiresAtMs = rig.now() + 2 * HOUR_MS
      const payment = await rig.watched(indexer, 'SOL')
      await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS)
      // the payment's accounts checked and listed on a node 20 slots behind the chain time read
      rig.route('getMultipleAccounts', lagging.solanaUrl('SOLANA'))
      rig.route('getSignaturesForAddress', lagging.solanaUrl('SOLANA'))
      rig.advance(expiresAtMs - 1_000 - rig.now())
      const txHash = await rig.pay(payment.address, '10', 'SOL')
      rig.advance(1_000)
      await harness.sim.mineBlocks('SOLANA', 1)
      const progressBefore = await progressTimes()
      for (let attempt = 0; attempt < 5; attempt++) {
        rig.advance(5_000)
        await indexer.scanOnce().catch(() => {})
      }
      // no chain time past the deadline while the accounts could not be read up to it
      expect((await progressTimes()).filter((time) => time >= expiresAtMs)).toEqual([])
      expect(progressBefore.length).toBeGreaterThan(0)
      rig.route('getMultipleAccounts', undefined)
      rig.route('getSignaturesForAddress', undefined)
      rig.advance(5_000)
      await indexer.scanOnce()
      expect((await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash)).toEqual([
        txHash,
      ])
      expect((await progressTimes()).some((time) => time >= expiresAtMs)).toBe(true)
    } finally {
      await lagging.close()
    }
  })
})

describe('a store or bus that goes away (nothing lost)', () => {
  it('publishes a transfer whose tracking failed while the store was unavailable, once it is back', async () => {
    // the indexer's own connection gives up at once on a lock, as a store that went away answers
    const db = harness.reopen()
    db.exec('PRAGMA busy_timeout = 0')
    const indexer = rig.indexer({ store: createSqliteChainIndexerStore(db) })
    const payment = await rig.watched(indexer, 'USDC')
    const txHash = await rig.payToken(payment.address, payment.tokenAccount as string, '10', 'USDC')
    await rig.notified(indexer)

    // another connection holds the write lock: the transfer's tracking fails
    const outage = harness.reopen()
    outage.exec('BEGIN EXCLUSIVE')
    await expect(indexer.scanOnce()).rejects.toThrow()
    outage.exec('COMMIT')

    // the store is back: the next iteration tracks and publishes what the failed one read
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash, confirmations: 1, status: 'seen', amountUnits: '10000000' }),
    ])
    expect(await harness.store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
  })

  it('publishes what it saw while the bus was unavailable, once it is back, before untracking anything', async () => {
    // the store in a file of its own; the bus on the harness's file, giving up at once on a lock
    const directory = mkdtempSync(join(tmpdir(), 'address-indexer-store-'))
    const storeDb = openSqliteDatabase(join(directory, 'store.sqlite'))
    const busDb = harness.reopen()
    busDb.exec('PRAGMA busy_timeout = 0')
    const bus = createSqliteBus(busDb, { logger: testLogger })
    const store = createSqliteChainIndexerStore(storeDb)
    try {
      const indexer = rig.indexer({ store, bus })
      const payment = await rig.watched(indexer, 'SOL')
      const txHash = await rig.pay(payment.address, '1', 'SOL')
      await rig.notified(indexer)
      await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(2))

      const outage = harness.reopen()
      outage.exec('BEGIN EXCLUSIVE')
      await expect(indexer.scanOnce()).rejects.toThrow()
      outage.exec('COMMIT')
      // tracked, not published: what it saw waits for the bus
      expect(await store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
      await indexer.scanOnce()
      expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
        expect.objectContaining({ txHash, confirmations: 1, status: 'seen' }),
      ])

      // final while the bus is away again: still tracked until its observation is published
      await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(3))
      await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
      await rig.notified(indexer)
      outage.exec('BEGIN EXCLUSIVE')
      await expect(indexer.scanOnce()).rejects.toThrow()
      outage.exec('COMMIT')
      expect(await store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
      await indexer.scanOnce()
      const observations = await harness.observations.transfersOf(payment.paymentId)
      expect(observations.map(({ confirmations, final }) => [confirmations, final])).toEqual([
        [1, false],
        [32, true],
      ])
      expect(await store.listTracked('SOLANA')).toEqual([])
    } finally {
      await rig.stop()
      await bus.close()
      storeDb.close()
      rmSync(directory, { recursive: true, force: true })
    }
  })
  it("follows every account of a payment whose accounts' first save failed part way", async () => {
    // the store goes away after the owner's account is saved and before its token accounts are (seen
    // in faults-servers.e2e: a USDT payment created while MongoDB restarted was never seen paid)
    let saves = 0
    const store = new Proxy(harness.store, {
      get(target, property, receiver) {
        if (property !== 'saveFollowedAccount') return Reflect.get(target, property, receiver)
        return async (...args: Parameters<typeof target.saveFollowedAccount>) => {
          saves += 1
          if (saves === 2) throw new StoreUnavailableError('the store went away')
          return target.saveFollowedAccount(...args)
        }
      },
    })
    const indexer = rig.indexer({ store })
    const payment = paymentCreated({
      network: 'SOLANA',
      currency: 'USDT',
      createdAt: new Date(clock.ms).toISOString(),
      expiresAt: new Date(clock.ms + 2 * HOUR_MS).toISOString(),
    })
    await indexer.handlePaymentEvent(payment.message)
    await expect(indexer.scanOnce()).rejects.toThrow('the store went away')
    await indexer.scanOnce()
    // every associated token account of the owner is followed, and saved for the next start
    const followed = new Set((await harness.store.listFollowedAccounts('SOLANA')).map((item) => item.account))
    for (const mint of [USDC_MINT, USDT_MINT]) {
      expect(followed.has(associatedTokenAccount(payment.address, mint))).toBe(true)
    }
    // paid at the USDT associated account while nobody listens: found by the next check
    rig.node.solanaPubsub.refuseConnections(true)
    rig.node.solanaPubsub.dropConnections()
    const txHash = await rig.payToken(
      payment.address,
      associatedTokenAccount(payment.address, USDT_MINT),
      '10',
      'USDT',
    )
    rig.node.solanaPubsub.refuseConnections(false)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, ITERATION_MS)
        expect(
          (await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash),
        ).toEqual([txHash])
      },
      { timeout: 15_000, interval: 50 },
    )
  })
})

describe('a node started from a snapshot (docs/chains.md, "Backfill")', () => {
  it('says so, once, when a new payment was created before the first block the node has', async () => {
    const createdAt = new Date(clock.ms).toISOString()
    for (let block = 0; block < 60; block++) {
      rig.advance(2_000)
      await harness.sim.mineBlocks('SOLANA', 1)
    }
    harness.sim.forgetHistoryBelow('SOLANA', 20)
    const lines: string[] = []
    const indexer = rig.indexer({
      logger: createRootLogger({
        service: 'test',
        level: 'error',
        destination: { write: (line) => lines.push(line) },
      }),
    })
    rig.resetCalls()
    const old = await rig.watched(indexer, 'SOL', createdAt)
    const recent = await rig.watched(indexer, 'SOL')
    await rig.runFor(indexer, MINUTE_MS)

    const reports = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg.includes("history lies below the node's first available block"))
    expect(reports).toEqual([
      expect.objectContaining({
        paymentId: old.paymentId,
        firstAvailableHeight: 20,
        paymentCreatedAt: createdAt,
      }),
    ])
    // read once for both payments
    expect(rig.count('getFirstAvailableBlock')).toBe(1)
    // both are watched all the same, from what the node has
    const watching = (await harness.observations.settle()).filter((message) => message.kind === 'watching')
    expect(watching.map((message) => message.paymentId).sort()).toEqual(
      [old.paymentId, recent.paymentId].sort(),
    )
  })
})

describe('a stop while the node does not answer', () => {
  it('interrupts the call in flight instead of waiting for its timeout, and the indexer starts again', async () => {
    // a node that accepts connections and never answers
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => {
      sockets.add(socket)
      socket.resume()
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as { port: number }
    let inFlight = 0
    let interrupted = 0
    const counting = (async (url: string, init: RequestInit) => {
      inFlight += 1
      try {
        return await fetch(url, init)
      } catch (error) {
        if (init.signal?.aborted) interrupted += 1
        throw error
      } finally {
        inFlight -= 1
      }
    }) as unknown as typeof fetch
    const connection = createSolanaConnection({
      rpcUrl: `http://127.0.0.1:${port}`,
      wsUrl: `ws://127.0.0.1:${port}`,
      fetch: counting,
      // far beyond the test's own timeout: only an interruption ends the call
      timeoutMs: HOUR_MS,
    })
    const indexer = createSolanaAddressIndexer({
      network: 'SOLANA',
      reader: createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection }),
      store: harness.store,
      bus: harness.bus,
      registry: defaultAssetRegistry,
      clock: rig.clock,
      logger: testLogger,
    })
    try {
      await indexer.start()
      // the first check asks the chain time
      await vi.waitFor(() => expect(inFlight).toBe(1), { timeout: 10_000, interval: 20 })
      await indexer.stop()
      expect([inFlight, interrupted]).toEqual([0, 1])

      // calls go through again after a stop: started again, it asks again
      await indexer.start()
      await vi.waitFor(() => expect(inFlight).toBe(1), { timeout: 10_000, interval: 20 })
      await indexer.stop()
      expect([inFlight, interrupted]).toEqual([0, 2])
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})

// The address watcher (SOLANA_WATCH_MODE=address) through @solana/web3.js against the simulator
// served over HTTP and websocket: what it publishes, and the RPC calls a payment costs.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { simulatedAddress } from '@chainpay/chain-sim'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { systemClock } from '@chainpay/platform'
import type { Bus, ChainIndexerStore } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSolanaAddressWatcher, type SolanaAddressWatcher } from './solana-address-watcher.js'
import { createIndexerHarness, type IndexerHarness, testLogger } from './testing/index.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
/** Solana's finality depth in the simulator */
const FINALITY_DEPTH = 31
const REQUIRED = 32

let harness: IndexerHarness
let watcher: SolanaAddressWatcher
/** JSON-RPC calls over HTTP */
let calls: number

beforeEach(async () => {
  harness = await createIndexerHarness()
  calls = 0
  watcher = await addressWatcher(harness.store)
})

/** a watcher of the harness's simulator served over HTTP, counting its calls, keeping what it saw in `store` */
async function addressWatcher(
  store: ChainIndexerStore,
  bus: Bus = harness.bus,
): Promise<SolanaAddressWatcher> {
  const node = await harness.serve()
  const counting = (async (url: string, init: RequestInit) => {
    calls += 1
    return fetch(url, init)
  }) as unknown as typeof fetch
  const connection = createSolanaConnection({
    rpcUrl: node.solanaUrl('SOLANA'),
    wsUrl: node.solanaWsUrl('SOLANA'),
    fetch: counting,
  })
  const reader = createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection })
  return createSolanaAddressWatcher({
    network: 'SOLANA',
    reader,
    registry: defaultAssetRegistry,
    bus,
    clock: systemClock,
    store,
    logger: testLogger,
  })
}

/** until a websocket notification has marked something for the next tick */
async function notified(): Promise<void> {
  await vi.waitFor(() => expect(watcher.due).toBe(true), { timeout: 10_000, interval: 20 })
}

afterEach(async () => {
  await watcher.close()
  await harness.close()
})

async function pay(to: string, amount: string, currency: string): Promise<string> {
  const { txHash } = await harness.sim.submitTransfer('SOLANA', { to, amount, currency })
  await harness.sim.mineBlocks('SOLANA', 1)
  return txHash
}

describe('the Solana address watcher through web3.js', () => {
  it('publishes USDC paid to the associated and to another token account of the owner, up to final, within 10 calls each', async () => {
    const associated = { paymentId: 'usdc-associated', owner: simulatedAddress('SOLANA') }
    const other = { paymentId: 'usdc-other', owner: simulatedAddress('SOLANA') }
    const ata = await harness.sim.openTokenAccount('SOLANA', { owner: associated.owner, currency: 'USDC' })
    const nonAssociated = await harness.sim.openTokenAccount('SOLANA', {
      owner: other.owner,
      currency: 'USDC',
    })
    for (const payment of [associated, other]) {
      await watcher.watch({
        ...payment,
        tokenAccount: null,
        assetContract: USDC,
        requiredConfirmations: REQUIRED,
      })
    }
    // the accounts found at watch are listed at the first tick
    await watcher.tick()
    const first = await pay(ata.address, '10', 'USDC')
    const second = await pay(nonAssociated.address, '10', 'USDC')
    // the notifications mark both accounts; reconciling lists them whatever came already
    await notified()
    watcher.reconcile()
    await watcher.tick()
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    // the finality subscriptions say when both are final
    await vi.waitFor(
      async () => {
        await watcher.tick()
        expect(watcher.following).toBe(0)
      },
      { timeout: 10_000, interval: 50 },
    )

    for (const [payment, txHash, address] of [
      [associated, first, ata.address],
      [other, second, nonAssociated.address],
    ] as const) {
      const observations = await harness.observations.transfersOf(payment.paymentId)
      expect(observations.map((observation) => observation.confirmations)).toEqual([1, REQUIRED])
      expect(observations[0]).toMatchObject({
        network: 'SOLANA',
        txHash,
        address,
        amountUnits: '10000000',
        status: 'seen',
        dropReason: null,
      })
    }
    expect(watcher.following).toBe(0)
    // per payment here: a getTokenAccountsByOwner per registry mint, 2 getSignaturesForAddress, 1 getTransaction
    expect(calls).toBeLessThanOrEqual(2 * 10)
  })

  it('counts neither a failed transaction nor a counterfeit mint; idle, a tick reads nothing and a reconciliation lists each account once; unwatched, nothing', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await watcher.watch({
      paymentId: 'usdc',
      owner,
      tokenAccount: null,
      assetContract: USDC,
      requiredConfirmations: REQUIRED,
    })
    await harness.sim.submitTransaction('SOLANA', {
      transfers: [{ to: account.address, amount: '10', currency: 'USDC' }],
      failure: 'INSTRUCTION_ERROR',
    })
    await harness.sim.submitTransaction('SOLANA', {
      transfers: [
        { to: account.address, amount: '10', currency: 'USDC', contract: simulatedAddress('SOLANA') },
      ],
    })
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH + 1)
    await watcher.tick()
    expect(await harness.observations.transfersOf('usdc')).toEqual([])
    expect(watcher.following).toBe(0)

    calls = 0
    await watcher.tick()
    // nothing happened: nothing is read
    expect(calls).toBe(0)
    // a reconciliation lists the one token account of the owner: one getSignaturesForAddress
    watcher.reconcile()
    await watcher.tick()
    expect(calls).toBe(1)
    await watcher.unwatch('usdc')
    calls = 0
    watcher.reconcile()
    await watcher.tick()
    expect(calls).toBe(0)
  })

  it('reports USDC paid to a SOL payment as foreign funds once final', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await watcher.watch({
      paymentId: 'sol',
      owner,
      tokenAccount: null,
      assetContract: null,
      requiredConfirmations: REQUIRED,
    })
    const txHash = await pay(account.address, '5', 'USDC')
    await watcher.tick()
    expect(
      (await harness.observations.settle()).filter((message) => message.kind === 'foreign_funds'),
    ).toEqual([])
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await vi.waitFor(
      async () => {
        await watcher.tick()
        expect(watcher.following).toBe(0)
      },
      { timeout: 10_000, interval: 50 },
    )

    const foreign = (await harness.observations.settle()).filter(
      (message) => message.kind === 'foreign_funds',
    )
    expect(foreign).toEqual([
      expect.objectContaining({ paymentId: 'sol', txHash, currency: 'USDC', amountUnits: '5000000' }),
    ])
    expect(await harness.observations.transfersOf('sol')).toEqual([])
    expect(calls).toBeLessThanOrEqual(10)
  })

  it('publishes a transfer whose tracking failed while the store was unavailable, once it is back', async () => {
    // the watcher's own connection gives up at once on a lock, as a store that went away answers
    const db = harness.reopen()
    db.exec('PRAGMA busy_timeout = 0')
    const flaky = await addressWatcher(createSqliteChainIndexerStore(db))
    try {
      const owner = simulatedAddress('SOLANA')
      const account = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
      await flaky.watch({
        paymentId: 'usdc',
        owner,
        tokenAccount: null,
        assetContract: USDC,
        requiredConfirmations: REQUIRED,
      })
      await flaky.tick()
      const txHash = await pay(account.address, '10', 'USDC')
      await vi.waitFor(() => expect(flaky.due).toBe(true), { timeout: 10_000, interval: 20 })

      // another connection holds the write lock: the transfer's tracking fails
      const outage = harness.reopen()
      outage.exec('BEGIN EXCLUSIVE')
      await expect(flaky.tick()).rejects.toThrow()
      outage.exec('COMMIT')

      // the store is back: the next tick tracks and publishes what the failed one read
      await flaky.tick()
      expect(await harness.observations.transfersOf('usdc')).toEqual([
        expect.objectContaining({ txHash, confirmations: 1, status: 'seen', amountUnits: '10000000' }),
      ])
      expect(await harness.store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
    } finally {
      await flaky.close()
    }
  })

  it('publishes what it saw while the bus was unavailable, once it is back, before untracking anything', async () => {
    // the store in a file of its own; the bus on the harness's file, giving up at once on a lock
    const directory = mkdtempSync(join(tmpdir(), 'address-watcher-store-'))
    const storeDb = openSqliteDatabase(join(directory, 'store.sqlite'))
    const busDb = harness.reopen()
    busDb.exec('PRAGMA busy_timeout = 0')
    const bus = createSqliteBus(busDb, { logger: testLogger })
    const store = createSqliteChainIndexerStore(storeDb)
    const flaky = await addressWatcher(store, bus)
    try {
      const owner = simulatedAddress('SOLANA')
      await flaky.watch({
        paymentId: 'sol',
        owner,
        tokenAccount: null,
        assetContract: null,
        requiredConfirmations: REQUIRED,
      })
      await flaky.tick()
      const txHash = await pay(owner, '1', 'SOL')
      await vi.waitFor(() => expect(flaky.due).toBe(true), { timeout: 10_000, interval: 20 })

      const outage = harness.reopen()
      outage.exec('BEGIN EXCLUSIVE')
      await expect(flaky.tick()).rejects.toThrow()
      outage.exec('COMMIT')
      // tracked, not published: what it saw waits for the bus
      expect(await store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
      expect(flaky.due).toBe(true)
      await flaky.tick()
      expect(await harness.observations.transfersOf('sol')).toEqual([
        expect.objectContaining({ txHash, confirmations: 1, status: 'seen' }),
      ])

      // final while the bus is away again: still tracked until its observation is published
      await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
      await vi.waitFor(() => expect(flaky.due).toBe(true), { timeout: 10_000, interval: 20 })
      outage.exec('BEGIN EXCLUSIVE')
      await expect(flaky.tick()).rejects.toThrow()
      outage.exec('COMMIT')
      expect(await store.listTracked('SOLANA')).toEqual([expect.objectContaining({ txHash })])
      await flaky.tick()
      const trail = await harness.observations.transfersOf('sol')
      expect(trail.map((observation) => observation.confirmations)).toEqual([1, REQUIRED])
      expect(await store.listTracked('SOLANA')).toEqual([])
      expect(flaky.due).toBe(false)
    } finally {
      await flaky.close()
      await bus.close()
      storeDb.close()
      rmSync(directory, { recursive: true, force: true })
    }
  })
})

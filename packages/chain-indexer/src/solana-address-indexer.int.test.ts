// SOLANA_WATCH_MODE=address end to end in the indexer: payment events in, observations out, through
// @solana/web3.js against the simulator served over HTTP and its websocket. Costs are counted in
// JSON-RPC calls, and time is the test's clock, never measured.

import { createServer, type Socket } from 'node:net'
import type { SimulatorNode } from '@chainpay/chain-sim/testing'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { defaultAssetRegistry } from '@chainpay/domain'
import { type Clock, createRootLogger } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSolanaAddressIndexer, type SolanaAddressIndexer } from './solana-address-indexer.js'
import { FINALITY_OVERDUE_MS } from './solana-address-watcher.js'
import {
  createIndexerHarness,
  type IndexerHarness,
  paymentCreated,
  type TestPayment,
  testLogger,
} from './testing/index.js'

const FINALITY_DEPTH = 31
const MINUTE_MS = 60_000
const HOUR_MS = 60 * MINUTE_MS
/** how often the running loop iterates (its poll interval) */
const ITERATION_MS = 500

let harness: IndexerHarness
let node: SimulatorNode
let nowMs: number
const clock: Clock = { now: () => new Date(nowMs) }
/** JSON-RPC calls over HTTP, by method */
let calls: string[]
/** a JSON-RPC method the node fails to answer (HTTP 503) */
let failing: string | undefined
const indexers: SolanaAddressIndexer[] = []

beforeEach(async () => {
  nowMs = Date.parse('2030-01-01T00:00:00.000Z')
  harness = await createIndexerHarness({ clock: clock.now })
  node = await harness.serve()
  calls = []
  failing = undefined
  await harness.sim.mineBlocks('SOLANA', 1)
})

afterEach(async () => {
  for (const indexer of indexers.splice(0)) {
    for (const entry of await harness.store.listWatched('SOLANA'))
      await indexer.watcher.unwatch(entry.paymentId)
  }
  await harness.close()
})

function addressIndexer(logger = testLogger): SolanaAddressIndexer {
  const counting = (async (url: string, init: RequestInit) => {
    const method = JSON.parse(String(init.body)).method
    calls.push(method)
    return method === failing ? new Response('unavailable', { status: 503 }) : fetch(url, init)
  }) as unknown as typeof fetch
  const connection = createSolanaConnection({
    rpcUrl: node.solanaUrl('SOLANA'),
    wsUrl: node.solanaWsUrl('SOLANA'),
    fetch: counting,
  })
  const indexer = createSolanaAddressIndexer({
    network: 'SOLANA',
    reader: createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection }),
    store: harness.store,
    bus: harness.bus,
    registry: defaultAssetRegistry,
    clock,
    logger,
  })
  indexers.push(indexer)
  return indexer
}

async function watched(
  indexer: SolanaAddressIndexer,
  currency: string,
  createdAt = new Date(nowMs).toISOString(),
): Promise<TestPayment> {
  const payment = paymentCreated({
    network: 'SOLANA',
    currency,
    createdAt,
    expiresAt: new Date(nowMs + 2 * HOUR_MS).toISOString(),
  })
  await indexer.handlePaymentEvent(payment.message)
  await indexer.scanOnce()
  return payment
}

async function pay(to: string, amount: string, currency: string): Promise<string> {
  const { txHash } = await harness.sim.submitTransfer('SOLANA', { to, amount, currency })
  await harness.sim.mineBlocks('SOLANA', 1)
  return txHash
}

/** until a websocket notification (or a reconnect) has marked something for the next iteration */
async function notified(indexer: SolanaAddressIndexer): Promise<void> {
  await vi.waitFor(() => expect(indexer.watcher.due).toBe(true), { timeout: 10_000, interval: 20 })
}

/** the running loop's iterations over `ms` of the test's clock */
async function runFor(indexer: SolanaAddressIndexer, ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += ITERATION_MS) {
    nowMs += ITERATION_MS
    await indexer.scanOnce()
  }
}

const count = (method: string) => calls.filter((call) => call === method).length

describe('the Solana address indexer through web3.js', () => {
  it('reports watching at once, reads a payment on its notification, and costs nothing while nothing happens', async () => {
    const indexer = addressIndexer()
    const payment = await watched(indexer, 'SOL')
    const watching = (await harness.observations.settle()).filter((message) => message.kind === 'watching')
    expect(watching).toEqual([expect.objectContaining({ paymentId: payment.paymentId })])

    calls = []
    await runFor(indexer, 10 * MINUTE_MS)
    expect(calls).toEqual([])

    const txHash = await pay(payment.address, '10', 'SOL')
    await notified(indexer)
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash, confirmations: 1, status: 'seen', amountUnits: '10000000000' }),
    ])
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await notified(indexer)
    await indexer.scanOnce()
    const trail = await harness.observations.transfersOf(payment.paymentId)
    expect(trail.map((observation) => observation.confirmations)).toEqual([1, 32])
    // the notification's listing and the read; finality came over the websocket
    expect(calls).toEqual(['getSignaturesForAddress', 'getTransaction'])
  })

  it('finds a transfer made while the websocket was down, by the reconciliation on reconnect', async () => {
    const indexer = addressIndexer()
    const payment = await watched(indexer, 'SOL')
    expect(node.solanaPubsub.subscriptionCount()).toBeGreaterThan(0)
    expect(node.solanaPubsub.dropConnections()).toBeGreaterThan(0)
    const txHash = await pay(payment.address, '10', 'SOL')
    // web3.js reconnects by itself; the reconnect marks every account
    await notified(indexer)
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash, confirmations: 1 }),
    ])
  })

  it('finds USDC paid to a token account the owner opened after the payment was watched', async () => {
    const indexer = addressIndexer()
    const payment = await watched(indexer, 'USDC')
    const opened = await harness.sim.openTokenAccount('SOLANA', { owner: payment.address, currency: 'USDC' })
    const txHash = await pay(opened.address, '10', 'USDC')
    await vi.waitFor(
      async () => {
        await indexer.scanOnce()
        expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
          expect.objectContaining({ txHash, address: opened.address, confirmations: 1 }),
        ])
      },
      { timeout: 10_000, interval: 50 },
    )
  })

  it('watches again a payment whose first watch failed half way: a token account the owner had is followed', async () => {
    const indexer = addressIndexer()
    // the last mint of the registry: its subscription and listing come last in a watch
    const last = defaultAssetRegistry.assets.filter((asset) => asset.network === 'SOLANA').at(-1)
    const currency = last?.currency as string
    const payment = paymentCreated({
      network: 'SOLANA',
      currency,
      createdAt: new Date(nowMs).toISOString(),
      expiresAt: new Date(nowMs + 2 * HOUR_MS).toISOString(),
    })
    const had = await harness.sim.openTokenAccount('SOLANA', { owner: payment.address, currency })
    await indexer.handlePaymentEvent(payment.message)
    failing = 'getTokenAccountsByOwner'
    await expect(indexer.scanOnce()).rejects.toThrow()
    failing = undefined
    await indexer.scanOnce()

    const txHash = await pay(had.address, '10', currency)
    await notified(indexer)
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash, address: had.address, confirmations: 1 }),
    ])
  })

  it('after a restart, lists each account from the last signature it saw and reads nothing again', async () => {
    const first = addressIndexer()
    const payment = await watched(first, 'SOL')
    await pay(payment.address, '10', 'SOL')
    await notified(first)
    await first.scanOnce()
    await first.stop()

    calls = []
    const restarted = addressIndexer()
    await restarted.scanOnce()
    // the reconciliation at start: the chain time (getSlot, getBlockTime), the owner's token
    // accounts per registry mint, one listing of the owner from the signature saved, and one
    // getSignatureStatuses for the transfer it still follows to finality
    const mints = defaultAssetRegistry.assets.filter(
      (asset) => asset.network === 'SOLANA' && asset.contract !== null,
    ).length
    expect(count('getSignaturesForAddress')).toBe(1)
    expect(count('getTransaction')).toBe(0)
    expect(count('getTokenAccountsByOwner')).toBe(mints)
    expect(count('getSignatureStatuses')).toBe(1)
    expect(calls.length).toBe(2 + mints + 1 + 1)
    expect(await harness.observations.transfersOf(payment.paymentId)).toHaveLength(1)
  })

  it('costs at most one call a minute of the clock with open payments and nothing happening', async () => {
    const indexer = addressIndexer()
    for (let payment = 0; payment < 5; payment++) await watched(indexer, payment % 2 === 0 ? 'SOL' : 'USDC')
    calls = []
    await runFor(indexer, HOUR_MS)
    // two safety reconciliations of 5 accounts (the owner of a SOL payment, the token account of a
    // USDC one): a chain time read (2 calls) and a listing per account each
    expect(calls.length).toBeLessThanOrEqual(60)
    expect(count('getSignaturesForAddress')).toBe(2 * 5)
  })

  it('at a payment’s deadline, lists its accounts and then publishes the chain time that lets it expire', async () => {
    const indexer = addressIndexer()
    const expiresAtMs = nowMs + 2 * HOUR_MS
    await watched(indexer, 'SOL')
    await runFor(indexer, 10 * MINUTE_MS)
    nowMs = expiresAtMs
    await harness.sim.mineBlocks('SOLANA', 1)
    calls = []
    await indexer.scanOnce()
    expect(calls).toEqual(['getSlot', 'getBlockTime', 'getSignaturesForAddress'])
    const progress = (await harness.observations.settle()).flatMap((message) =>
      message.kind === 'progress' ? [Date.parse(message.blockTime)] : [],
    )
    expect(progress.at(-1)).toBeGreaterThanOrEqual(expiresAtMs)
  })
})

describe('a counted transfer that a fork takes back (docs/chains.md, "Forks: transfers in doubt")', () => {
  /** the payment's transfer observations as [status, reason, slot] */
  const trail = async (paymentId: string) =>
    (await harness.observations.transfersOf(paymentId)).map((observation) => [
      observation.status,
      observation.dropReason,
      observation.blockHeight,
    ])

  async function seenPayment(
    indexer: SolanaAddressIndexer,
  ): Promise<{ payment: TestPayment; txHash: string; slot: number }> {
    const payment = await watched(indexer, 'SOL')
    const txHash = await pay(payment.address, '10', 'SOL')
    await notified(indexer)
    await indexer.scanOnce()
    const slot = (await harness.sim.transactionHeight('SOLANA', txHash)) as number
    expect(await trail(payment.paymentId)).toEqual([['seen', null, slot]])
    return { payment, txHash, slot }
  }

  it('popped and included again: in doubt once, then seen in its new block, and final there', async () => {
    const indexer = addressIndexer()
    const { payment, txHash, slot } = await seenPayment(indexer)
    expect(await harness.sim.dropTransaction('SOLANA', txHash, { requeue: true })).toBe(true)
    calls = []
    // a fork sends no notification: the finality that does not come has its status asked
    await runFor(indexer, FINALITY_OVERDUE_MS)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
    ])
    expect(calls).toEqual(['getSignatureStatuses'])
    // in doubt is said once, however often the status is asked
    await runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toHaveLength(2)

    await harness.sim.mineBlocks('SOLANA', 1)
    const again = (await harness.sim.transactionHeight('SOLANA', txHash)) as number
    expect(again).toBeGreaterThan(slot)
    await runFor(indexer, 10_000)
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await vi.waitFor(
      async () => {
        await runFor(indexer, 500)
        expect((await trail(payment.paymentId)).at(-1)).toEqual(['seen', null, again])
        expect((await harness.observations.transfersOf(payment.paymentId)).at(-1)?.confirmations).toBe(32)
      },
      { timeout: 10_000, interval: 50 },
    )
    expect((await trail(payment.paymentId)).map(([status]) => status)).toEqual([
      'seen',
      'in_doubt',
      'seen',
      'seen',
    ])
    expect(indexer.watcher.following).toBe(0)
  })

  it('included again as a failed transaction: in doubt, then dropped REVERTED', async () => {
    const indexer = addressIndexer()
    const { payment, slot } = await seenPayment(indexer)
    const [seen] = await harness.observations.transfersOf(payment.paymentId)
    expect(
      await harness.sim.dropTransaction('SOLANA', seen?.txHash as string, { requeue: true, fail: true }),
    ).toBe(true)
    await runFor(indexer, FINALITY_OVERDUE_MS)
    await harness.sim.mineBlocks('SOLANA', 1)
    await runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
      ['dropped', 'REVERTED', slot],
    ])
    expect(indexer.watcher.following).toBe(0)
  })

  it('never in doubt for a node that fails to answer: a failed call is unknown, not gone', async () => {
    const indexer = addressIndexer()
    const { payment, slot } = await seenPayment(indexer)
    failing = 'getSignatureStatuses'
    calls = []
    for (let elapsed = 0; elapsed < 2 * FINALITY_OVERDUE_MS; elapsed += ITERATION_MS) {
      nowMs += ITERATION_MS
      await indexer.scanOnce().catch(() => {})
    }
    expect(count('getSignatureStatuses')).toBeGreaterThan(0)
    failing = undefined
    await runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([['seen', null, slot]])
    expect(indexer.watcher.following).toBe(1)
  })

  it('dropped for good: in doubt, then dropped EXPIRED once its blockhash expired on the chain', async () => {
    const indexer = addressIndexer()
    const { payment, txHash, slot } = await seenPayment(indexer)
    expect(await harness.sim.dropTransaction('SOLANA', txHash)).toBe(true)
    // the node forgets a transaction of an abandoned fork, as a real node does (web3.js reads it)
    const reader = createSolanaAddressReader({
      network: 'SOLANA',
      registry: defaultAssetRegistry,
      connection: createSolanaConnection({ rpcUrl: node.solanaUrl('SOLANA') }),
    })
    expect(await reader.statuses([txHash])).toEqual(new Map([[txHash, null]]))
    expect(await reader.transaction(txHash)).toBeNull()
    expect((await reader.activitySince(payment.address, null)).map((item) => item.signature)).not.toContain(
      txHash,
    )
    await runFor(indexer, FINALITY_OVERDUE_MS)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
    ])
    // the chain time is past its blockhash's expiry only once a later block says so
    await runFor(indexer, 2 * MINUTE_MS)
    expect(await trail(payment.paymentId)).toHaveLength(2)
    await harness.sim.mineBlocks('SOLANA', 1)
    await runFor(indexer, 10_000)
    expect(await trail(payment.paymentId)).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
      ['dropped', 'EXPIRED', slot],
    ])
    expect(indexer.watcher.following).toBe(0)
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })
})

describe('a node started from a snapshot (docs/chains.md, "Backfill")', () => {
  it('says so, once, when a new payment was created before the first block the node has', async () => {
    const createdAt = new Date(nowMs).toISOString()
    for (let block = 0; block < 60; block++) {
      nowMs += 2_000
      await harness.sim.mineBlocks('SOLANA', 1)
    }
    harness.sim.forgetHistoryBelow('SOLANA', 20)
    const lines: string[] = []
    const indexer = addressIndexer(
      createRootLogger({
        service: 'test',
        level: 'error',
        destination: { write: (line) => lines.push(line) },
      }),
    )
    calls = []
    const old = await watched(indexer, 'SOL', createdAt)
    const recent = await watched(indexer, 'SOL')
    await runFor(indexer, MINUTE_MS)

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
    expect(reports.some((line) => line.paymentId === recent.paymentId)).toBe(false)
    // read once for both payments
    expect(count('getFirstAvailableBlock')).toBe(1)
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
      clock,
      logger: testLogger,
    })
    try {
      await indexer.start()
      // the first reconciliation asks the chain time
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

// The indexer's work per block must not grow with the number of addresses it watches. Timing would
// be flaky and prove little, so this counts what it does instead: two indexers scan the very same
// simulated blocks, one watching 10 addresses and one 10,000 (the same 10 among them, so they find
// the same payments), and every operation is counted: chain client calls and the blocks and
// transfers they return, store calls, bus publishes, watch-set lookups, and every property read of
// any watched entry. Reading an entry it does not need is how a per-block pass over the set would
// show; the startup (loading the set) is such a pass, once, and is not counted. The prune repeats
// once a minute of clock time; the clock moves a minute per block here, so that every block's
// iteration prunes too, and a prune that walked the set would show. scripts/bench/chain-watch
// measures the time of both.

import { type ChainSimulator, simulatedAddress } from '@chainpay/chain-sim'
import type { TransferObservation } from '@chainpay/contracts'
import { type Chain, defaultAssetRegistry, findNetwork, resolveAsset } from '@chainpay/domain'
import { createManualClock } from '@chainpay/platform'
import type { Bus, ChainBlock, ChainClient, ChainIndexerStore, WatchedAddress } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainIndexer } from './indexer.js'
import { createIndexerHarness, harnessIndexer, type IndexerHarness } from './testing/indexer-harness.js'

const SMALL = 10
const LARGE = 10_000
/** transfers to fresh addresses in each block, besides the paid ones and the decoys */
const OTHER_TRANSFERS_PER_BLOCK = 20

/** everything one indexer did, by operation */
type Counts = Record<string, number>

interface Probe {
  counts: Counts
  reset(): void
}

function createProbe(): Probe {
  const probe: Probe = {
    counts: {},
    reset() {
      probe.counts = {}
    },
  }
  return probe
}

function count(probe: Probe, operation: string, by = 1): void {
  probe.counts[operation] = (probe.counts[operation] ?? 0) + by
}

function countingClient(client: ChainClient, probe: Probe): ChainClient {
  return {
    network: client.network,
    async getHead() {
      count(probe, 'client.getHead')
      return client.getHead()
    },
    async getBlocks(from, to) {
      const blocks: ChainBlock[] = await client.getBlocks(from, to)
      count(probe, 'client.getBlocks')
      count(probe, 'client.blocks returned', blocks.length)
      count(
        probe,
        'client.transfers returned',
        blocks.reduce((sum, block) => sum + block.transfers.length, 0),
      )
      return blocks
    },
  }
}

/** every property read of the entry counts */
function countingEntry(entry: WatchedAddress, probe: Probe): WatchedAddress {
  return new Proxy(entry, {
    get(target, property, receiver) {
      count(probe, 'watched entry property reads')
      return Reflect.get(target, property, receiver)
    },
  })
}

function countingStore(store: ChainIndexerStore, probe: Probe): ChainIndexerStore {
  const counted =
    <A extends unknown[], R>(name: string, call: (...args: A) => R) =>
    (...args: A): R => {
      count(probe, `store.${name}`)
      return call(...args)
    }
  return {
    loadCursor: counted('loadCursor', (network: string) => store.loadCursor(network)),
    saveCursor: counted('saveCursor', store.saveCursor.bind(store)),
    watch: counted('watch', store.watch.bind(store)),
    unwatch: counted('unwatch', store.unwatch.bind(store)),
    unwatchExpired: counted('unwatchExpired', store.unwatchExpired.bind(store)),
    listWatched: counted('listWatched', async (network: string) =>
      (await store.listWatched(network)).map((entry) => countingEntry(entry, probe)),
    ),
    track: counted('track', store.track.bind(store)),
    untrack: counted('untrack', store.untrack.bind(store)),
    listTracked: counted('listTracked', store.listTracked.bind(store)),
    saveFollowedAccount: counted('saveFollowedAccount', store.saveFollowedAccount.bind(store)),
    forgetFollowedAccount: counted('forgetFollowedAccount', store.forgetFollowedAccount.bind(store)),
    listFollowedAccounts: counted('listFollowedAccounts', store.listFollowedAccounts.bind(store)),
    watchDepositAddress: counted('watchDepositAddress', store.watchDepositAddress.bind(store)),
    listDepositAddresses: counted('listDepositAddresses', store.listDepositAddresses.bind(store)),
  }
}

function countingBus(bus: Bus, probe: Probe): Bus {
  return {
    async publish(topic, messages) {
      count(probe, 'bus.publish')
      count(probe, 'bus messages', messages.length)
      return bus.publish(topic, messages)
    },
    subscribe: (options) => bus.subscribe(options),
    subscriptionFailures: () => bus.subscriptionFailures(),
    close: () => bus.close(),
  }
}

/** counts the indexer's lookups in its watch set */
function countMatches(indexer: ChainIndexer, probe: Probe): void {
  const match = indexer.watchSet.match.bind(indexer.watchSet)
  indexer.watchSet.match = (transfer) => {
    count(probe, 'watchSet.match')
    return match(transfer)
  }
}

interface WatchedPayment extends WatchedAddress {
  currency: string
}

/** open payments of the network, half in its token and half in its native coin, watching reported */
function watchedPayments(network: string, chain: Chain, token: string, native: string, n: number) {
  const now = Date.now()
  return Array.from({ length: n }, (_, i): WatchedPayment => {
    const currency = i % 2 === 0 ? token : native
    return {
      network,
      address: simulatedAddress(chain),
      paymentId: `scale-${i}`,
      assetContract: resolveAsset(defaultAssetRegistry, { network, currency }).contract,
      watchUntil: new Date(now + 86_400_000).toISOString(),
      paymentCreatedAt: new Date(now - 60_000).toISOString(),
      requiredConfirmations: findNetwork(defaultAssetRegistry, network)?.requiredConfirmations ?? 1,
      watchingReportedAt: new Date(now).toISOString(),
      currency,
    }
  })
}

function nth(payments: WatchedPayment[], index: number): WatchedPayment {
  const payment = payments[index]
  if (payment === undefined) throw new RangeError(`no watched payment ${index}`)
  return payment
}

async function fill(harness: IndexerHarness, payments: WatchedPayment[]): Promise<void> {
  harness.db.exec('BEGIN')
  for (const { currency: _, ...entry } of payments) await harness.store.watch(entry)
  harness.db.exec('COMMIT')
}

/**
 * Mines one block on `sim`: two transfers paying watched payments, a failed one and a counterfeit
 * token to watched addresses (which must not match), and transfers to fresh addresses. Returns the
 * paying transactions.
 */
async function mineBlock(
  sim: ChainSimulator,
  network: string,
  chain: Chain,
  payments: WatchedPayment[],
  block: number,
): Promise<string[]> {
  const paying = [nth(payments, block % SMALL), nth(payments, (block + 3) % SMALL)]
  const paid: string[] = []
  for (const payment of paying) {
    const { txHash } = await sim.submitTransfer(network, {
      to: payment.address,
      amount: '10',
      currency: payment.currency,
    })
    paid.push(txHash)
  }
  // payment 0 is one in the network's token
  const token = nth(payments, 0)
  await sim.submitTransfer(network, { to: token.address, amount: '10', currency: token.currency, fail: true })
  await sim.submitTransfer(network, {
    to: token.address,
    amount: '10',
    currency: token.currency,
    contract: simulatedAddress(chain),
  })
  for (let i = 0; i < OTHER_TRANSFERS_PER_BLOCK; i++) {
    const payment = nth(payments, i % SMALL)
    await sim.submitTransfer(network, {
      to: simulatedAddress(chain),
      amount: '1',
      currency: payment.currency,
    })
  }
  await sim.mineBlocks(network, 1)
  return paid
}

async function seenTransactions(harness: IndexerHarness): Promise<Set<string>> {
  const observations = await harness.observations.settle()
  return new Set(
    observations
      .filter((o): o is TransferObservation => o.kind === 'transfer' && o.status === 'seen')
      .map((o) => o.txHash),
  )
}

let chain: IndexerHarness
let otherStore: IndexerHarness

beforeEach(async () => {
  chain = await createIndexerHarness()
  otherStore = await createIndexerHarness()
})

afterEach(async () => {
  await chain.close()
  await otherStore.close()
})

describe('the chain indexer at scale', () => {
  it.each([
    { network: 'TRON', chain: 'TRON' as const, token: 'USDT', native: 'TRX' },
    { network: 'SOLANA', chain: 'SOLANA' as const, token: 'USDC', native: 'SOL' },
  ])(
    'does the same work per block on $network with 10 or 10,000 watched addresses',
    async ({ network, chain: chainName, token, native }) => {
      const payments = watchedPayments(network, chainName, token, native, LARGE)
      await fill(chain, payments.slice(0, SMALL))
      await fill(otherStore, payments)
      const start = (await chain.sim.mineBlocks(network, 1)).height
      const clock = createManualClock(new Date())

      const indexerOn = (harness: IndexerHarness, probe: Probe) => {
        const indexer = harnessIndexer(harness, network, {
          client: countingClient(chain.sim.client(network), probe),
          store: countingStore(harness.store, probe),
          bus: countingBus(harness.bus, probe),
          clock,
          startHeight: start,
        })
        countMatches(indexer, probe)
        return indexer
      }
      const small = createProbe()
      const large = createProbe()
      const smallIndexer = indexerOn(chain, small)
      const largeIndexer = indexerOn(otherStore, large)

      await smallIndexer.scanOnce()
      await largeIndexer.scanOnce()
      expect(smallIndexer.watchSet.size).toBe(SMALL)
      expect(largeIndexer.watchSet.size).toBe(LARGE)
      // the probe sees a pass over the whole set: loading it reads every entry
      expect(large.counts['watched entry property reads']).toBeGreaterThanOrEqual(LARGE)
      small.reset()
      large.reset()

      // past the required confirmations, so that transfers also leave the indexer's tracking
      const blocks = (findNetwork(defaultAssetRegistry, network)?.requiredConfirmations ?? 1) + 5
      const paid = new Set<string>()
      for (let block = 1; block <= blocks; block++) {
        for (const txHash of await mineBlock(chain.sim, network, chainName, payments, block)) paid.add(txHash)
        clock.advance(61_000)
        await smallIndexer.scanOnce()
        await largeIndexer.scanOnce()
      }

      expect(large.counts).toEqual(small.counts)
      // and the counts are of real work: every transfer looked up once, the payments found
      const transfersPerBlock = 2 + 2 + OTHER_TRANSFERS_PER_BLOCK
      expect(small.counts['watchSet.match']).toBe(blocks * transfersPerBlock)
      expect(small.counts['watched entry property reads']).toBeGreaterThan(0)
      expect(small.counts['store.track']).toBeGreaterThan(0)
      expect(small.counts['store.untrack']).toBeGreaterThan(0)
      expect(small.counts['store.unwatchExpired']).toBe(blocks)
      expect(await seenTransactions(chain)).toEqual(paid)
      expect(await seenTransactions(otherStore)).toEqual(paid)
    },
  )
})

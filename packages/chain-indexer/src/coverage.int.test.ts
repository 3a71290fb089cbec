import type { ChainObservationMessage } from '@chainpay/contracts'
import type { ChainClient } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createIndexerHarness,
  harnessIndexer,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
} from './testing/indexer-harness.js'

let harness: IndexerHarness

beforeEach(async () => {
  harness = await createIndexerHarness()
})

afterEach(async () => {
  await harness.close()
})

/** what one payment, and the network's progress, looked like on the topic, in order */
function timeline(observations: ChainObservationMessage[], paymentId: string): string[] {
  return observations.flatMap((observation) => {
    if (observation.kind === 'progress') return [`progress ${observation.height}`]
    if (observation.kind === 'deposit') return []
    if (observation.paymentId !== paymentId) return []
    if (observation.kind === 'watching') return ['watching']
    if (observation.kind === 'foreign_funds') return [`foreign ${observation.currency}`]
    return [`${observation.status} ${observation.blockHeight}/${observation.confirmations}`]
  })
}

const watchingCount = (observations: ChainObservationMessage[], paymentId: string) =>
  observations.filter((o) => o.kind === 'watching' && o.paymentId === paymentId).length

describe('coverage of newly watched addresses', () => {
  it("on an indexer's first run, rescans the blocks below its first scan for a payment created before it", async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'TRX' })
    const paid = (await harness.sim.mineBlocks('TRON', 1)).height
    await harness.sim.mineBlocks('TRON', 3)
    // never run before: no cursor, and the first scan starts at the head
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()

    const observations = await harness.observations.settle()
    expect(timeline(observations, payment.paymentId)).toEqual([
      `seen ${paid}/4`,
      'watching',
      `progress ${paid + 3}`,
    ])
  })

  it('publishes no progress while a backfill is pending: the transfer found by it comes first', async () => {
    const base = harness.sim.client('TRON')
    let duringNextFetch: (() => Promise<void>) | undefined
    // the payment event gets handled while the indexer waits for new blocks
    const client: ChainClient = {
      network: 'TRON',
      getHead: () => base.getHead(),
      async getBlocks(from, to) {
        const hook = duringNextFetch
        duringNextFetch = undefined
        await hook?.()
        return base.getBlocks(from, to)
      },
    }
    const indexer = harnessIndexer(harness, 'TRON', { client })
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT' })
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'USDT' })
    await mineAndScan(harness, indexer)
    const paid = (await harness.sim.head('TRON')).height
    await harness.sim.mineBlocks('TRON', 1)
    const before = (await harness.observations.settle()).length

    duringNextFetch = () => indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()

    const after = (await harness.observations.settle()).slice(before)
    expect(timeline(after, payment.paymentId)).toEqual([`seen ${paid}/2`, 'watching', `progress ${paid + 1}`])
  })

  it('holds back progress while a backfill requested during the last one waits, and publishes it after', async () => {
    const base = harness.sim.client('TRON')
    const duringFetches: Array<() => Promise<void>> = []
    const client: ChainClient = {
      network: 'TRON',
      getHead: () => base.getHead(),
      async getBlocks(from, to) {
        await duringFetches.shift()?.()
        return base.getBlocks(from, to)
      },
    }
    const indexer = harnessIndexer(harness, 'TRON', { client })
    await indexer.scanOnce()
    const first = paymentCreated({ network: 'TRON', currency: 'USDT' })
    const second = paymentCreated({ network: 'TRON', currency: 'USDT' })
    for (const payment of [first, second]) {
      await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'USDT' })
    }
    await mineAndScan(harness, indexer)
    const paid = (await harness.sim.head('TRON')).height
    await harness.sim.mineBlocks('TRON', 1)
    const before = (await harness.observations.settle()).length

    // the first payment event comes during the scan, the second during the first one's backfill
    duringFetches.push(
      () => indexer.handlePaymentEvent(first.message),
      () => indexer.handlePaymentEvent(second.message),
    )
    await indexer.scanOnce()
    const held = (await harness.observations.settle()).slice(before)
    expect(held.filter((observation) => observation.kind === 'progress')).toEqual([])
    await indexer.scanOnce()

    const after = (await harness.observations.settle()).slice(before)
    const label = (paymentId: string) => (paymentId === first.paymentId ? 'first' : 'second')
    expect(
      after.map((o) =>
        o.kind === 'progress'
          ? `progress ${o.height}`
          : o.kind === 'deposit'
            ? o.kind
            : `${o.kind} ${label(o.paymentId)}`,
      ),
    ).toEqual([
      'transfer first',
      'watching first',
      'transfer second',
      'watching second',
      `progress ${paid + 1}`,
    ])
  })

  it('reports watching once, after the transfers that the backfill found', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT' })
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'USDT' })
    await mineAndScan(harness, indexer, 2)
    const paid = (await harness.sim.head('TRON')).height - 1
    const before = (await harness.observations.settle()).length

    await indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer)

    const after = (await harness.observations.settle()).slice(before)
    expect(timeline(after, payment.paymentId)).toEqual([
      `seen ${paid}/2`,
      'watching',
      `seen ${paid}/3`,
      `progress ${paid + 2}`,
      `seen ${paid}/4`,
      `progress ${paid + 3}`,
    ])
  })

  it('reports watching for an address watched before its payment was paid, at the next iteration', async () => {
    const indexer = harnessIndexer(harness, 'SOLANA')
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'SOLANA', currency: 'USDC' })
    await indexer.handlePaymentEvent(payment.message)
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer)

    const observations = await harness.observations.settle()
    expect(observations.filter((o) => o.kind === 'watching')).toEqual([
      {
        kind: 'watching',
        network: 'SOLANA',
        paymentId: payment.paymentId,
        address: payment.tokenAccount,
        observedAt: expect.any(String),
      },
    ])
    expect(await harness.store.listWatched('SOLANA')).toMatchObject([
      { paymentId: payment.paymentId, watchingReportedAt: expect.any(String) },
    ])
  })

  it('after a crash, backfills and reports every watched address whose watching was not reported', async () => {
    const first = harnessIndexer(harness, 'TRON')
    await first.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT' })
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'USDT' })
    await mineAndScan(harness, first, 2)
    const paid = (await harness.sim.head('TRON')).height - 1
    // the address is stored, then the process dies before its next iteration
    await first.handlePaymentEvent(payment.message)
    const before = (await harness.observations.settle()).length

    const restarted = harnessIndexer(harness, 'TRON')
    await restarted.scanOnce()
    const after = (await harness.observations.settle()).slice(before)
    expect(timeline(after, payment.paymentId)).toEqual([`seen ${paid}/2`, 'watching'])

    const again = harnessIndexer(harness, 'TRON')
    await again.scanOnce()
    await mineAndScan(harness, again)
    expect(watchingCount(await harness.observations.settle(), payment.paymentId)).toBe(1)
  })
})

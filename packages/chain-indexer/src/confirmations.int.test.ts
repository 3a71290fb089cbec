import type { ChainObservationMessage, TransferObservation } from '@chainpay/contracts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createIndexerHarness,
  harnessIndexer,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
  unreliableClient,
} from './testing/indexer-harness.js'

let harness: IndexerHarness

beforeEach(async () => {
  harness = await createIndexerHarness()
})

afterEach(async () => {
  await harness.close()
})

/** an indexer on a client that can leave out or fork chosen heights, watching one TRX payment */
async function paidPayment(fields: { requiredConfirmations?: number } = {}) {
  const flaky = unreliableClient(harness.sim.client('TRON'))
  const indexer = harnessIndexer(harness, 'TRON', { client: flaky.client })
  await indexer.scanOnce()
  const payment = paymentCreated({ network: 'TRON', currency: 'TRX', ...fields })
  await indexer.handlePaymentEvent(payment.message)
  await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'TRX' })
  await mineAndScan(harness, indexer)
  const height = (await harness.sim.head('TRON')).height
  return { ...flaky, indexer, payment, height }
}

const statuses = (observations: TransferObservation[]) =>
  observations.map(({ status, confirmations, dropReason }) =>
    status === 'seen' ? `seen ${confirmations}` : `${status} ${dropReason}`,
  )

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index)

describe('confirmation tracking', () => {
  it("counts from the head: the transfer's block is not read again while it confirms", async () => {
    const { indexer, payment, height, client } = await paidPayment()
    const heights: number[] = []
    const counting = {
      ...client,
      network: client.network,
      getHead: () => client.getHead(),
      getBlocks: async (from: number, to: number) => {
        for (let read = from; read <= to; read++) heights.push(read)
        return client.getBlocks(from, to)
      },
    }
    const counted = harnessIndexer(harness, 'TRON', { client: counting })
    await counted.scanOnce()
    heights.length = 0
    for (let block = 0; block < 20; block++) await mineAndScan(harness, counted)

    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual(
      range(1, 20).map((confirmations) => `seen ${confirmations}`),
    )
    // each new block once, and nothing below
    expect(heights).toEqual(range(height + 1, height + 20))
    expect(indexer.network).toBe('TRON')
  })

  it('stores a followed transfer when it is first seen, not at every count; after a restart it reports the count it finds', async () => {
    const tracks: number[] = []
    const store = {
      ...harness.store,
      track: async (transfer: Parameters<typeof harness.store.track>[0]) => {
        tracks.push(transfer.confirmations)
        await harness.store.track(transfer)
      },
    }
    const indexer = harnessIndexer(harness, 'TRON', { store })
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await indexer.handlePaymentEvent(payment.message)
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'TRX' })
    await mineAndScan(harness, indexer)
    for (let block = 0; block < 10; block++) await mineAndScan(harness, indexer)

    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual(
      range(1, 11).map((confirmations) => `seen ${confirmations}`),
    )
    // eleven counts reported, one write
    expect(tracks).toEqual([1])
    expect((await harness.store.listTracked('TRON')).map((tracked) => tracked.confirmations)).toEqual([1])

    // a restart reads the stored count (1) and reports the count it finds, once; the rest follow
    const restarted = harnessIndexer(harness, 'TRON', { store })
    await mineAndScan(harness, restarted)
    await mineAndScan(harness, restarted)
    expect(statuses(await harness.observations.transfersOf(payment.paymentId)).slice(11)).toEqual([
      'seen 12',
      'seen 13',
    ])
  })

  it('reads the block of a followed transfer once after a restart, then counts from the head', async () => {
    const { payment, height, client } = await paidPayment()
    const heights: number[] = []
    const counting = {
      ...client,
      network: client.network,
      getHead: () => client.getHead(),
      getBlocks: async (from: number, to: number) => {
        for (let read = from; read <= to; read++) heights.push(read)
        return client.getBlocks(from, to)
      },
    }
    const restarted = harnessIndexer(harness, 'TRON', { client: counting })
    for (let block = 0; block < 5; block++) await mineAndScan(harness, restarted)

    expect(heights.filter((read) => read === height)).toHaveLength(1)
    expect(statuses(await harness.observations.transfersOf(payment.paymentId)).at(-1)).toBe('seen 6')
  })

  it('puts in doubt a transfer a fork pops, and counts it again when the chain includes it again', async () => {
    const { indexer, payment, height } = await paidPayment()
    const [{ txHash } = { txHash: '' }] = await harness.observations.transfersOf(payment.paymentId)
    await mineAndScan(harness, indexer, 2)
    expect(await harness.sim.dropTransaction('TRON', txHash, { requeue: true })).toBe(true)
    await indexer.scanOnce()
    for (let block = 0; block < 20; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(statuses(observations).slice(0, 4)).toEqual(['seen 1', 'seen 3', 'in_doubt null', 'seen 1'])
    expect(observations.at(-1)).toMatchObject({ status: 'seen', confirmations: 20, blockHeight: height + 3 })
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it("reports a transfer in doubt dropped once its payment's requirement in blocks has passed (no final chain to ask)", async () => {
    const { indexer, payment, height } = await paidPayment({ requiredConfirmations: 5 })
    const [{ txHash } = { txHash: '' }] = await harness.observations.transfersOf(payment.paymentId)
    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await indexer.scanOnce()
    expect(await harness.store.listTracked('TRON')).toMatchObject([
      { txHash, withdrawnUntilHeight: height + 5 },
    ])

    await mineAndScan(harness, indexer, 5)
    expect(await harness.store.listTracked('TRON')).toHaveLength(1)
    await mineAndScan(harness, indexer)
    expect(await harness.store.listTracked('TRON')).toEqual([])
    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      'seen 1',
      'in_doubt null',
      'dropped EXPIRED',
    ])
  })

  it('reports a transfer in doubt included again in a later block, even if its address is no longer watched', async () => {
    const { indexer, payment, height, forked, included, client } = await paidPayment()
    const [paidBlock] = await harness.sim.client('TRON').getBlocks(height, height)
    // restarted with the address no longer watched: the block read again is on another fork now
    forked.add(height)
    await harness.store.unwatch('TRON', payment.address)
    const restarted = harnessIndexer(harness, 'TRON', { client })
    await restarted.scanOnce()
    // and the transaction back in the next block
    included.set(height + 1, paidBlock?.transfers ?? [])
    await mineAndScan(harness, restarted)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(statuses(observations)).toEqual(['seen 1', 'in_doubt null', 'seen 1'])
    expect(observations.at(-1)).toMatchObject({ blockHeight: height + 1, txHash: observations[0]?.txHash })
    expect(restarted.watchSet.size).toBe(0)
    expect(indexer.network).toBe('TRON')
  })

  it('puts in doubt, never drops, a transfer whose block stays missing after a restart until it would be final', async () => {
    const { payment, height, missing, client } = await paidPayment({ requiredConfirmations: 5 })
    missing.add(height)
    const restarted = harnessIndexer(harness, 'TRON', { client })
    for (let block = 0; block < 6; block++) await mineAndScan(harness, restarted)

    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      'seen 1',
      'in_doubt null',
    ])
  })

  it.each([
    { required: 25, reason: 'above the network requirement of 20' },
    { required: 3, reason: 'below the network requirement of 20' },
  ])("counts to the payment's own requirement, $required, $reason", async ({ required }) => {
    const { indexer, payment } = await paidPayment({ requiredConfirmations: required })
    for (let block = 0; block < 30; block++) await mineAndScan(harness, indexer)

    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual(
      range(1, required).map((confirmations) => `seen ${confirmations}`),
    )
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })
})

describe('finality reported by the node', () => {
  it('counts a transfer to its requirement, and reports it final only once its block is final', async () => {
    // the simulator finalizes TRON blocks 18 below the head, as solidification does
    const indexer = harnessIndexer(harness, 'TRON', {
      client: harness.sim.client('TRON', { reportFinalized: true }),
    })
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX', requiredConfirmations: 3 })
    await indexer.handlePaymentEvent(payment.message)
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'TRX' })
    await mineAndScan(harness, indexer)
    const height = (await harness.sim.head('TRON')).height
    for (let block = 0; block < 20; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.settle()
    const seen = observations.filter((observation) => observation.kind === 'transfer')
    expect(statuses(seen as TransferObservation[])).toEqual(['seen 1', 'seen 2', 'seen 3', 'seen 3'])
    expect(seen.map((observation) => (observation as TransferObservation).final)).toEqual([
      false,
      false,
      false,
      true,
    ])
    // counted final only once the head was 18 above the transfer's block, not at 3 confirmations
    const final = observations.indexOf(seen[3] as ChainObservationMessage)
    expect(progressHeights(observations.slice(0, final)).at(-1)).toBe(height + 17)
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })
})

describe('final where the final chain has it (a fork deeper than the rescan moved it)', () => {
  it('reports it final at the height the final chain names, with that block’s time', async () => {
    const { payment, height, client } = await paidPayment({ requiredConfirmations: 3 })
    await harness.sim.mineBlocks('TRON', 3)
    const [moved] = await harness.sim.client('TRON').getBlocks(height + 1, height + 1)
    const asking = harnessIndexer(harness, 'TRON', {
      client: { ...client, finalInclusion: async () => ({ blockHeight: height + 1, success: true }) },
    })
    await mineAndScan(harness, asking)

    const [final] = (await harness.observations.transfersOf(payment.paymentId)).filter((item) => item.final)
    expect(final).toMatchObject({ blockHeight: height + 1, blockTime: moved?.time })
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })
})

function progressHeights(observations: ChainObservationMessage[]): number[] {
  return observations.flatMap((observation) => (observation.kind === 'progress' ? [observation.height] : []))
}

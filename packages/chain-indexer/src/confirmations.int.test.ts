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
  it('keeps counting a transfer whose block one answer lacks (a node lagging behind)', async () => {
    const { indexer, payment, height, missing } = await paidPayment()
    missing.add(height)
    await mineAndScan(harness, indexer)
    missing.delete(height)
    for (let block = 0; block < 20; block++) await mineAndScan(harness, indexer)

    expect(statuses(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      'seen 1',
      ...range(3, 20).map((confirmations) => `seen ${confirmations}`),
    ])
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it('reports a withdrawn transfer seen again when its block comes back on the canonical chain', async () => {
    const { indexer, payment, height, forkedOnce } = await paidPayment()
    // one answer from a node on a short-lived fork: the block at the height holds another hash
    forkedOnce.add(height)
    await mineAndScan(harness, indexer)
    for (let block = 0; block < 20; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(statuses(observations)).toEqual([
      'seen 1',
      'in_doubt null',
      ...range(3, 20).map((confirmations) => `seen ${confirmations}`),
    ])
    expect(observations.at(-1)).toMatchObject({ blockHeight: height, status: 'seen' })
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it("reports a transfer in doubt dropped once its payment's requirement in blocks has passed", async () => {
    const { indexer, payment, height, forked } = await paidPayment({ requiredConfirmations: 5 })
    forked.add(height)
    await mineAndScan(harness, indexer)
    const dropHead = height + 1
    expect(await harness.store.listTracked('TRON')).toMatchObject([
      { txHash: expect.any(String), withdrawnUntilHeight: dropHead + 5 },
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

  it('reports a withdrawn transfer included again in a later block, even if its address is no longer watched', async () => {
    const { indexer, payment, height, forked, included, client } = await paidPayment()
    const [paidBlock] = await harness.sim.client('TRON').getBlocks(height, height)
    forked.add(height)
    await mineAndScan(harness, indexer)
    // restarted with the address no longer watched, and the transaction back in the next block
    await harness.store.unwatch('TRON', payment.address)
    included.set(height + 2, paidBlock?.transfers ?? [])
    const restarted = harnessIndexer(harness, 'TRON', { client })
    await mineAndScan(harness, restarted)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(statuses(observations)).toEqual(['seen 1', 'in_doubt null', 'seen 1'])
    expect(observations.at(-1)).toMatchObject({ blockHeight: height + 2, txHash: observations[0]?.txHash })
    expect(restarted.watchSet.size).toBe(0)
  })

  it('withdraws a transfer whose block stays missing until the transfer would be final (a skipped slot)', async () => {
    const { indexer, payment, height, missing } = await paidPayment({ requiredConfirmations: 5 })
    missing.add(height)
    for (let block = 0; block < 6; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.settle()
    const withdrawal = observations.findIndex(
      (observation) => observation.kind === 'transfer' && observation.status === 'in_doubt',
    )
    expect(withdrawal).toBeGreaterThan(-1)
    // five confirmations are reached when the head is four blocks above the transfer
    expect(progressHeights(observations.slice(0, withdrawal)).at(-1)).toBe(height + 3)
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
  it('holds a transfer one short of its requirement until its block is final', async () => {
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
    expect(statuses(seen as TransferObservation[])).toEqual(['seen 1', 'seen 2', 'seen 3'])
    // counted final only once the head was 18 above the transfer's block, not at 3 confirmations
    const final = observations.indexOf(seen[2] as ChainObservationMessage)
    expect(progressHeights(observations.slice(0, final)).at(-1)).toBe(height + 17)
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })
})

function progressHeights(observations: ChainObservationMessage[]): number[] {
  return observations.flatMap((observation) => (observation.kind === 'progress' ? [observation.height] : []))
}

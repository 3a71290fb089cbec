// Issue 12's TRON cases end to end: the real chain indexer reading the simulator's java-tron routes
// through tronweb, its observations decided by the payment's own decider (payment-fold.ts). Time
// is simulated: each mined block is 3 s after the one before, as on mainnet, and the indexer's
// clock is the chain's.
import type { ChainIndexer } from '@chainpay/chain-indexer'
import {
  createIndexerHarness,
  type IndexerHarness,
  paymentCreated,
  servedIndexer,
  type TestPayment,
} from '@chainpay/chain-indexer/testing'
import { createTronChainClient } from '@chainpay/chain-tron'
import type {
  ChainObservationMessage,
  ForeignFundsObservation,
  TransferObservation,
} from '@chainpay/contracts'
import { decidePayment, defaultAssetRegistry } from '@chainpay/domain'
import type { ChainClient } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { paymentAfter } from './payment-fold.js'

const BLOCK_MS = 3_000
let nowMs = Date.parse('2030-01-01T00:00:00.000Z')
const clock = { now: () => new Date(nowMs) }

let harness: IndexerHarness
let indexer: ChainIndexer
/** every getBlocks range the indexer asked for */
let ranges: Array<[number, number]>

async function tronIndexer(): Promise<ChainIndexer> {
  ranges = []
  return servedIndexer(
    harness,
    'TRON',
    (node) => {
      const client = createTronChainClient({
        network: 'TRON',
        registry: defaultAssetRegistry,
        fullNodeUrl: node.tronUrl('TRON'),
      })
      const counted: ChainClient = {
        ...client,
        network: client.network,
        getHead: () => client.getHead(),
        getBlocks: (from, to) => {
          ranges.push([from, to])
          return client.getBlocks(from, to)
        },
      }
      return counted
    },
    { clock },
  )
}

beforeEach(async () => {
  nowMs = Date.parse('2030-01-01T00:00:00.000Z')
  harness = await createIndexerHarness({ clock: clock.now })
  await harness.sim.mineBlocks('TRON', 1)
  indexer = await tronIndexer()
})

afterEach(() => harness.close())

async function mineAndScan(blocks = 1): Promise<void> {
  for (let block = 0; block < blocks; block++) {
    nowMs += BLOCK_MS
    await harness.sim.mineBlocks('TRON', 1)
    await indexer.scanOnce()
  }
}

/** a payment of 10 `currency`, created now, expiring `expiresInMs` later, watched by the indexer */
async function watched(currency: string, expiresInMs = 30 * 60_000): Promise<TestPayment> {
  const payment = paymentCreated({
    network: 'TRON',
    currency,
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: new Date(nowMs + expiresInMs).toISOString(),
  })
  await indexer.handlePaymentEvent(payment.message)
  return payment
}

async function observationsOf(
  payment: TestPayment,
): Promise<Array<TransferObservation | ForeignFundsObservation>> {
  return (await harness.observations.settle()).filter(
    (observation): observation is TransferObservation | ForeignFundsObservation =>
      (observation.kind === 'transfer' || observation.kind === 'foreign_funds') &&
      observation.paymentId === payment.paymentId,
  )
}

const trail = (observations: ChainObservationMessage[]) =>
  observations.flatMap((observation) =>
    observation.kind === 'transfer' && observation.status !== 'seen' ? [observation.status] : [],
  )

describe('a TRON fork takes back a counted transfer (docs/api.md, "Transfers the chain takes back")', () => {
  it('popped, in doubt, then re-included by a later block: counted again, once, and the payment is confirmed, not failed', async () => {
    const payment = await watched('USDT')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(3)

    expect(await harness.sim.dropTransaction('TRON', txHash, { requeue: true })).toBe(true)
    // the indexer sees the fork before the next block carries the transaction again
    await indexer.scanOnce()
    await mineAndScan(25)

    const observations = await observationsOf(payment)
    expect(trail(observations)).toEqual(['in_doubt'])
    const settled = paymentAfter(payment, observations)
    expect(settled).toMatchObject({ status: 'confirmed', receivedUnits: '10000000', txHash })
    expect(settled.transfers).toHaveLength(1)
  })

  it('dropped for good before expiresAt: in doubt (no expiry meanwhile), then pending with nothing seen', async () => {
    const payment = await watched('USDT')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(3)
    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await mineAndScan(2)
    const inDoubt = paymentAfter(payment, await observationsOf(payment))
    expect(inDoubt).toMatchObject({ status: 'pending', receivedUnits: '0' })
    const expire = {
      type: 'ExpirePayment' as const,
      data: {
        paymentId: payment.paymentId,
        now: '2031-01-01T00:00:00.000Z',
        chainTime: '2031-01-01T00:00:00.000Z',
      },
    }
    expect(decidePayment(expire, inDoubt)).toEqual([])

    // its expiration (60 s after it was built) passes, and the solidity node does not have it
    await mineAndScan(40)

    const observations = await observationsOf(payment)
    expect(trail(observations)).toEqual(['in_doubt', 'dropped'])
    expect(observations.at(-1)).toMatchObject({ status: 'dropped', dropReason: 'EXPIRED' })
    expect(paymentAfter(payment, observations)).toMatchObject({
      status: 'pending',
      transfers: [],
      receivedUnits: null,
      txHash: null,
    })
  })

  it('dropped for good after expiresAt: failed, saying that the chain dropped it', async () => {
    const payment = await watched('USDT', 30_000)
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(3)
    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await mineAndScan(40)

    const observations = await observationsOf(payment)
    expect(trail(observations)).toEqual(['in_doubt', 'dropped'])
    expect(paymentAfter(payment, observations)).toMatchObject({
      status: 'failed',
      failureReason: 'TRANSFER_DROPPED',
    })
  })
})

describe('foreign funds (docs/api.md, "Foreign funds")', () => {
  it('records TRX that a contract sent to a USDT payment (an internal transaction), once final; the status stays', async () => {
    const payment = await watched('USDT')
    const { txHash } = await harness.sim.submitTransaction('TRON', {
      transfers: [{ to: payment.address, amount: '7.25', currency: 'TRX', internal: true }],
    })
    await mineAndScan(22)

    const settled = paymentAfter(payment, await observationsOf(payment))
    expect(settled).toMatchObject({ status: 'pending', receivedUnits: null })
    expect(settled.foreignFunds).toEqual([
      expect.objectContaining({ txHash, currency: 'TRX', amountUnits: '7250000', decimals: 6 }),
    ])
  })

  it('records internal TRX to a TRX payment as foreign funds too: it is not the payment', async () => {
    const payment = await watched('TRX')
    await harness.sim.submitTransaction('TRON', {
      transfers: [{ to: payment.address, amount: '10', currency: 'TRX', internal: true }],
    })
    await mineAndScan(22)

    const settled = paymentAfter(payment, await observationsOf(payment))
    expect(settled).toMatchObject({ status: 'pending', receivedUnits: null })
    expect(settled.foreignFunds.map((funds) => funds.currency)).toEqual(['TRX'])
  })

  it('records another registry asset sent to the address (TRX to a USDT payment, USDT to a TRX one)', async () => {
    const usdtPayment = await watched('USDT')
    const trxPayment = await watched('TRX')
    await harness.sim.submitTransfer('TRON', { to: usdtPayment.address, amount: '3', currency: 'TRX' })
    await harness.sim.submitTransfer('TRON', { to: trxPayment.address, amount: '4', currency: 'USDT' })
    await harness.sim.submitTransfer('TRON', {
      to: usdtPayment.address,
      amount: '5',
      currency: 'USDT',
      contract: 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ',
    })
    await mineAndScan(22)

    const usdt = paymentAfter(usdtPayment, await observationsOf(usdtPayment))
    expect(usdt).toMatchObject({ status: 'pending', receivedUnits: null })
    // the counterfeit USDT is no registry asset: nothing
    expect(usdt.foreignFunds.map(({ currency, amountUnits }) => [currency, amountUnits])).toEqual([
      ['TRX', '3000000'],
    ])
    const trx = paymentAfter(trxPayment, await observationsOf(trxPayment))
    expect(trx.foreignFunds.map(({ currency, amountUnits }) => [currency, amountUnits])).toEqual([
      ['USDT', '4000000'],
    ])
  })
})

describe('a node without old blocks (docs/chains.md, "Backfill")', () => {
  it('backfills a payment whose history lies below the first block the node has from that block, never from 0', async () => {
    const createdAt = new Date(nowMs).toISOString()
    await mineAndScan(60)
    harness.sim.forgetHistoryBelow('TRON', 40)
    // a fresh indexer (no history of its own) learns of a payment created before block 40
    indexer = await tronIndexer()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT', createdAt })
    await indexer.handlePaymentEvent(payment.message)
    ranges = []
    await mineAndScan(1)

    expect(ranges.length).toBeGreaterThan(0)
    expect(Math.min(...ranges.map(([from]) => from))).toBeGreaterThanOrEqual(40)
    const watching = (await harness.observations.settle()).filter(
      (observation) => observation.kind === 'watching' && observation.paymentId === payment.paymentId,
    )
    expect(watching).toHaveLength(1)
  })
})

// The real chain indexer watching payment addresses through the tronweb client, against the
// simulator's java-tron routes over HTTP.
import type { ChainIndexer } from '@chainpay/chain-indexer'
import {
  createIndexerHarness,
  type IndexerHarness,
  mineAndScan,
  servedIndexer,
  statusTrail,
  watchedPayment,
} from '@chainpay/chain-indexer/testing'
import { simulatedAddress } from '@chainpay/chain-sim'
import { createTronChainClient } from '@chainpay/chain-tron'
import { defaultAssetRegistry } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'

let harness: IndexerHarness
let indexer: ChainIndexer

beforeEach(async () => {
  harness = await createIndexerHarness()
  indexer = await servedIndexer(harness, 'TRON', (node) =>
    createTronChainClient({
      network: 'TRON',
      registry: defaultAssetRegistry,
      fullNodeUrl: node.tronUrl('TRON'),
    }),
  )
})

afterEach(() => harness.close())

describe('the chain indexer over the tronweb client', () => {
  it.each(['USDT', 'TRX'])(
    'reports a %s payment at every confirmation up to 20, then stops',
    async (currency) => {
      const payment = await watchedPayment(indexer, currency)
      const { txHash } = await harness.sim.submitTransfer('TRON', {
        to: payment.address,
        amount: '10',
        currency,
      })

      for (let block = 0; block < 24; block++) await mineAndScan(harness, indexer)

      const seen = await harness.observations.transfersOf(payment.paymentId)
      expect(seen.map((observation) => observation.confirmations)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      )
      expect(seen.every((observation) => observation.status === 'seen')).toBe(true)
      expect(seen[0]).toMatchObject({
        network: 'TRON',
        txHash,
        transferIndex: 0,
        address: payment.address,
        amountUnits: '10000000',
        dropReason: null,
      })
    },
  )

  it('ignores a failed transfer and a counterfeit token, and counts the genuine one', async () => {
    const payment = await watchedPayment(indexer, 'USDT')
    await harness.sim.submitTransaction('TRON', {
      transfers: [{ to: payment.address, amount: '10', currency: 'USDT' }],
      failure: 'OUT_OF_ENERGY',
    })
    await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
      fail: true,
    })
    await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
      contract: COUNTERFEIT_USDT,
    })
    const genuine = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '1',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer, 2)

    const seen = await harness.observations.transfersOf(payment.paymentId)
    expect(seen.map(({ txHash, amountUnits }) => ({ txHash, amountUnits }))).toEqual([
      { txHash: genuine.txHash, amountUnits: '1000000' },
    ])
  })

  it('counts each transfer of a multi-transfer transaction that pays the address', async () => {
    const payment = await watchedPayment(indexer, 'USDT')
    const { txHash } = await harness.sim.submitTransaction('TRON', {
      transfers: [
        { to: payment.address, amount: '4', currency: 'USDT' },
        { to: simulatedAddress('TRON'), amount: '5', currency: 'USDT' },
        { to: payment.address, amount: '6', currency: 'USDT' },
      ],
    })
    await mineAndScan(harness, indexer)

    const seen = await harness.observations.transfersOf(payment.paymentId)
    expect(
      seen.map(({ txHash, transferIndex, amountUnits }) => ({ txHash, transferIndex, amountUnits })),
    ).toEqual([
      { txHash, transferIndex: 0, amountUnits: '4000000' },
      { txHash, transferIndex: 2, amountUnits: '6000000' },
    ])
  })

  it('puts in doubt a transfer the chain rolls back before finality', async () => {
    const payment = await watchedPayment(indexer, 'USDT')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer, 2)

    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await indexer.scanOnce()
    await mineAndScan(harness, indexer)

    expect(statusTrail(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      ['seen', 1, null],
      ['seen', 3, null],
      ['in_doubt', 3, null],
    ])
  })
})

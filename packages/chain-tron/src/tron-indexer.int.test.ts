// The real chain indexer watching payment addresses through the tronweb client, against the
// simulator's java-tron routes over HTTP.
import { type ChainIndexer, createChainIndexer } from '@chainpay/chain-indexer'
import { simulatedAddress } from '@chainpay/chain-sim'
import { defaultAssetRegistry } from '@chainpay/domain'
import { systemClock } from '@chainpay/platform'
import type { Bus } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ObservationLog, observeChain, paymentCreated } from './testing/indexer-observations.js'
import { type SimulatedTronNode, silentLogger, startSimulatedTronNode } from './testing/tron-node-server.js'
import { createTronChainClient } from './tron-chain-client.js'

const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'

let node: SimulatedTronNode
let bus: Bus
let observations: ObservationLog
let indexer: ChainIndexer

beforeEach(async () => {
  node = await startSimulatedTronNode()
  bus = createSqliteBus(node.db, { logger: silentLogger })
  observations = await observeChain(bus)
  indexer = createChainIndexer({
    network: 'TRON',
    client: createTronChainClient({
      network: 'TRON',
      registry: defaultAssetRegistry,
      fullNodeUrl: node.url('TRON'),
    }),
    store: createSqliteChainIndexerStore(node.db),
    bus,
    registry: defaultAssetRegistry,
    clock: systemClock,
    logger: silentLogger,
  })
  await indexer.scanOnce()
})

afterEach(async () => {
  await observations.stop()
  await bus.close()
  await node.close()
})

async function watched(currency: string) {
  const payment = paymentCreated('TRON', currency, simulatedAddress('TRON'))
  await indexer.handlePaymentEvent(payment.message)
  return payment
}

async function mineAndScan(blocks = 1) {
  await node.simulator.mineBlocks('TRON', blocks)
  await indexer.scanOnce()
}

describe('the chain indexer over the tronweb client', () => {
  it.each(['USDT', 'TRX'])(
    'reports a %s payment at every confirmation up to 20, then stops',
    async (currency) => {
      const payment = await watched(currency)
      const { txHash } = await node.simulator.submitTransfer('TRON', {
        to: payment.address,
        amount: '10',
        currency,
      })

      for (let block = 0; block < 24; block++) await mineAndScan()

      const seen = await observations.transfersOf(payment.paymentId)
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
        withdrawReason: null,
      })
    },
  )

  it('ignores a failed transfer and a counterfeit token, and counts the genuine one', async () => {
    const payment = await watched('USDT')
    await node.simulator.submitTransaction('TRON', {
      transfers: [{ to: payment.address, amount: '10', currency: 'USDT' }],
      failure: 'OUT_OF_ENERGY',
    })
    await node.simulator.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
      fail: true,
    })
    await node.simulator.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
      contract: COUNTERFEIT_USDT,
    })
    const genuine = await node.simulator.submitTransfer('TRON', {
      to: payment.address,
      amount: '1',
      currency: 'USDT',
    })
    await mineAndScan(2)

    const seen = await observations.transfersOf(payment.paymentId)
    expect(seen.map(({ txHash, amountUnits }) => ({ txHash, amountUnits }))).toEqual([
      { txHash: genuine.txHash, amountUnits: '1000000' },
    ])
  })

  it('counts each transfer of a multi-transfer transaction that pays the address', async () => {
    const payment = await watched('USDT')
    const { txHash } = await node.simulator.submitTransaction('TRON', {
      transfers: [
        { to: payment.address, amount: '4', currency: 'USDT' },
        { to: simulatedAddress('TRON'), amount: '5', currency: 'USDT' },
        { to: payment.address, amount: '6', currency: 'USDT' },
      ],
    })
    await mineAndScan()

    const seen = await observations.transfersOf(payment.paymentId)
    expect(
      seen.map(({ txHash, transferIndex, amountUnits }) => ({ txHash, transferIndex, amountUnits })),
    ).toEqual([
      { txHash, transferIndex: 0, amountUnits: '4000000' },
      { txHash, transferIndex: 2, amountUnits: '6000000' },
    ])
  })

  it('withdraws a transfer the chain rolls back before finality', async () => {
    const payment = await watched('USDT')
    const { txHash } = await node.simulator.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan()
    await mineAndScan(2)

    expect(await node.simulator.dropTransaction('TRON', txHash)).toBe(true)
    await indexer.scanOnce()
    await mineAndScan()

    const seen = await observations.transfersOf(payment.paymentId)
    expect(
      seen.map(({ status, confirmations, withdrawReason }) => [status, confirmations, withdrawReason]),
    ).toEqual([
      ['seen', 1, null],
      ['seen', 3, null],
      ['withdrawn', 3, 'DROPPED'],
    ])
  })
})

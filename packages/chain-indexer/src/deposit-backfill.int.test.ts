// The backfill of a new deposit address (deposit-backfill.ts; docs/chains.md, "Customers' deposit
// addresses"): what was sent to it before the indexer read its DepositAddressCreated is found by
// scanning its blocks again, from its creation, and reported once; what a payment's watch claimed,
// and what was reported already, is not reported again.

import { randomUUID } from 'node:crypto'
import { simulatedWalletAddress } from '@chainpay/chain-sim'
import {
  DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
  type DepositObservation,
  depositAddressEventBusMessage,
} from '@chainpay/contracts'
import { type ConsumedMessage, Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createIndexerHarness,
  harnessIndexer,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
  testLogger,
} from './testing/indexer-harness.js'

let harness: IndexerHarness

beforeEach(async () => {
  harness = await createIndexerHarness()
})

afterEach(async () => {
  await harness.close()
})

/** DepositAddressCreated of a fresh TRON address, created at `createdAt`, as the deposit relay publishes it */
function depositAddressCreated(
  merchantUserId: string,
  createdAt = new Date(),
): { address: string; message: ConsumedMessage } {
  const address = simulatedWalletAddress('TRON')
  const published = depositAddressEventBusMessage({
    eventId: randomUUID(),
    streamId: `deposit-address-${randomUUID()}`,
    revision: 0,
    schemaVersion: DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
    recordedAt: createdAt.toISOString(),
    type: 'DepositAddressCreated',
    data: {
      merchantId: 'mer_shop',
      merchantUserId,
      chain: 'TRON',
      address,
      derivationPath: "m/44'/195'/0'/2/7",
      walletId: 'operator',
      index: 7,
      createdAt: createdAt.toISOString(),
    },
  })
  return { address, message: { topic: Topics.depositEvents, offset: '0', ...published } }
}

async function depositsTo(address: string): Promise<DepositObservation[]> {
  return (await harness.observations.settle()).filter(
    (observation): observation is DepositObservation =>
      observation.kind === 'deposit' && observation.address === address,
  )
}

const counts = (observations: DepositObservation[]) => observations.map((o) => o.confirmations)

describe('the backfill of a new deposit address', () => {
  it('given transfers to the address in blocks scanned before its event came, when the indexer reads the event, then they are deposits, each reported once and counted to final', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const created = depositAddressCreated('early-bird')
    const usdt = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '25',
      currency: 'USDT',
    })
    const trx = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '3',
      currency: 'TRX',
    })
    await mineAndScan(harness, indexer, 3)
    expect(await depositsTo(created.address)).toEqual([])

    await indexer.handleDepositEvent(created.message)
    const found = await depositsTo(created.address)
    expect(found.map((o) => [o.txHash, o.currency, o.amountUnits, o.status, o.merchantUserId])).toEqual([
      [usdt.txHash, 'USDT', '25000000', 'seen', 'early-bird'],
      [trx.txHash, 'TRX', '3000000', 'seen', 'early-bird'],
    ])
    // the event again (a redelivery) rescans nothing: nothing is reported twice
    await indexer.handleDepositEvent(created.message)
    for (let block = 0; block < 20; block++) await mineAndScan(harness, indexer)

    const ofUsdt = (await depositsTo(created.address)).filter((o) => o.txHash === usdt.txHash)
    expect(counts(ofUsdt)).toEqual(Array.from({ length: 18 }, (_, i) => i + 3))
    expect(ofUsdt.at(-1)).toMatchObject({ final: true })
    expect(await harness.store.listTracked('TRON')).toEqual([])
  })

  it('given an indexer restarted after scanning the blocks, when it reads the event, then it finds them by block time', async () => {
    const first = harnessIndexer(harness, 'TRON')
    await first.scanOnce()
    const created = depositAddressCreated('after-restart')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '7',
      currency: 'USDT',
    })
    await mineAndScan(harness, first, 2)

    const db = harness.reopen()
    const restarted = harnessIndexer(harness, 'TRON', {
      store: createSqliteChainIndexerStore(db),
      bus: createSqliteBus(db, { logger: testLogger }),
    })
    await restarted.handleDepositEvent(created.message)
    expect((await depositsTo(created.address)).map((o) => [o.txHash, o.confirmations])).toEqual([[txHash, 2]])
    await mineAndScan(harness, restarted)
    expect(counts(await depositsTo(created.address))).toEqual([2, 3])
  })

  it("given a PER_USER payment's transfer on the address, reported to the payment, when the event comes late, then it is not a deposit too", async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const created = depositAddressCreated('payer')
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT', address: created.address })
    await indexer.handlePaymentEvent(payment.message)
    const paid = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    expect((await harness.observations.transfersOf(payment.paymentId)).map((o) => o.txHash)).toEqual([
      paid.txHash,
    ])

    await indexer.handleDepositEvent(created.message)
    expect(await depositsTo(created.address)).toEqual([])
  })

  it('given an address read more than a day after its creation, when the indexer reads the event, then it is watched from now, its blocks not rescanned', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const created = depositAddressCreated('read-late', new Date(Date.now() - 25 * 60 * 60 * 1000))
    await harness.sim.submitTransfer('TRON', { to: created.address, amount: '4', currency: 'USDT' })
    await mineAndScan(harness, indexer, 2)
    await indexer.handleDepositEvent(created.message)
    expect(await depositsTo(created.address)).toEqual([])
    // from now on, it is watched
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: created.address,
      amount: '5',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    expect((await depositsTo(created.address)).map((o) => o.txHash)).toEqual([txHash])
  })

  it('given a transfer before the address was created, when the indexer reads the event, then it is nobody’s deposit', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const address = simulatedWalletAddress('TRON')
    await harness.sim.submitTransfer('TRON', { to: address, amount: '1', currency: 'USDT' })
    await mineAndScan(harness, indexer)
    // the same address, created later (as far as the indexer can tell: past the clock skew)
    const created = depositAddressCreated('later', new Date(Date.now() + 10_000))
    const message = {
      ...created.message,
      value: created.message.value.replaceAll(created.address, address),
    }
    await indexer.handleDepositEvent(message)
    expect(await depositsTo(address)).toEqual([])
  })
})

// What a refund's or a payout's create reads (docs/capacity.md, "Refunds and payouts"): the same
// operations and the same number of read-side rows for a merchant with 2 funded payments as for one
// with 60, because the balance check reads the merchant's running total of the asset, not its
// payments. Operations are counted, never timed.

import { defaultAssetRegistry, type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import type { EventStore, ReceivedNetTotals } from '@chainpay/ports'
import { receivedNetCountOf } from '@chainpay/ports'
import { createSqlitePaymentReadModel, createSqliteReceivedNetTotals } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { createOutgoingCommandHandler } from './outgoing-command-handler.js'
import { payFinallyOn } from './testing/pay-finally.js'
import {
  addTestMerchant,
  openSqliteCommandSide,
  type SqliteCommandSide,
} from './testing/sqlite-command-side.js'

const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'

let side: SqliteCommandSide
afterEach(() => side.close())

/** every read a create makes: event store streams and read-side calls, with the rows they returned */
function countingReads(eventStore: EventStore, receivedNet: ReceivedNetTotals) {
  const reads: string[] = []
  let rows = 0
  const counted: EventStore = Object.assign(Object.create(null), eventStore, {
    readStream: async (streamId: string) => {
      const events = await eventStore.readStream(streamId)
      reads.push(`readStream ${streamId.split('-')[0]}`)
      return events
    },
  })
  const totals: Pick<ReceivedNetTotals, 'totalsOf' | 'countedOf'> = {
    totalsOf: async (merchantId, network) => {
      const found = await receivedNet.totalsOf(merchantId, network)
      reads.push('totalsOf')
      rows += found.length
      return found
    },
    countedOf: async (paymentId) => {
      reads.push('countedOf')
      rows += 1
      return receivedNet.countedOf(paymentId)
    },
  }
  return { counted, totals, reads, rowsRead: () => rows }
}

describe("a create's reads", () => {
  it("stay the same whatever the number of the merchant's payments", async () => {
    side = openSqliteCommandSide()
    const readModel = createSqlitePaymentReadModel(side.db)
    const receivedNet = createSqliteReceivedNetTotals(side.db)
    const pay = payFinallyOn(side)
    /** `count` payments of 10 USDT paid and final, saved and counted as the projection does; the first's id */
    const shop = async (merchantId: string, count: number) => {
      await addTestMerchant(side.merchants, merchantId)
      const ids: string[] = []
      for (let i = 0; i < count; i++) {
        const { payment } = await side.handler.createPayment({
          merchantId,
          request: { amount: '10', currency: 'USDT', network: 'TRON', idempotencyKey: `pay-${i}` },
        })
        await pay(payment, '10000000')
        const paymentId = payment.created.paymentId
        const history = await side.handler.getPaymentHistory({ merchantId, paymentId })
        let folded: FoldedPayment | null = null
        history?.forEach(({ recordedAt, event }, revision) => {
          const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
          if (next !== 'skip') folded = next
        })
        if (folded === null) throw new Error('no payment')
        await readModel.save(folded)
        await receivedNet.count(receivedNetCountOf(folded))
        ids.push(paymentId)
      }
      return ids[0] as string
    }
    const readsOf = async (merchantId: string, paymentId: string) => {
      const counting = countingReads(side.eventStore, receivedNet)
      const outgoing = createOutgoingCommandHandler({
        eventStore: counting.counted,
        receivedNet: counting.totals,
        merchants: side.merchants,
        registry: defaultAssetRegistry,
        clock: { now: () => new Date() },
        logger: side.logger,
      })
      await outgoing.createPayout({
        merchantId,
        request: { network: 'TRON', currency: 'USDT', amount: '5', address: CUSTOMER, idempotencyKey: 'po' },
      })
      const payout = { reads: [...counting.reads], rows: counting.rowsRead() }
      counting.reads.length = 0
      await outgoing.createRefund({
        merchantId,
        paymentId,
        request: { amount: '1', address: CUSTOMER, idempotencyKey: 're' },
      })
      const refund = { reads: [...counting.reads], rows: counting.rowsRead() - payout.rows }
      const [balance] = await outgoing.getBalances({ merchantId })
      return { payout, refund, balance }
    }

    const small = await readsOf('shop-small', await shop('shop-small', 2))
    const large = await readsOf('shop-large', await shop('shop-large', 60))
    expect(large.payout).toEqual(small.payout)
    expect(large.refund).toEqual(small.refund)
    // a payout: its own stream (none yet), the ledger, one total; a refund also its payment and its count
    expect(small.payout).toEqual({
      reads: ['readStream payout', 'totalsOf', 'readStream ledger', 'readStream payout'],
      rows: 1,
    })
    expect(small.refund.reads.filter((read) => read === 'totalsOf' || read === 'countedOf')).toEqual([
      'totalsOf',
      'countedOf',
    ])
    // the totals are the truth here (the projection is caught up): 60 × 9.9 USDT net, less 5 and 1
    expect(large.balance).toMatchObject({ receivedNetUnits: '594000000', availableUnits: '588000000' })
  })
})

// Received net totals on a MongoDB-wire server (FerretDB v1 in the test run).

import { evolvePayment, initialPaymentState, type OpenPayment, paymentFinalFunds } from '@chainpay/domain'
import { confirmedStream } from '@chainpay/domain/testing'
import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describeReceivedNetTotalsContract } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { openMongoDatabase } from './database.js'
import { createMongoPaymentReadModel, paymentReadModelIndexes } from './read-model.js'
import { backfillReceivedNet, createMongoReceivedNetTotals, receivedNetIndexes } from './received-net.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describeReceivedNetTotalsContract('mongo received_net', async () => {
  const mongo = await freshTestDatabase('received-net', receivedNetIndexes)
  let lost = false
  return {
    store: createMongoReceivedNetTotals(mongo.db),
    async loseDatabase() {
      lost = true
      await mongo.close()
    },
    async teardown() {
      const database = mongo.db.databaseName
      await dropTestDatabase(lost ? await openMongoDatabase({ url: testMongoDbUrl(), database }) : mongo)
    },
  }
})

describe('received_net on an existing database', () => {
  it('counts the funded payments the read model already holds, once however often it runs', async () => {
    const mongo = await freshTestDatabase('received-net-backfill', [
      ...paymentReadModelIndexes(),
      ...receivedNetIndexes,
    ])
    try {
      const state = confirmedStream('pay-old').reduce(evolvePayment, initialPaymentState) as OpenPayment
      await createMongoPaymentReadModel(mongo.db).save({
        paymentId: 'pay-old',
        merchantId: 'merchant-1',
        revision: 3,
        state,
        updatedAt: '',
      })
      await backfillReceivedNet(mongo.db)
      await backfillReceivedNet(mongo.db)
      const net = paymentFinalFunds(state).netUnits
      expect(net).toBeGreaterThan(0n)
      const totals = createMongoReceivedNetTotals(mongo.db)
      expect((await totals.totalsOf('merchant-1')).map((total) => total.units)).toEqual([net])
    } finally {
      await dropTestDatabase(mongo)
    }
  })
})

describe('received_net counted by several processes at once', () => {
  it('counts a payment once when two processes count it at the same moment (an upgrade, a redelivery)', async () => {
    const mongo = await freshTestDatabase('received-net-two-processes', receivedNetIndexes)
    try {
      // two adapters on one database: two processes, whose per-payment queues know nothing of each other
      const processes = [createMongoReceivedNetTotals(mongo.db), createMongoReceivedNetTotals(mongo.db)]
      const payments = Array.from({ length: 12 }, (_, i) => ({
        paymentId: `pay_${i}`,
        net: 1_000n + BigInt(i),
      }))
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          payments.flatMap(({ paymentId, net }) =>
            processes.map((totals) =>
              totals.count({
                paymentId,
                merchantId: 'mer_a',
                network: 'TRON',
                currency: 'USDT',
                decimals: 6,
                netUnits: net * BigInt(round + 1),
                revision: round + 2,
              }),
            ),
          ),
        )
        const expected = payments.reduce((sum, { net }) => sum + net * BigInt(round + 1), 0n)
        expect((await processes[0]?.totalsOf('mer_a'))?.map((total) => total.units)).toEqual([expected])
      }
    } finally {
      await dropTestDatabase(mongo)
    }
  })
})

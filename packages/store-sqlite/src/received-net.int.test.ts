import { evolvePayment, initialPaymentState, type OpenPayment, paymentFinalFunds } from '@chainpay/domain'
import { confirmedStream } from '@chainpay/domain/testing'
import { describeReceivedNetTotalsContract } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { openSqliteDatabase } from './database.js'
import { createSqlitePaymentReadModel } from './read-model.js'
import { createSqliteReceivedNetTotals } from './received-net.js'

describeReceivedNetTotalsContract('sqlite received_net', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    store: createSqliteReceivedNetTotals(db),
    loseDatabase: async () => db.close(),
    teardown: async () => {
      if (db.isOpen) db.close()
    },
  }
})

describe('received_net on an existing database', () => {
  it('counts the payments the read model already holds, once, when the table is made', async () => {
    const db = openSqliteDatabase(':memory:')
    const readModel = createSqlitePaymentReadModel(db)
    const state = confirmedStream('pay-old').reduce(evolvePayment, initialPaymentState) as OpenPayment
    await readModel.save({
      paymentId: 'pay-old',
      merchantId: 'merchant-1',
      revision: 3,
      state,
      updatedAt: '',
    })
    const totals = createSqliteReceivedNetTotals(db)
    // a second adapter on the same file: the migration ran once
    const again = createSqliteReceivedNetTotals(db)
    const net = paymentFinalFunds(state).netUnits
    expect(net).toBeGreaterThan(0n)
    expect((await again.totalsOf('merchant-1')).map((total) => total.units)).toEqual([net])
    expect(await totals.countedOf('pay-old')).toBe(net)
    db.close()
  })
})

import { describePaymentSearchContract } from '@chainpay/ports/testing'
import { expect, it } from 'vitest'
import { openSqliteDatabase } from './database.js'
import { createSqlitePaymentReadModel, createSqlitePaymentSearch } from './read-model.js'

describePaymentSearchContract('sqlite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    readModel: createSqlitePaymentReadModel(db),
    search: createSqlitePaymentSearch(db),
    teardown: async () => db.close(),
  }
})

it("searches through the indexes that begin with the merchant, not the merchant's every payment", () => {
  const db = openSqliteDatabase(':memory:')
  createSqlitePaymentSearch(db)
  const plan = db
    .prepare(`EXPLAIN QUERY PLAN
      SELECT payment_id FROM payments_read WHERE merchant_id = 'm' AND json_extract(state, '$.created.address') = 'a'
      UNION SELECT payment_id FROM payments_read WHERE merchant_id = 'm' AND json_extract(state, '$.txHash') = 'a'
      UNION SELECT payment_id FROM payments_read_metadata WHERE merchant_id = 'm' AND value = 'a'`)
    .all()
    .map((row) => String(row.detail))
  expect(plan.some((detail) => detail.includes('payments_read_by_address'))).toBe(true)
  expect(plan.some((detail) => detail.includes('payments_read_by_tx_hash'))).toBe(true)
  expect(plan).toContain('SEARCH payments_read_metadata USING PRIMARY KEY (merchant_id=? AND value=?)')
  db.close()
})

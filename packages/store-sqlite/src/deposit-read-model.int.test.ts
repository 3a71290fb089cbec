import { describeDepositReadModelContract } from '@chainpay/ports/testing'
import { openSqliteDatabase } from './database.js'
import { createSqliteDepositReadModel } from './deposit-read-model.js'

describeDepositReadModelContract('sqlite deposits_read', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    store: createSqliteDepositReadModel(db),
    teardown: async () => {
      if (db.isOpen) db.close()
    },
  }
})

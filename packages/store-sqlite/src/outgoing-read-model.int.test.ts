import { describeOutgoingReadModelContract } from '@chainpay/ports/testing'
import { openSqliteDatabase } from './database.js'
import { createSqliteOutgoingReadModel } from './outgoing-read-model.js'

describeOutgoingReadModelContract('sqlite outgoing_read', async () => {
  const db = openSqliteDatabase(':memory:')
  return {
    store: createSqliteOutgoingReadModel(db),
    loseDatabase: async () => db.close(),
    teardown: async () => {
      if (db.isOpen) db.close()
    },
  }
})

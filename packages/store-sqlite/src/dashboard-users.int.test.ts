import { describeDashboardUserStoreContract } from '@chainpay/ports/testing'
import { createSqliteDashboardUserStore } from './dashboard-users.js'
import { openSqliteDatabase } from './database.js'

describeDashboardUserStoreContract('sqlite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  return { store: createSqliteDashboardUserStore(db), teardown: async () => db.close() }
})

import { describeDashboardUserStoreContract } from '@chainpay/ports/testing'
import { createMongoDashboardUserStore, dashboardUserIndexes } from './dashboard-users.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describeDashboardUserStoreContract('mongo', async () => {
  const mongo = await freshTestDatabase('dashboard-users', dashboardUserIndexes)
  return { store: createMongoDashboardUserStore(mongo.db), teardown: () => dropTestDatabase(mongo) }
})

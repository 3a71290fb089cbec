// payment-command's source of truth: EventStoreDB when EVENTSTORE_URL is set, else the embedded
// event store in the SQLite file.

import { createKurrentEventStore } from '@chainpay/event-store-kurrent'
import type { Logger } from '@chainpay/platform'
import type { EventStore } from '@chainpay/ports'
import { createSqliteEventStore } from '@chainpay/store-sqlite'
import type { Infrastructure } from './infrastructure.js'

export function openEventStore(options: {
  eventstoreUrl: string | null
  infrastructure: Infrastructure
  logger: Logger
}): EventStore {
  const { eventstoreUrl, infrastructure, logger } = options
  return eventstoreUrl
    ? createKurrentEventStore({ connectionString: eventstoreUrl, logger })
    : createSqliteEventStore(infrastructure.sqlite())
}

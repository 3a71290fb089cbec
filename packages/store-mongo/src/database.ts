import { type Db, MongoClient } from 'mongodb'
import { addressAllocatorIndexes } from './address-allocator.js'
import { chainIndexerIndexes } from './chain-indexer-store.js'
import { type IndexSpec, mongoCollections } from './collections.js'
import { deadlineIndexes } from './deadlines.js'
import { deliveryIndexes } from './deliveries.js'
import { merchantIndexes } from './merchants.js'
import { paymentReadModelIndexes } from './read-model.js'
import { webhookEndpointIndexes } from './webhook-endpoints.js'

export interface MongoDatabaseOptions {
  /** mongodb:// connection string */
  url: string
  /** the database holding every collection of this package */
  database: string
  /** shown in the server's logs and currentOp */
  appName?: string
  /** how long an operation waits for a reachable server before it fails; default 5 s */
  serverSelectionTimeoutMs?: number
  /**
   * how long an operation waits for the server's answer on an open connection before the connection
   * is closed and the operation fails (StoreUnavailableError); default 30 s. Without it, a server
   * that accepted a connection and went silent (a restart, a half-open socket) holds the request
   * for good: the driver's own default waits forever.
   */
  socketTimeoutMs?: number
}

export interface MongoDatabase {
  client: MongoClient
  db: Db
  close(): Promise<void>
}

const DEFAULT_SOCKET_TIMEOUT_MS = 30_000

/** Connects, so that a wrong URL or an unreachable server fails the start rather than the first request. */
export async function openMongoDatabase(options: MongoDatabaseOptions): Promise<MongoDatabase> {
  const timeoutMs = options.serverSelectionTimeoutMs ?? 5_000
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: options.socketTimeoutMs ?? DEFAULT_SOCKET_TIMEOUT_MS,
    // a pooled connection is waited for as long as a silent socket: the driver's default waits forever
    waitQueueTimeoutMS: options.socketTimeoutMs ?? DEFAULT_SOCKET_TIMEOUT_MS,
    ...(options.appName ? { appName: options.appName } : {}),
    // an optional field left undefined is left out, never stored as null
    ignoreUndefined: true,
  })
  await client.connect()
  return { client, db: client.db(options.database), close: () => client.close() }
}

/**
 * The indexes of every adapter of this package: each adapter file exports its list
 * (`xIndexes: IndexSpec[]`), and a new one is added here.
 */
export const mongoIndexes: readonly IndexSpec[] = [
  ...paymentReadModelIndexes(mongoCollections.paymentsRead),
  ...paymentReadModelIndexes(mongoCollections.notifierPayments),
  ...merchantIndexes,
  ...addressAllocatorIndexes,
  ...deadlineIndexes,
  ...deliveryIndexes,
  ...webhookEndpointIndexes,
  ...chainIndexerIndexes,
]

/**
 * Creates the indexes (default: all of this package's) where missing; an index that exists is left
 * alone, so this runs at every start.
 */
export async function ensureMongoIndexes(
  db: Db,
  indexes: readonly IndexSpec[] = mongoIndexes,
): Promise<void> {
  // One index per command: FerretDB v1.24 drops the connection when a single createIndexes names
  // several indexes that all exist already (measured), which is exactly the case at every restart.
  for (const { collection, name, key, unique } of indexes) {
    await db.collection(collection).createIndex(key, { name, ...(unique ? { unique } : {}) })
  }
}

/** a readiness check: the server answers a ping (a closed client or an unreachable server rejects) */
export function mongoAnswers(db: Db): () => Promise<boolean> {
  return async () => (await db.command({ ping: 1 })).ok === 1
}

import type { Db } from 'mongodb'
import { addressAllocatorIndexes } from './address-allocator.js'
import { chainIndexerIndexes } from './chain-indexer-store.js'
import { type IndexSpec, mongoCollections } from './collections.js'
import { dashboardUserIndexes } from './dashboard-users.js'
import { deadlineIndexes } from './deadlines.js'
import { deliveryIndexes } from './deliveries.js'
import { depositAddressReadModelIndexes } from './deposit-address-read-model.js'
import { depositReadModelIndexes } from './deposit-read-model.js'
import { invoiceReadModelIndexes } from './invoice-read-model.js'
import { merchantWalletIndexes } from './merchant-wallets.js'
import { merchantIndexes } from './merchants.js'
import { outgoingReadModelIndexes } from './outgoing-read-model.js'
import {
  backfillBalanceFields,
  backfillListedFields,
  backfillMetadataValues,
  paymentReadModelIndexes,
} from './read-model.js'
import { backfillReceivedNet, receivedNetIndexes } from './received-net.js'
import { webhookEndpointIndexes } from './webhook-endpoints.js'

/**
 * Versioned storage on MongoDB (docs/operations.md, "Upgrades and rollbacks"), as on SQLite: each
 * store is a component with its own version, one document of collection schema_versions
 * (`_id` the component), and its numbered migrations run in order at start. Migration 1 is the
 * component's collections and indexes as the release before versioned storage (commit b991541) made
 * them; a database of that release has no version document and is taken as version 0.
 *
 * FerretDB v1 has no transaction over several collections, so a migration is written to be run
 * again safely (creating an index that exists changes nothing), and its version is recorded once it
 * has run: a start stopped halfway runs it again. Every service of the distributed shape runs them
 * at start; two running one migration at once do the same idempotent work twice.
 */
export interface MongoMigration {
  readonly description: string
  readonly apply: (db: Db) => Promise<void>
}

export interface MongoComponent {
  readonly component: string
  readonly migrations: readonly MongoMigration[]
}

export const schemaVersionsCollection = 'schema_versions'

interface VersionDocument {
  _id: string
  version: number
  migratedAt: string
}

/** the database was written by a newer build: this one does not know its schema, and stops */
export class MongoSchemaTooNewError extends Error {
  constructor(
    readonly component: string,
    readonly databaseVersion: number,
    readonly knownVersion: number,
    database: string,
  ) {
    super(
      `MongoDB database ${database}: schema of ${component} is at version ${databaseVersion}, newer than the ${knownVersion} this build knows; ` +
        'the data was written by a newer build: run that build (or a newer one), or restore the backup taken before the upgrade ' +
        '(docs/operations.md, "Upgrades and rollbacks")',
    )
    this.name = 'MongoSchemaTooNewError'
  }
}

/**
 * A migration creating `names` out of `indexes` (an adapter's IndexSpec list), one per command:
 * FerretDB v1.24 drops the connection when a single createIndexes names several indexes that all
 * exist already (measured), which is the case whenever a migration runs again.
 */
export function indexMigration(
  description: string,
  indexes: readonly IndexSpec[],
  names: readonly string[],
): MongoMigration {
  const chosen = names.map((name) => {
    const spec = indexes.find((index) => index.name === name)
    if (spec === undefined) throw new Error(`migration '${description}': no index named ${name}`)
    return spec
  })
  return {
    description,
    apply: async (db) => {
      for (const { collection, name, key, unique } of chosen) {
        await db.collection(collection).createIndex(key, { name, ...(unique ? { unique } : {}) })
      }
    },
  }
}

const baseline = 'the collections and indexes of the release before versioned storage (b991541)'

/** an invoice read model collection: the API's, or the notifier's copy (docs/api.md, "Invoices") */
export function invoiceReadModelComponent(collection: string): MongoComponent {
  return {
    component: `read-model:${collection}`,
    migrations: [
      indexMigration('invoices, listed by merchant newest first', invoiceReadModelIndexes(collection), [
        `${collection}_listed`,
      ]),
    ],
  }
}

export function readModelComponent(collection: string): MongoComponent {
  return {
    component: `read-model:${collection}`,
    migrations: [
      indexMigration(baseline, paymentReadModelIndexes(collection), ['by_merchant']),
      {
        description: 'payment lists: the listed fields and index `listed`; recorded fee policy',
        apply: async (db) => {
          await backfillListedFields(db, collection)
          await indexMigration('', paymentReadModelIndexes(collection), ['listed']).apply(db)
        },
      },
      {
        // docs/api.md, "Foreign funds": every payment state has the list, empty before this version
        description: 'payment states record foreign funds',
        apply: async (db) => {
          await db
            .collection(collection)
            .updateMany({ 'state.foreignFunds': { $exists: false } }, { $set: { 'state.foreignFunds': [] } })
        },
      },
      {
        // docs/api.md, "Balances and sweeps"
        description: 'balances: sweeps in payment states, walletId and funded fields, index `funded`',
        apply: async (db) => {
          await backfillBalanceFields(db, collection)
          await indexMigration('', paymentReadModelIndexes(collection), ['funded']).apply(db)
        },
      },
      indexMigration(
        "support's search: the receiving address and the transfers' tx hashes",
        paymentReadModelIndexes(collection),
        ['by_address', 'by_tx_hash'],
      ),
      {
        // docs/dashboard.md, "Finding a payment"
        description: "support's search: the metadata values and index `by_metadata_value`",
        apply: async (db) => {
          await backfillMetadataValues(db, collection)
          await indexMigration('', paymentReadModelIndexes(collection), ['by_metadata_value']).apply(db)
        },
      },
    ],
  }
}

/**
 * Every component of this package. A new index is a new migration of its component (the index
 * lists say what exists, the migrations when it came): a test checks that every
 * listed index is created by one (schema-versions.int.test.ts).
 */
export const mongoComponents: readonly MongoComponent[] = [
  readModelComponent(mongoCollections.paymentsRead),
  readModelComponent(mongoCollections.notifierPayments),
  {
    component: 'merchants',
    migrations: [
      indexMigration(baseline, merchantIndexes, ['by_merchant']),
      {
        // the field is optional to readers; set on every document so that each has one shape
        description: "the merchant's display name and logo on the customer's page",
        apply: async (db) => {
          await db
            .collection(mongoCollections.merchants)
            .updateMany({ displayName: { $exists: false } }, { $set: { displayName: null, logoUrl: null } })
        },
      },
    ],
  },
  {
    component: 'merchant-wallets',
    migrations: [
      indexMigration('merchant wallets and the claims of their keys', merchantWalletIndexes, [
        'merchant_wallet_keys_by_merchant',
      ]),
    ],
  },
  {
    component: 'address-allocator',
    migrations: [
      indexMigration(baseline, addressAllocatorIndexes, ['by_network_index']),
      indexMigration('address indexes claimed per chain family', addressAllocatorIndexes, [
        'by_family_index',
      ]),
    ],
  },
  {
    component: 'deadlines',
    migrations: [indexMigration(baseline, deadlineIndexes, ['by_expiry', 'by_network_expiry'])],
  },
  {
    component: 'deliveries',
    migrations: [
      indexMigration(baseline, deliveryIndexes, [
        'webhook_deliveries_due',
        'webhook_deliveries_by_payment',
        'webhook_attempts_by_delivery',
      ]),
      indexMigration('deliveries in flight counted per target host', deliveryIndexes, [
        'webhook_deliveries_leased',
      ]),
      // the older documents' finishedAt is filled by the store itself, document by document, once
      // per process before its first prune (deliveries.ts, fillFinishedAt)
      indexMigration('retention: finished deliveries and run-out leases by age', deliveryIndexes, [
        'webhook_deliveries_finished',
        'webhook_leases_by_end',
      ]),
      indexMigration("a merchant's deliveries page by page", deliveryIndexes, [
        'webhook_deliveries_by_merchant',
      ]),
    ],
  },
  invoiceReadModelComponent(mongoCollections.invoicesRead),
  invoiceReadModelComponent(mongoCollections.notifierInvoices),
  {
    component: `read-model:${mongoCollections.outgoingRead}`,
    migrations: [
      indexMigration(
        'refunds and payouts, listed by merchant and by network',
        outgoingReadModelIndexes,
        outgoingReadModelIndexes.map((index) => index.name),
      ),
    ],
  },
  {
    component: 'read-model:deposit_addresses_read',
    migrations: [
      indexMigration(
        "customers' deposit addresses, by merchant and by user",
        depositAddressReadModelIndexes,
        ['deposit_addresses_listed', 'deposit_addresses_by_user'],
      ),
    ],
  },
  {
    component: 'received-net',
    migrations: [
      {
        description: "received net per merchant and asset, counted from the payments' read model",
        apply: async (db) => {
          await indexMigration(
            '',
            receivedNetIndexes,
            receivedNetIndexes.map((index) => index.name),
          ).apply(db)
          await backfillReceivedNet(db)
        },
      },
    ],
  },
  {
    component: 'webhook-endpoints',
    migrations: [
      indexMigration("merchants' webhook endpoints", webhookEndpointIndexes, [
        'webhook_endpoints_by_merchant',
      ]),
    ],
  },
  {
    component: 'dashboard-users',
    migrations: [
      indexMigration("the dashboard's users, sessions and audit log", dashboardUserIndexes, [
        'dashboard_users_by_merchant',
        'dashboard_sessions_by_user',
        'dashboard_login_failures_by_key',
        'dashboard_audit_by_merchant',
      ]),
    ],
  },
  {
    component: 'chain-indexer',
    migrations: [
      indexMigration(baseline, chainIndexerIndexes, [
        'watched_addresses_by_network',
        'tracked_transfers_by_network',
      ]),
      indexMigration("the watch set's prune by the end of the watch", chainIndexerIndexes, [
        'watched_addresses_by_end',
      ]),
      indexMigration('the last signature listed per account (Solana by address)', chainIndexerIndexes, [
        'account_signatures_by_network',
      ]),
      indexMigration("customers' deposit addresses watched, by network", chainIndexerIndexes, [
        'deposit_addresses_watched_by_network',
      ]),
    ],
  },
  {
    component: `read-model:${mongoCollections.depositsRead}`,
    migrations: [
      indexMigration('deposits, listed by merchant and by user', depositReadModelIndexes, [
        'deposits_listed',
        'deposits_by_user',
      ]),
      indexMigration("confirmed deposits, for the operator's balances", depositReadModelIndexes, [
        'deposits_confirmed',
      ]),
    ],
  },
]

/** the component's version in the database: 0 when it has none (a new database, or one older than versions) */
export async function mongoSchemaVersion(db: Db, component: string): Promise<number> {
  const found = await db.collection<VersionDocument>(schemaVersionsCollection).findOne({ _id: component })
  return found === null ? 0 : found.version
}

/**
 * Brings every component to its last migration, in order, or throws MongoSchemaTooNewError (before
 * changing anything) when one is ahead of this build.
 */
export async function migrateMongoDatabase(
  db: Db,
  components: readonly MongoComponent[] = mongoComponents,
  /** hears of each migration applied, once its version is recorded */
  onApplied?: (applied: { component: string; version: number; description: string }) => void,
): Promise<void> {
  const versions = db.collection<VersionDocument>(schemaVersionsCollection)
  const atStart = new Map<string, number>()
  for (const { component, migrations } of components) {
    const version = await mongoSchemaVersion(db, component)
    if (version > migrations.length)
      throw new MongoSchemaTooNewError(component, version, migrations.length, db.databaseName)
    atStart.set(component, version)
  }
  for (const { component, migrations } of components) {
    for (let target = (atStart.get(component) ?? 0) + 1; target <= migrations.length; target++) {
      await migrations[target - 1]?.apply(db)
      const migratedAt = new Date().toISOString()
      // only ever forward: another process may have recorded this version, or a later one, meanwhile
      const { matchedCount } = await versions.updateOne(
        { _id: component, version: { $lt: target } },
        { $set: { version: target, migratedAt } },
      )
      if (matchedCount === 0) {
        try {
          await versions.insertOne({ _id: component, version: target, migratedAt })
        } catch (error) {
          if ((error as { code?: number }).code !== 11000) throw error
        }
      }
      onApplied?.({ component, version: target, description: migrations[target - 1]?.description ?? '' })
    }
  }
}

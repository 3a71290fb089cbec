// The one place that knows which adapter backs which port. A service asks for the ports it uses;
// the SQLite file is opened only when some port lives in it, a MongoDB connection only when
// MONGODB_URL is set, a Kafka client only when KAFKA_BROKERS is.

import { createKafkaBus, type KafkaRetryOptions } from '@chainpay/bus-kafka'
import type { Logger } from '@chainpay/platform'
import type {
  AddressIndexAllocator,
  AddressPoolStore,
  Bus,
  ChainIndexerStore,
  CheckpointStore,
  DashboardUserStore,
  DepositAddressReadModel,
  DepositReadModel,
  InvoiceReadModel,
  MerchantStore,
  MerchantWalletStore,
  OutgoingReadModel,
  PaymentDeadlineStore,
  PaymentReadModel,
  PaymentSearch,
  ReceivedNetTotals,
  WebhookDeliveryStore,
  WebhookEndpointStore,
} from '@chainpay/ports'
import type { ServiceMetrics } from '@chainpay/service-kit'
import {
  createMongoAddressAllocator,
  createMongoChainIndexerStore,
  createMongoCheckpointStore,
  createMongoDashboardUserStore,
  createMongoDeadlineStore,
  createMongoDeliveryStore,
  createMongoDepositAddressReadModel,
  createMongoDepositReadModel,
  createMongoInvoiceReadModel,
  createMongoMerchantStore,
  createMongoMerchantWalletStore,
  createMongoOutgoingReadModel,
  createMongoPaymentReadModel,
  createMongoPaymentSearch,
  createMongoReceivedNetTotals,
  createMongoWebhookEndpointStore,
  migrateMongoDatabase,
  mongoAnswers,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import {
  createSqliteAddressAllocator,
  createSqliteAddressPool,
  createSqliteBus,
  createSqliteChainIndexerStore,
  createSqliteCheckpointStore,
  createSqliteDashboardUserStore,
  createSqliteDeadlineStore,
  createSqliteDeliveryStore,
  createSqliteDepositAddressReadModel,
  createSqliteDepositReadModel,
  createSqliteInvoiceReadModel,
  createSqliteMerchantStore,
  createSqliteMerchantWalletStore,
  createSqliteOutgoingReadModel,
  createSqlitePaymentReadModel,
  createSqlitePaymentSearch,
  createSqliteReceivedNetTotals,
  createSqliteWebhookEndpointStore,
  type DatabaseSync,
  onSqliteMigration,
  openSqliteDatabase,
  sqliteAnswers,
  sqliteSynchronousOf,
} from '@chainpay/store-sqlite'
import type { Registry } from 'prom-client'
import type { InfrastructureConfig } from './infrastructure-config.js'
import { kafkaConnection } from './kafka-connection.js'
import { kafkaProbe } from './kafka-readiness.js'
import { namespacedBus } from './namespaced-bus.js'

export interface InfrastructureOptions {
  infrastructure: InfrastructureConfig
  /** the SQLite file for whatever is embedded */
  databaseFile: string
  /** names the service in Kafka and MongoDB (client id, app name) */
  serviceName: string
  logger: Logger
  metrics?: Registry
  /**
   * How the bus's Kafka clients retry a connection or a request that failed before the operation
   * fails; default kafkajs's own, 5 retries over about 10 s (see createKafkaBus)
   */
  kafkaRetry?: KafkaRetryOptions
  /**
   * The SQLite bus deletes what every group consumed (createSqliteBus, pruneConsumed): standalone
   * only, whose one process subscribes every group when it starts. Off by default: on a file the
   * five deployables share, a service not started yet would find its messages gone.
   */
  sqliteBusPrune?: boolean
  /** with sqliteBusPrune, the newest messages kept per topic once consumed; default SQLITE_BUS_KEPT_MESSAGES */
  sqliteBusKeptMessages?: number
  /**
   * The service publishes only hints on the bus, which it does without when Kafka is down (the
   * gateway's wake-ups of the dispatcher): Kafka is then left out of its readiness
   */
  busForHintsOnly?: boolean
}

/** Stores of the read side and the services' own state, on one backend. */
export interface Stores {
  /** `name`: a second read model of the same shape (the notifier's copy of payment state) */
  readModel(name?: string): PaymentReadModel
  /** the invoices' read model (docs/api.md, "Invoices"); `name`: the notifier's copy */
  invoiceReadModel(name?: string): InvoiceReadModel
  /** refunds and payouts (docs/architecture.md, "The refunds and payouts read model") */
  outgoingReadModel(): OutgoingReadModel
  /** each merchant's received net per asset, kept by the projection (docs/capacity.md) */
  receivedNet(): ReceivedNetTotals
  /** customers' deposit addresses (docs/api.md, "Deposit addresses") */
  depositAddressReadModel(): DepositAddressReadModel
  /** deposits at customers' deposit addresses (docs/api.md, "Deposits") */
  depositReadModel(): DepositReadModel
  deliveries(): WebhookDeliveryStore
  merchants(): MerchantStore
  /** merchants' own wallets: payment-command's alone, where addresses are derived (docs/security.md) */
  merchantWallets(): MerchantWalletStore
  webhookEndpoints(): WebhookEndpointStore
  /** the dashboard's users, sessions and audit log (docs/dashboard.md) */
  dashboardUsers(): DashboardUserStore
  /** support's search of the read model by address or tx hash (docs/dashboard.md) */
  paymentSearch(): PaymentSearch
  checkpoints(): CheckpointStore
  allocator(): AddressIndexAllocator
  deadlines(): PaymentDeadlineStore
  chainIndexer(): ChainIndexerStore
}

export interface Infrastructure {
  stores: Stores
  /** the bus, created on first use */
  bus(): Bus
  /** the embedded database, opened on first use: the embedded event store and the simulator use it */
  sqlite(): DatabaseSync
  /**
   * payment-command's addresses derived ahead of need: in the embedded file whatever backs the other
   * stores, since they are the process's own (docs/capacity.md, "Addresses derived ahead")
   */
  addressPool(): AddressPoolStore
  /**
   * readiness: every server in use answers (else false), and every subscription of the bus takes
   * messages (else a rejection naming those that do not, for the log)
   */
  answers(): Promise<boolean>
  close(): Promise<void>
}

export async function openInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  const { infrastructure, logger, serviceName } = options
  let sqlite: DatabaseSync | undefined
  const sqliteDb = () => {
    if (sqlite) return sqlite
    sqlite = openSqliteDatabase(options.databaseFile, {
      synchronous: infrastructure.sqliteSynchronous ?? 'FULL',
    })
    // each store brings its tables forward as it is created: the operator sees every change made
    onSqliteMigration(sqlite, (applied) => logMigration(logger, options.databaseFile, applied))
    // what the file actually does, read back from SQLite: the operator sees the durability in force
    const synchronous = sqliteSynchronousOf(sqlite)
    const opened = { file: options.databaseFile, synchronous }
    if (synchronous === 'FULL')
      logger.info(opened, 'opened the embedded database; every commit is synced to disk')
    else
      logger.warn(
        opened,
        'opened the embedded database with SQLITE_SYNCHRONOUS=NORMAL: a power loss can take back acknowledged payments and hand out their addresses again (docs/operations.md)',
      )
    return sqlite
  }
  // the TLS files are read before anything connects: a bad one stops the start with its variable named
  const connection = infrastructure.kafkaBrokers ? kafkaConnection(infrastructure) : undefined
  const checks: (() => Promise<boolean>)[] = []
  const closers: (() => Promise<void>)[] = []

  let stores: Stores
  if (infrastructure.mongodbUrl) {
    const mongo = await openMongoDatabase({
      url: infrastructure.mongodbUrl,
      database: infrastructure.mongodbDatabase,
      appName: `chainpay-${serviceName}`,
    })
    closers.push(() => mongo.close())
    // each store's collections and indexes to this build's versions; a newer database stops the start
    await migrateMongoDatabase(mongo.db, undefined, (applied) =>
      logMigration(logger, `MongoDB database ${mongo.db.databaseName}`, applied),
    )
    checks.push(mongoAnswers(mongo.db))
    const { db } = mongo
    stores = {
      readModel: (name) => createMongoPaymentReadModel(db, name ? { collection: name } : {}),
      invoiceReadModel: (name) => createMongoInvoiceReadModel(db, name ? { collection: name } : {}),
      outgoingReadModel: () => createMongoOutgoingReadModel(db),
      receivedNet: () => createMongoReceivedNetTotals(db),
      depositAddressReadModel: () => createMongoDepositAddressReadModel(db),
      depositReadModel: () => createMongoDepositReadModel(db),
      deliveries: () => createMongoDeliveryStore(db),
      merchants: () => createMongoMerchantStore(db),
      merchantWallets: () => createMongoMerchantWalletStore(db),
      webhookEndpoints: () => createMongoWebhookEndpointStore(db),
      dashboardUsers: () => createMongoDashboardUserStore(db),
      paymentSearch: () => createMongoPaymentSearch(db),
      checkpoints: () => createMongoCheckpointStore(db),
      allocator: () => createMongoAddressAllocator(db),
      deadlines: () => createMongoDeadlineStore(db),
      chainIndexer: () => createMongoChainIndexerStore(db),
    }
  } else {
    checks.push(() => sqliteAnswers(sqliteDb())())
    stores = {
      readModel: (name) => createSqlitePaymentReadModel(sqliteDb(), name ? { table: name } : {}),
      invoiceReadModel: (name) => createSqliteInvoiceReadModel(sqliteDb(), name ? { table: name } : {}),
      outgoingReadModel: () => createSqliteOutgoingReadModel(sqliteDb()),
      receivedNet: () => createSqliteReceivedNetTotals(sqliteDb()),
      depositAddressReadModel: () => createSqliteDepositAddressReadModel(sqliteDb()),
      depositReadModel: () => createSqliteDepositReadModel(sqliteDb()),
      deliveries: () => createSqliteDeliveryStore(sqliteDb()),
      merchants: () => createSqliteMerchantStore(sqliteDb()),
      merchantWallets: () => createSqliteMerchantWalletStore(sqliteDb()),
      webhookEndpoints: () => createSqliteWebhookEndpointStore(sqliteDb()),
      dashboardUsers: () => createSqliteDashboardUserStore(sqliteDb()),
      paymentSearch: () => createSqlitePaymentSearch(sqliteDb()),
      checkpoints: () => createSqliteCheckpointStore(sqliteDb()),
      allocator: () => createSqliteAddressAllocator(sqliteDb()),
      deadlines: () => createSqliteDeadlineStore(sqliteDb()),
      chainIndexer: () => createSqliteChainIndexerStore(sqliteDb()),
    }
  }

  let bus: Bus | undefined
  const brokers = infrastructure.kafkaBrokers
  const namespace = infrastructure.busNamespace
  const openBus = (): Bus => {
    if (bus) return bus
    if (brokers) {
      // readiness asks Kafka only of the services that depend on the bus (not the gateway, whose
      // wake-ups of the dispatcher are hints)
      if (options.busForHintsOnly !== true) {
        const probe = kafkaProbe(brokers, connection)
        checks.push(probe.answers)
        closers.push(probe.close)
      }
      bus = createKafkaBus({
        brokers,
        ...(connection ? { connection } : {}),
        clientId: `chainpay-${serviceName}`,
        logger,
        ...(namespace ? { namePrefix: `${namespace}.` } : {}),
        ...(options.metrics ? { metrics: options.metrics } : {}),
        ...(infrastructure.kafkaConsumerGroup ? { consumerGroup: infrastructure.kafkaConsumerGroup } : {}),
        ...(infrastructure.kafkaPartitions ? { partitions: infrastructure.kafkaPartitions } : {}),
        ...(options.kafkaRetry ? { retry: options.kafkaRetry } : {}),
      })
    } else {
      const embedded = createSqliteBus(sqliteDb(), {
        logger,
        pruneConsumed: options.sqliteBusPrune === true,
        ...(options.sqliteBusKeptMessages ? { keptMessages: options.sqliteBusKeptMessages } : {}),
      })
      bus = namespace ? namespacedBus(embedded, namespace) : embedded
    }
    return bus
  }

  return {
    stores,
    bus: openBus,
    sqlite: sqliteDb,
    addressPool: () => createSqliteAddressPool(sqliteDb()),
    async answers() {
      for (const check of checks) if (!(await check().catch(() => false))) return false
      const failures = bus?.subscriptionFailures() ?? []
      if (failures.length > 0) throw new Error(`bus subscriptions take no messages: ${failures.join('; ')}`)
      return true
    },
    async close() {
      await bus?.close()
      for (const close of closers) await close()
      sqlite?.close()
    },
  }
}

/**
 * What the services of one process share (standalone): one infrastructure, opened and closed by the
 * process, and one metrics registry. A context given one opens none of its own and starts no HTTP
 * port of its own beyond its API: the process serves readiness and metrics once for all.
 */
export interface SharedRuntime {
  infrastructure: Infrastructure
  metrics: ServiceMetrics
}

/**
 * The infrastructure a service's context runs on: the shared one, or its own, opened here. `release`
 * closes only what was opened here.
 */
export async function infrastructureFor(
  options: InfrastructureOptions & { shared?: SharedRuntime | undefined },
): Promise<{ infrastructure: Infrastructure; release(): Promise<void> }> {
  if (options.shared) return { infrastructure: options.shared.infrastructure, release: async () => {} }
  const infrastructure = await openInfrastructure(options)
  return { infrastructure, release: () => infrastructure.close() }
}

/** one info line per schema migration applied (docs/operations.md, "Upgrades and rollbacks") */
function logMigration(
  logger: Logger,
  where: string,
  applied: { component: string; version: number; description: string },
): void {
  logger.info(
    {
      database: where,
      component: applied.component,
      version: applied.version,
      migration: applied.description,
    },
    `schema migration applied: ${applied.component} to version ${applied.version} (${applied.description})`,
  )
}

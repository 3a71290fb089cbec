// Wires the five services on the embedded adapters, in one process, over one SQLite file. The same
// service code runs in the distributed shape; only this wiring differs.

import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createChainIndexer } from '@chainpay/chain-indexer'
import { chainSimulatorRoutes, createChainSimulator } from '@chainpay/chain-sim'
import {
  type AssetRegistry,
  type CreateRequestPolicy,
  defaultAssetRegistry,
  mergeAssetRegistry,
} from '@chainpay/domain'
import {
  buildAdminApp,
  buildGatewayApp,
  createApiKeyAuthenticator,
  createMerchant,
  listenGateway,
} from '@chainpay/gateway'
import { createDeliveryRecorder, createWebhookDispatcher, parseRetrySchedule } from '@chainpay/notifier'
import {
  createChainTimeTracker,
  createDeadlineKeeper,
  createEventRelay,
  createExpiryScheduler,
  createObservationConsumer,
  createPaymentCommandHandler,
} from '@chainpay/payment-command'
import { type Clock, createSecretBox, type Logger, type Service, systemClock } from '@chainpay/platform'
import { createProjectionService } from '@chainpay/projection'
import type { ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteAddressAllocator,
  createSqliteBus,
  createSqliteChainIndexerStore,
  createSqliteCheckpointStore,
  createSqliteDeadlineStore,
  createSqliteDeliveryStore,
  createSqliteEventStore,
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { createAddressDeriver } from '@chainpay/wallet'
import type { FastifyInstance } from 'fastify'
import type { StandaloneConfig } from './config.js'
import {
  dataFiles,
  ensureDevelopmentWallet,
  ensureSecrets,
  readDemoMerchant,
  writeDemoMerchant,
} from './first-start.js'

export async function buildStandalone(
  config: StandaloneConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ServiceContext> {
  mkdirSync(config.dataDir, { recursive: true })
  const { secrets, created: secretsCreated } = ensureSecrets(config.dataDir, {
    encryptionKey: config.encryptionKey,
    adminToken: config.adminToken,
  })
  if (secretsCreated) {
    logger.warn(
      { file: join(config.dataDir, dataFiles.secrets) },
      'generated an encryption key and an admin token for standalone; production must supply CHAINPAY_ENCRYPTION_KEY and ADMIN_TOKEN',
    )
  }
  const { wallet, created: walletCreated } = ensureDevelopmentWallet(config.dataDir)
  if (walletCreated) {
    logger.warn(
      { file: join(config.dataDir, dataFiles.wallet) },
      'created a development wallet for the chain simulator; never send real funds to its addresses',
    )
  }

  const db = openSqliteDatabase(join(config.dataDir, dataFiles.database), {
    synchronous: config.sqliteSynchronous,
  })
  const registry = loadRegistry(config.assetRegistryFile)
  const policy: CreateRequestPolicy = { allowInsecureCallbackUrls: true }
  const secretBox = createSecretBox(secrets.encryptionKey)

  const eventStore = createSqliteEventStore(db)
  const bus = createSqliteBus(db, { logger })
  const checkpoints = createSqliteCheckpointStore(db)
  const readModel = createSqlitePaymentReadModel(db)
  const notifierPayments = createSqlitePaymentReadModel(db, { table: 'notifier_payments' })
  const deliveries = createSqliteDeliveryStore(db)
  const merchants = createSqliteMerchantStore(db)
  const indexerStore = createSqliteChainIndexerStore(db)

  // payment-command
  const handler = createPaymentCommandHandler({
    eventStore,
    allocator: createSqliteAddressAllocator(db),
    deriver: createAddressDeriver({ tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed }),
    registry,
    policy,
    clock,
    logger,
  })
  const chainTimes = createChainTimeTracker()
  const deadlines = createSqliteDeadlineStore(db)

  // every network of the registry is simulated, under its own name, so that merchants integrate
  // exactly as they will in production
  const networks = registry.networks.map(({ network, chain }) => ({
    network,
    blockIntervalMs: config.blockIntervalMs[chain],
  }))
  const simulator = createChainSimulator({
    db,
    registry,
    networks,
    clock: () => clock.now(),
    logger,
  })
  const indexers = networks.map(({ network, blockIntervalMs }) =>
    createChainIndexer({
      network,
      client: simulator.client(network),
      store: indexerStore,
      bus,
      registry,
      clock,
      logger,
      pollIntervalMs: Math.min(500, blockIntervalMs),
    }),
  )

  // notifier
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants,
    secretBox,
    clock,
    logger,
    allowPrivateTargets: true,
    ...(config.webhookRetrySchedule ? { schedule: parseRetrySchedule(config.webhookRetrySchedule) } : {}),
  })

  // gateway
  const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
  const merchantAdmin = { merchants, secretBox, clock, registry, webhookUrlPolicy: policy }
  await ensureDemoMerchant(config.dataDir, merchantAdmin, logger)

  let gateway: FastifyInstance | undefined
  let admin: FastifyInstance | undefined
  const httpServers: Service = {
    name: 'gateway and admin API',
    async start() {
      gateway = await buildGatewayApp({
        commands: handler,
        readModel,
        authenticator,
        registry,
        policy,
        clock,
        logger,
        rateLimit: config.rateLimit,
        extraRoutes: async (app) => {
          await app.register(chainSimulatorRoutes, { simulator })
        },
      })
      admin = await buildAdminApp({
        ...merchantAdmin,
        authenticator,
        adminToken: secrets.adminToken,
        logger,
        deliveries,
      })
      const gatewayUrl = await listenGateway(gateway, { host: config.host, port: config.port })
      const adminUrl = await listenGateway(admin, { host: config.adminHost, port: config.adminPort })
      logger.info(
        { api: `${gatewayUrl}/api/merchant/v1`, admin: `${adminUrl}/admin/v1`, dataDir: config.dataDir },
        'chainpay standalone is ready',
      )
    },
    async stop() {
      await gateway?.close()
      await admin?.close()
    },
  }

  const services: Service[] = [
    simulator,
    createEventRelay({ eventStore, bus, checkpoints, logger }),
    createProjectionService({ bus, readModel, logger }),
    createDeadlineKeeper({ bus, deadlines, logger }),
    ...indexers,
    createObservationConsumer({ bus, handler, chainTimes, deadlines, logger }),
    createExpiryScheduler({ deadlines, handler, chainTimes, clock, logger }),
    createDeliveryRecorder({
      bus,
      payments: notifierPayments,
      deliveries,
      merchants,
      clock,
      logger,
      onRecorded: () => dispatcher.wake(),
    }),
    dispatcher,
    httpServers,
  ]

  return {
    services,
    async close() {
      await bus.close()
      await eventStore.close()
      db.close()
    },
  }
}

function loadRegistry(file: string | undefined): AssetRegistry {
  if (!file) return defaultAssetRegistry
  return mergeAssetRegistry(defaultAssetRegistry, JSON.parse(readFileSync(file, 'utf8')))
}

async function ensureDemoMerchant(
  dataDir: string,
  deps: Parameters<typeof createMerchant>[0],
  logger: Logger,
): Promise<void> {
  const existing = readDemoMerchant(dataDir)
  if (existing && (await deps.merchants.getMerchant(existing.merchantId))) return
  const created = await createMerchant(deps, { name: 'Demo merchant' })
  writeDemoMerchant(dataDir, {
    merchantId: created.merchant.merchantId,
    apiKey: created.apiKey,
    apiSecret: created.apiSecret,
    webhookSecret: created.webhookSecret,
  })
  const file = join(dataDir, dataFiles.demoMerchant)
  logger.info({ file, merchantId: created.merchant.merchantId }, 'created the demo merchant')
  process.stderr.write(
    [
      '',
      'chainpay: created a demo merchant. Its credentials are in',
      `  ${file}`,
      'Sign requests with apiKey/apiSecret (see README.md, "Create a payment"), pay the returned',
      'address with POST /dev/chains/TRON/transfers, and verify webhooks with webhookSecret.',
      '',
    ].join('\n'),
  )
}

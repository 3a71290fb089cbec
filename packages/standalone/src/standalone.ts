// Standalone: the five services' own contexts, built by their own factories, composed in one process
// over one embedded infrastructure (one SQLite file in DATA_DIR, its bus included). Only what one
// process changes is replaced: the gateway calls payment-command's handler directly, the services
// share one infrastructure and one metrics registry, the process answers readiness once for all five
// (the gateway's /readyz) and serves metrics once (METRICS_PORT), and the chain-indexer's simulator
// routes, when chains are simulated, are served on the merchant port.

import { join } from 'node:path'
import { createMerchant } from '@chainpay/admin-api'
import { buildChainIndexerContext, type ChainIndexerConfig } from '@chainpay/chain-indexer'
import { buildGatewayContext } from '@chainpay/gateway'
import { type InfrastructureConfig, openInfrastructure } from '@chainpay/infrastructure'
import { buildNotifierContext } from '@chainpay/notifier'
import { type AddressKeys, buildPaymentCommandContext, simulatedRateRoutes } from '@chainpay/payment-command'
import {
  type Clock,
  createSecretBox,
  ensurePrivateDirectory,
  type Logger,
  restrictToOwner,
  type Service,
  systemClock,
} from '@chainpay/platform'
import { buildProjectionContext } from '@chainpay/projection'
import type { SimulatedRateSource } from '@chainpay/rates'
import {
  createServiceMetrics,
  isLoopbackHost,
  metricsService,
  type ServiceContext,
  simulatorAccess,
} from '@chainpay/service-kit'
import type { FastifyPluginAsync } from 'fastify'
import type { StandaloneConfig } from './config.js'
import {
  dataFiles,
  ensureDevelopmentWallet,
  ensureSecrets,
  readDemoMerchant,
  writeDemoMerchant,
} from './first-start.js'

/** every port family on the embedded SQLite file */
const EMBEDDED: InfrastructureConfig = {
  kafkaBrokers: null,
  mongodbUrl: null,
  mongodbDatabase: 'chainpay',
  busNamespace: null,
}

export interface StandaloneContextOptions {
  clock?: Clock
  /** tests: the SQLite bus's newest messages kept per topic once consumed (retention) */
  sqliteBusKeptMessages?: number
}

export async function buildStandaloneContext(
  config: StandaloneConfig,
  logger: Logger,
  options: StandaloneContextOptions = {},
): Promise<ServiceContext> {
  const { clock = systemClock } = options
  privateDataDir(config, logger)
  const secrets = firstStartSecrets(config, logger)
  const encryptionKeys = {
    current: secrets.encryptionKey,
    previous: secrets.previousEncryptionKeys ?? [],
    unbound: config.unboundSecrets,
  }
  const keys = config.keys ?? developmentKeys(config.dataDir, logger)
  const live = config.chains.chainMode === 'rpc'

  const metrics = createServiceMetrics('standalone')
  const infrastructure = await openInfrastructure({
    infrastructure: { ...EMBEDDED, sqliteSynchronous: config.sqliteSynchronous },
    databaseFile: config.databaseFile,
    serviceName: 'standalone',
    logger,
    metrics: metrics.registry,
    // one process, every group subscribed at its start: what all consumed can go (docs/operations.md)
    sqliteBusPrune: true,
    ...(options.sqliteBusKeptMessages ? { sqliteBusKeptMessages: options.sqliteBusKeptMessages } : {}),
  })
  const shared = { infrastructure, metrics }
  const contextOptions = { clock, shared }
  const common = {
    host: config.host,
    metricsHost: config.metricsHost,
    metricsPort: config.metricsPort,
    metricsToken: config.metricsToken,
    dataDir: config.dataDir,
    databaseFile: config.databaseFile,
    logLevel: config.logLevel,
    registry: config.registry,
    httpLimits: config.httpLimits,
    infrastructure: EMBEDDED,
  }
  const { chains } = config.chains
  const development = config.callbackUrlPolicy === 'development'

  const contexts: ServiceContext[] = []
  try {
    const paymentCommand = await buildPaymentCommandContext(
      // no command API of its own: the gateway calls the handler (ports 0 are never listened on)
      {
        ...common,
        port: 0,
        commandApiToken: undefined,
        eventstoreUrl: null,
        keys,
        encryptionKeys,
        callbackUrlPolicy: config.callbackUrlPolicy,
        chains,
        addressPoolSize: config.addressPoolSize,
        rates: config.rates,
      },
      logger,
      contextOptions,
    )
    contexts.push(paymentCommand)
    // the simulator's routes are served on the merchant port, where its RPC clients find them too
    const chainIndexerConfig: ChainIndexerConfig = { ...common, ...config.chains, port: config.port }
    const chainIndexer = await buildChainIndexerContext(chainIndexerConfig, logger, contextOptions)
    contexts.push(chainIndexer)
    const projection = await buildProjectionContext({ ...common, healthPort: 0 }, logger, contextOptions)
    contexts.push(projection)
    const notifier = await buildNotifierContext(
      {
        ...common,
        healthPort: 0,
        encryptionKeys,
        retryScheduleMs: config.webhookRetryScheduleMs,
        allowPrivateTargets: development,
        webhookConcurrency: config.webhookConcurrency,
        webhookRetentionDays: config.webhookRetentionDays,
        publicUrl: config.checkout.publicUrl,
      },
      logger,
      contextOptions,
    )
    contexts.push(notifier)
    const parts = [...contexts]
    const gateway = await buildGatewayContext(
      {
        ...common,
        port: config.port,
        adminHost: config.adminHost,
        adminPort: config.adminPort,
        paymentCommandUrl: '',
        commandApiToken: undefined,
        encryptionKeys,
        adminToken: secrets.adminToken,
        rateLimit: config.rateLimit,
        chainSimulatorUrl: undefined,
        chainSimulatorToken: undefined,
        callbackUrlPolicy: config.callbackUrlPolicy,
        chains,
        checkout: config.checkout,
        // the chain-indexer's readers (below): none of the gateway's own
        balanceRpc: { endpoints: [], timeoutMs: 0 },
      },
      logger,
      {
        clock,
        shared: {
          ...shared,
          commands: paymentCommand.commands,
          invoiceCommands: paymentCommand.invoiceCommands,
          depositAddresses: paymentCommand.depositAddresses,
          depositSweeps: paymentCommand.depositSweeps,
          merchantWallets: paymentCommand.merchantWallets,
          outgoing: paymentCommand.outgoing,
          // ready when every part is: the gateway's own stores are the infrastructure's too
          readiness: async () => (await Promise.all(parts.map((part) => part.readiness()))).every(Boolean),
          routes: devRoutes(
            chainIndexer.routes,
            paymentCommand.simulatedRates,
            config.chains.chainMode === 'simulator' ? config.chains.simulatorToken : undefined,
          ),
          balanceReaders: chainIndexer.balanceReaders,
        },
      },
    )
    contexts.push(gateway)

    if (!live) {
      await ensureDemoMerchant(
        config,
        {
          merchants: infrastructure.stores.merchants(),
          secretBox: createSecretBox(encryptionKeys),
          clock,
          registry: config.registry,
          webhookUrlPolicy: { allowInsecureCallbackUrls: development },
        },
        logger,
      )
    }

    warnIfAdminExposed(config, logger)
    const watchers = new Set(chainIndexer.watchers)
    return {
      // The chains (the simulator), the services, the APIs, then what reads the nodes: the simulated
      // nodes answer over RPC on the merchant port, which must listen before the first call (no
      // ECONNREFUSED at start). Stopped in reverse: the watchers first, while the port still answers.
      services: [
        ...chainIndexer.services.filter((service) => !watchers.has(service)),
        ...paymentCommand.services,
        ...projection.services,
        ...notifier.services,
        ...gateway.services,
        ...chainIndexer.watchers,
        metricsService({ config, registry: metrics.registry, logger }),
        readyAnnouncement(config, logger),
      ],
      readiness: () => gateway.readiness(),
      close: () => closeAll(contexts, infrastructure.close),
    }
  } catch (error) {
    await closeAll(contexts, infrastructure.close)
    throw error
  }
}

async function closeAll(contexts: ServiceContext[], closeInfrastructure: () => Promise<void>): Promise<void> {
  for (const context of [...contexts].reverse()) await context.close()
  await closeInfrastructure()
}

/**
 * DATA_DIR holds the keys, the wallet and the database: 0700, created so or tightened when this
 * process owns it (docs/operations.md, "Standalone"). A directory of another owner (a mounted
 * volume) is left as it is, with a warning: its files are 0600 all the same.
 */
function privateDataDir(config: StandaloneConfig, logger: Logger): void {
  const { tightenedFrom, leftOpen } = ensurePrivateDirectory(config.dataDir)
  const mode = (bits: number) => `0${bits.toString(8)}`
  if (tightenedFrom !== null) {
    logger.warn(
      { dataDir: config.dataDir, was: mode(tightenedFrom), now: '0700' },
      'DATA_DIR was open to other users; it holds secrets, so it is now the owner’s alone',
    )
  }
  if (leftOpen !== null) {
    logger.warn(
      { dataDir: config.dataDir, mode: mode(leftOpen) },
      'DATA_DIR belongs to another user and is open to others; its files are the owner’s alone (0600), but make the directory 0700 and this process’s',
    )
  }
  // files an earlier version wrote under the umask, while they are not open yet
  for (const name of Object.values(dataFiles)) restrictToOwner(join(config.dataDir, name))
}

function firstStartSecrets(config: StandaloneConfig, logger: Logger) {
  const { secrets, created } = ensureSecrets(config.dataDir, {
    encryptionKey: config.encryptionKey,
    adminToken: config.adminToken,
    previousEncryptionKeys: config.previousEncryptionKeys,
  })
  if (created) {
    logger.warn(
      { file: join(config.dataDir, dataFiles.secrets) },
      'generated an encryption key and an admin token for standalone; back up this file with the database (docs/going-live.md), or supply CHAINPAY_ENCRYPTION_KEY and ADMIN_TOKEN',
    )
  }
  return secrets
}

function developmentKeys(dataDir: string, logger: Logger): AddressKeys {
  const { wallet, created } = ensureDevelopmentWallet(dataDir)
  if (created) {
    logger.warn(
      { file: join(dataDir, dataFiles.wallet) },
      'created a development wallet for the chain simulator; never send real funds to its addresses',
    )
  }
  return { tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed }
}

/**
 * The admin API creates merchants and issues keys with one bearer token: on an address other machines
 * reach (ADMIN_HOST=0.0.0.0), anyone who reaches the port may try it. Allowed (a private network, a
 * container), but never silently (docs/operations.md, "Standalone").
 */
function warnIfAdminExposed(config: StandaloneConfig, logger: Logger): void {
  if (isLoopbackHost(config.adminHost)) return
  logger.warn(
    { adminHost: config.adminHost, adminPort: config.adminPort },
    `the admin API listens on ${config.adminHost}:${config.adminPort} (ADMIN_HOST), reachable from other machines: anyone who reaches it can try the admin token. Keep ADMIN_HOST=127.0.0.1 and reach it over SSH, or allow only the operator's network to port ${config.adminPort} (docs/operations.md)`,
  )
}

/** the line an operator waits for: where the APIs answer */
function readyAnnouncement(config: StandaloneConfig, logger: Logger): Service {
  const local = (host: string, port: number) =>
    `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`
  return {
    name: 'ready announcement',
    async start() {
      logger.info(
        {
          api: `${local(config.host, config.port)}/api/merchant/v1`,
          admin: `${local(config.adminHost, config.adminPort)}/admin/v1`,
          metrics: `${local(config.metricsHost, config.metricsPort)}/metrics`,
          dataDir: config.dataDir,
          chains: config.chains.chainMode === 'rpc' ? 'real nodes (CHAIN_MODE=rpc)' : 'simulated',
        },
        'chainpay standalone is ready',
      )
    },
    async stop() {},
  }
}

async function ensureDemoMerchant(
  config: StandaloneConfig,
  deps: Parameters<typeof createMerchant>[0],
  logger: Logger,
): Promise<void> {
  const { dataDir } = config
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

/**
 * The dev routes on the merchant port, where chains are simulated: the chain simulator's, and the
 * simulated rates' (POST /dev/rates) under the same rule (loopback, or SIMULATOR_TOKEN)
 */
function devRoutes(
  chainRoutes: FastifyPluginAsync | undefined,
  simulatedRates: SimulatedRateSource | null,
  simulatorToken: string | undefined,
): FastifyPluginAsync | undefined {
  if (simulatedRates === null) return chainRoutes
  return async (app) => {
    if (chainRoutes) await app.register(chainRoutes)
    await app.register(async (rates) => {
      rates.addHook('onRequest', simulatorAccess(simulatorToken))
      await rates.register(simulatedRateRoutes, { source: simulatedRates })
    })
  }
}

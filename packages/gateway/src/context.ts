// What the gateway runs on, built from its configuration: the merchant API, the admin API and /metrics. Which
// adapters back the ports (the embedded SQLite file, or MongoDB) is @chainpay/infrastructure' choice, from
// the environment, and payment-command is reached over HTTP. In standalone, the process's shared
// infrastructure, payment-command's handler called directly, and the process's readiness.

import {
  buildAdminApp,
  createApiKeyAuthenticator,
  merchantApiKeys,
  rpcBalanceReaders,
  simulatorBalanceEndpoints,
} from '@chainpay/admin-api'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { createDashboardAccounts } from '@chainpay/dashboard'
import { applyNetworkSettings, type CreateRequestPolicy } from '@chainpay/domain'
import { infrastructureFor, type SharedRuntime } from '@chainpay/infrastructure'
import { type Clock, createSecretBox, type Logger, systemClock } from '@chainpay/platform'
import {
  type ChainBalanceReader,
  type DepositAddressCommands,
  type DepositSweepCommands,
  deliveryWakeupMessage,
  type InvoiceCommands,
  type MerchantWallets,
  type OutgoingCommands,
  type PaymentCommands,
  Topics,
} from '@chainpay/ports'
import {
  createCheckoutLinks,
  createClaimLinks,
  createServiceMetrics,
  httpService,
  metricsService,
  type ServiceContext,
} from '@chainpay/service-kit'
import type { FastifyPluginAsync } from 'fastify'
import { buildGatewayApp } from './app.js'
import { chainSimulatorProxy } from './chain-simulator-proxy.js'
import { createMerchantLogos } from './checkout/merchant-logos.js'
import type { GatewayConfig } from './config.js'
import { rateSimulatorProxy } from './rate-simulator-proxy.js'
import { gatewayReadiness } from './readiness.js'
import { createOutgoingReading } from './routes/outgoing-reading.js'

/** standalone: what the gateway gets from the other services of its process */
export interface InProcessGateway extends SharedRuntime {
  /** payment-command's handler */
  commands: PaymentCommands
  /** payment-command's invoice handler */
  invoiceCommands: InvoiceCommands
  /** payment-command's customers' deposit addresses (docs/api.md, "Deposit addresses") */
  depositAddresses: DepositAddressCommands
  /** payment-command's record of the operator's sweeps of customers' deposits */
  depositSweeps: DepositSweepCommands
  /** payment-command's merchant wallets, which only it keeps (docs/security.md) */
  merchantWallets: MerchantWallets
  /** payment-command's refunds and payouts */
  outgoing: OutgoingCommands
  /** the whole process's readiness, which /readyz answers */
  readiness: () => Promise<boolean>
  /** more routes on the merchant port: the chain simulator's, where chains are simulated */
  routes?: FastifyPluginAsync | undefined
  /** what the chains hold now, per network: the chain-indexer's (docs/api.md, "Balances and sweeps") */
  balanceReaders?: ReadonlyMap<string, ChainBalanceReader> | undefined
}

export interface GatewayContextOptions {
  clock?: Clock
  shared?: InProcessGateway
}

export async function buildGatewayContext(
  config: GatewayConfig,
  logger: Logger,
  options: GatewayContextOptions = {},
): Promise<ServiceContext> {
  const { shared, clock = systemClock } = options
  const metrics = shared?.metrics ?? createServiceMetrics('gateway')
  const { infrastructure, release } = await infrastructureFor({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'gateway',
    logger,
    metrics: metrics.registry,
    shared,
    busForHintsOnly: true,
  })
  const { stores } = infrastructure
  const remote = shared
    ? undefined
    : createHttpPaymentCommands({
        baseUrl: config.paymentCommandUrl,
        ...(config.commandApiToken === undefined ? {} : { token: config.commandApiToken }),
      })
  const commands = shared?.commands ?? (remote as PaymentCommands)
  const merchantWallets = shared?.merchantWallets ?? (remote as HttpPaymentCommands).merchantWallets
  const invoiceCommands = shared?.invoiceCommands ?? (remote as HttpPaymentCommands).invoices
  const outgoing: OutgoingCommands = shared?.outgoing ?? (remote as HttpPaymentCommands)
  const depositAddressCommands = shared?.depositAddresses ?? (remote as HttpPaymentCommands).depositAddresses
  const depositSweeps = shared?.depositSweeps ?? (remote as HttpPaymentCommands).depositSweeps
  const claimLinks = createClaimLinks({ publicUrl: config.checkout.publicUrl, keys: config.encryptionKeys })
  const merchants = stores.merchants()
  // one store for both listeners: the admin API's steps and the merchant API's commands write through
  const outgoingReadModel = stores.outgoingReadModel()
  const outgoingReading = createOutgoingReading({ readModel: outgoingReadModel, commands: outgoing, clock })
  const secretBox = createSecretBox(config.encryptionKeys)
  const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
  const registry = applyNetworkSettings(config.registry, config.chains)
  const policy: CreateRequestPolicy = {
    allowInsecureCallbackUrls: config.callbackUrlPolicy === 'development',
  }
  // fetched under the URL policy of webhooks (docs/api.md, "The customer's page")
  const merchantLogos = createMerchantLogos({
    allowPrivateHosts: config.callbackUrlPolicy === 'development',
    clock,
    logger,
  })
  const readiness =
    shared?.readiness ?? gatewayReadiness(() => infrastructure.answers(), config.paymentCommandUrl)
  const { chainSimulatorUrl } = config
  const extraRoutes = shared
    ? shared.routes
    : chainSimulatorUrl
      ? simulatorProxies(chainSimulatorUrl)
      : undefined

  /** with simulated chains, the chain simulator's routes and the simulated rates' (payment-command's) */
  function simulatorProxies(url: string): FastifyPluginAsync {
    return async (app) => {
      await app.register(chainSimulatorProxy({ url, token: config.chainSimulatorToken }))
      await app.register(
        rateSimulatorProxy({
          paymentCommandUrl: config.paymentCommandUrl,
          commandApiToken: config.commandApiToken,
          simulatorToken: config.chainSimulatorToken,
        }),
      )
    }
  }

  // what the chains hold: standalone's chain-indexer's readers; else the nodes of <NETWORK>_RPC_URL,
  // or the simulated chains' node routes (docs/operations.md, "Balances and sweeps")
  const balanceReaders = async () => {
    if (shared?.balanceReaders) return { balanceReaders: shared.balanceReaders }
    const endpoints =
      chainSimulatorUrl === undefined
        ? config.balanceRpc.endpoints
        : simulatorBalanceEndpoints(chainSimulatorUrl, config.chainSimulatorToken, registry.networks)
    const { timeoutMs } = config.balanceRpc
    return { balanceReaders: await rpcBalanceReaders(endpoints, { registry, timeoutMs, logger }) }
  }

  // Tells the notifier's dispatcher of deliveries put in line here, to send them at once (docs/api.md,
  // "Trying a webhook receiver"). A hint: when the bus fails, the dispatcher's poll finds them.
  const wakeDeliveries = (deliveryIds: string[]) => {
    infrastructure
      .bus()
      .publish(Topics.webhookWakeups, [deliveryWakeupMessage(deliveryIds)])
      .catch((error: unknown) =>
        logger.warn(
          { err: error, deliveryIds },
          'could not wake the webhook dispatcher; it sends these deliveries at its next poll (5 s)',
        ),
      )
  }

  // the dashboard's people: the public listener's pages and the admin API's users route share them
  const dashboardUserStore = stores.dashboardUsers()
  const dashboardAccounts = createDashboardAccounts({
    users: dashboardUserStore,
    secretBox,
    clock,
    publicUrl: config.checkout.publicUrl,
  })

  const merchantApi = httpService({
    name: 'merchant API',
    host: config.host,
    port: config.port,
    portVariable: 'PORT',
    logger,
    limits: config.httpLimits,
    // where anyone connects: a share of the port per client address (docs/operations.md, "HTTP limits")
    publicPort: { refusals: metrics.refusals, now: () => clock.now().getTime() },
    build: () =>
      buildGatewayApp({
        commands,
        readModel: stores.readModel(),
        authenticator,
        clock,
        logger,
        rateLimit: config.rateLimit,
        checkout: config.checkout,
        checkoutLinks: createCheckoutLinks({
          publicUrl: config.checkout.publicUrl,
          keys: config.encryptionKeys,
        }),
        merchantLogos,
        merchants,
        registry,
        requestMetrics: metrics.http,
        refusalMetrics: metrics.refusals,
        readiness,
        invoices: {
          invoiceCommands,
          invoiceReadModel: stores.invoiceReadModel(),
          invoiceLinks: createCheckoutLinks({
            publicUrl: config.checkout.publicUrl,
            keys: config.encryptionKeys,
            kind: 'invoice',
          }),
        },
        webhooks: {
          webhookEndpoints: stores.webhookEndpoints(),
          deliveries: stores.deliveries(),
          secretBox,
          clock,
          allowInsecureUrls: policy.allowInsecureCallbackUrls,
          wakeDeliveries,
        },
        outgoing,
        outgoingReadModel,
        outgoingReading,
        claimLinks,
        dashboard: {
          accounts: dashboardAccounts,
          readModel: stores.readModel(),
          search: stores.paymentSearch(),
          commands,
          outgoing,
          checkoutLinks: createCheckoutLinks({
            publicUrl: config.checkout.publicUrl,
            keys: config.encryptionKeys,
          }),
          publicUrl: config.checkout.publicUrl,
          apiKeys: merchantApiKeys({ merchants, secretBox, clock }),
        },
        depositAddresses: {
          depositAddressCommands,
          depositAddressReadModel: stores.depositAddressReadModel(),
        },
        deposits: { depositReadModel: stores.depositReadModel() },
        ...(extraRoutes ? { extraRoutes } : {}),
      }),
  })
  const adminApi = httpService({
    name: 'admin API',
    host: config.adminHost,
    port: config.adminPort,
    portVariable: 'ADMIN_PORT',
    logger,
    limits: config.httpLimits,
    build: async () =>
      buildAdminApp({
        merchants,
        secretBox,
        clock,
        registry,
        webhookUrlPolicy: policy,
        authenticator,
        adminToken: config.adminToken,
        dashboardUsers: dashboardAccounts,
        operatorPages: { users: dashboardUserStore, accounts: dashboardAccounts },
        logger,
        deliveries: stores.deliveries(),
        wakeDeliveries,
        webhookEndpoints: stores.webhookEndpoints(),
        merchantWallets,
        outgoing,
        outgoingReadModel,
        outgoingReading,
        balances: {
          commands,
          readModel: stores.readModel(),
          // customers' deposits: swept as payments' funds are (docs/treasury.md)
          deposits: {
            commands: depositSweeps,
            readModel: stores.depositReadModel(),
            addresses: stores.depositAddressReadModel(),
          },
          // the whole registry: a payment's asset stays known after its network stops being served
          registry: config.registry,
          ...((await balanceReaders()) ?? {}),
        },
        requestMetrics: metrics.http,
      }),
  })
  // standalone serves the process's one registry on a listener of its own
  const metricsPort = metricsService({ config, registry: metrics.registry, logger })

  return {
    services: [adminApi, merchantApi, ...(shared ? [] : [metricsPort])],
    readiness,
    async close() {
      await remote?.close()
      await merchantLogos.close()
      await release()
    },
  }
}

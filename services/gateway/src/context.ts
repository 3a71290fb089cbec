// What the gateway runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or MongoDB) is @chainpay/adapters' choice, from the environment;
// payment-command is reached over HTTP.

import { openInfrastructure } from '@chainpay/adapters'
import { applyNetworkSettings, type CreateRequestPolicy, defaultAssetRegistry } from '@chainpay/domain'
import { buildAdminApp, buildGatewayApp, createApiKeyAuthenticator } from '@chainpay/gateway'
import { createHttpPaymentCommands } from '@chainpay/payment-command'
import { type Clock, createSecretBox, type Logger, systemClock } from '@chainpay/platform'
import { createServiceMetrics, httpService, type ServiceContext } from '@chainpay/service-kit'
import { chainSimulatorProxy } from './chain-simulator-proxy.js'
import type { GatewayConfig } from './config.js'
import { gatewayReadiness } from './readiness.js'

export async function buildGatewayContext(
  config: GatewayConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ServiceContext> {
  const metrics = createServiceMetrics('gateway')
  const infrastructure = await openInfrastructure({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'gateway',
    logger,
    metrics: metrics.registry,
  })
  const { stores } = infrastructure
  const commands = createHttpPaymentCommands({ baseUrl: config.paymentCommandUrl })
  const merchants = stores.merchants()
  const secretBox = createSecretBox(config.encryptionKey)
  const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
  const registry = applyNetworkSettings(defaultAssetRegistry, config.chains)
  const policy: CreateRequestPolicy = {
    allowInsecureCallbackUrls: config.callbackUrlPolicy === 'development',
  }
  const { chainSimulatorUrl } = config

  const merchantApi = httpService({
    name: 'merchant API',
    host: config.host,
    port: config.port,
    logger,
    build: () =>
      buildGatewayApp({
        commands,
        readModel: stores.readModel(),
        authenticator,
        registry,
        policy,
        clock,
        logger,
        rateLimit: config.rateLimit,
        requestMetrics: metrics.http,
        readiness: gatewayReadiness(() => infrastructure.answers(), config.paymentCommandUrl),
        ...(chainSimulatorUrl ? { extraRoutes: chainSimulatorProxy(chainSimulatorUrl) } : {}),
      }),
  })
  const adminApi = httpService({
    name: 'admin API',
    host: config.adminHost,
    port: config.adminPort,
    logger,
    build: () =>
      buildAdminApp({
        merchants,
        secretBox,
        clock,
        registry,
        webhookUrlPolicy: policy,
        authenticator,
        adminToken: config.adminToken,
        logger,
        deliveries: stores.deliveries(),
        requestMetrics: metrics.http,
        // on the admin port only: it is internal, the merchant port is public
        metricsRegistry: metrics.registry,
      }),
  })

  return {
    services: [adminApi, merchantApi],
    async close() {
      await commands.close()
      await infrastructure.close()
    },
  }
}

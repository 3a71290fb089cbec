// What the gateway runs on, built from its configuration: the one place that knows which adapters
// back the ports (here the embedded SQLite ones, on the database file every service shares, and
// payment-command over HTTP).

import { type CreateRequestPolicy, defaultAssetRegistry } from '@chainpay/domain'
import { buildAdminApp, buildGatewayApp, createApiKeyAuthenticator } from '@chainpay/gateway'
import { createHttpPaymentCommands } from '@chainpay/payment-command'
import { type Clock, createSecretBox, type Logger, systemClock } from '@chainpay/platform'
import { httpService, type ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteDeliveryStore,
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { chainSimulatorProxy } from './chain-simulator-proxy.js'
import type { GatewayConfig } from './config.js'
import { gatewayReadiness } from './readiness.js'

export function buildGatewayContext(
  config: GatewayConfig,
  logger: Logger,
  clock: Clock = systemClock,
): ServiceContext {
  const db = openSqliteDatabase(config.databaseFile)
  const commands = createHttpPaymentCommands({ baseUrl: config.paymentCommandUrl })
  const merchants = createSqliteMerchantStore(db)
  const secretBox = createSecretBox(config.encryptionKey)
  const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
  const registry = defaultAssetRegistry
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
        readModel: createSqlitePaymentReadModel(db),
        authenticator,
        registry,
        policy,
        clock,
        logger,
        rateLimit: config.rateLimit,
        readiness: gatewayReadiness(db, config.paymentCommandUrl),
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
        deliveries: createSqliteDeliveryStore(db),
      }),
  })

  return {
    services: [adminApi, merchantApi],
    async close() {
      await commands.close()
      db.close()
    },
  }
}

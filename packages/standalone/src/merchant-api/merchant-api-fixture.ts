// The merchant API as one process serves it, for integration tests: the gateway's app on real
// adapters (a fresh SQLite file holding the event store, read model and merchants), payment-command's
// real handler called directly, a manual clock, captured log lines.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  type ApiKeyAuthenticator,
  buildAdminApp,
  type CreatedMerchant,
  createApiKeyAuthenticator,
  createMerchant,
  merchantApiKeys,
} from '@chainpay/admin-api'
import { createDashboardAccounts, type DashboardAccounts } from '@chainpay/dashboard'
import {
  type Asset,
  type AssetRegistry,
  type CreateRequestPolicy,
  defaultAssetRegistry,
  type ReceivingAddress,
} from '@chainpay/domain'
import {
  buildGatewayApp,
  createMerchantLogos,
  createOutgoingReading,
  type DepositAddressRoutesDeps,
  type GatewayDeps,
} from '@chainpay/gateway'
import {
  createOutgoingCommandHandler,
  createPaymentCommandHandler,
  type PaymentCommandHandler,
  type PaymentCommandHandlerDeps,
} from '@chainpay/payment-command'
import {
  createManualClock,
  createRootLogger,
  createSecretBox,
  generateSecretKey,
  type Logger,
  type ManualClock,
  type SecretBox,
} from '@chainpay/platform'
import {
  type EventStore,
  type MerchantStore,
  type OutgoingCommands,
  type OutgoingReadModel,
  type PaymentCommands,
  type PaymentReadModel,
  receivedNetCountOf,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { createCheckoutLinks, createClaimLinks } from '@chainpay/service-kit'
import { openApiProblems, type ServedResponse } from '@chainpay/service-kit/testing'
import { signApiRequest } from '@chainpay/signing'
import {
  createSqliteAddressAllocator,
  createSqliteDashboardUserStore,
  createSqliteDeliveryStore,
  createSqliteEventStore,
  createSqliteMerchantStore,
  createSqliteOutgoingReadModel,
  createSqlitePaymentReadModel,
  createSqlitePaymentSearch,
  createSqliteReceivedNetTotals,
  createSqliteWebhookEndpointStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export const FIXTURE_START = '2030-01-15T12:00:00.000Z'
export const FIXTURE_PUBLIC_URL = 'https://pay.example.com'

/** the admin API's token in the fixture */
export const FIXTURE_ADMIN_TOKEN = 'admin-token-for-tests-0123456789'

export interface Credentials {
  apiKey: string
  apiSecret: string
}

export interface SignedRequestOptions {
  /** raw body, text or bytes, sent as is and signed */
  body?: string | Buffer
  /** default application/json when there is a body */
  contentType?: string | null
  credentials?: Credentials
  /** X-Service-Timestamp; the fixture clock's now by default */
  timestamp?: string
  /** what the signature covers, when a test wants it to differ from what is sent */
  sign?: { method?: string; path?: string; body?: string | Buffer }
  /** applied last: replaces or (with undefined) removes any header */
  headers?: Record<string, string | undefined>
  /** the caller's address; 127.0.0.1 by default */
  remoteAddress?: string
}

export interface MerchantApiFixture {
  app: FastifyInstance
  db: DatabaseSync
  clock: ManualClock
  secretBox: SecretBox
  merchants: MerchantStore
  webhookEndpoints: WebhookEndpointStore
  deliveries: WebhookDeliveryStore
  readModel: PaymentReadModel
  eventStore: EventStore
  handler: PaymentCommandHandler
  /** payment-command's refunds and payouts (docs/api.md, "Refunds and payouts") */
  outgoing: OutgoingCommands
  /** the refunds and payouts read model both apps read and write through (no projection runs here) */
  outgoingReadModel: OutgoingReadModel
  /** the admin API on the same stores, token FIXTURE_ADMIN_TOKEN */
  adminApp: FastifyInstance
  authenticator: ApiKeyAuthenticator
  /** what buildGatewayApp is given for the customer's page: PUBLIC_URL FIXTURE_PUBLIC_URL */
  checkoutDeps: Pick<GatewayDeps, 'checkout' | 'checkoutLinks' | 'merchantLogos' | 'merchants' | 'registry'>
  /** the dashboard's people on the same file (docs/dashboard.md), served under /dashboard */
  dashboardAccounts: DashboardAccounts
  /** the merchant every request is signed for by default */
  merchant: CreatedMerchant
  /** a second merchant, to show that merchants cannot see each other's payments */
  otherMerchant: CreatedMerchant
  /** every JSON log line written while the fixture was open */
  logLines(): string[]
  /** a request signed the way a merchant signs it */
  send(method: string, url: string, options?: SignedRequestOptions): Promise<LightMyRequestResponse>
  /** every response to `send` and `create` so far */
  responses(): ServedResponse[]
  /** POST /payments with `body` as JSON */
  create(body: unknown, credentials?: Credentials): Promise<LightMyRequestResponse>
  /** closes everything, after checking every response so far against the served OpenAPI document */
  close(): Promise<void>
}

export interface MerchantApiFixtureOptions {
  /** replaces payment-command's handler as the gateway's PaymentCommands */
  commands?: (handler: PaymentCommandHandler) => PaymentCommands
  /**
   * replaces payment-command's refunds and payouts as the gateway's and the admin API's
   * OutgoingCommands (the distributed shape's HTTP client to a command API carrying both handlers)
   */
  outgoing?: (outgoing: OutgoingCommands, handler: PaymentCommandHandler) => Promise<OutgoingCommands>
  /** replaces the SQLite read model the gateway reads and writes through */
  readModel?: (sqlite: PaymentReadModel) => PaymentReadModel
  /** replaces the SQLite refunds and payouts read model both apps read and write through */
  outgoingReadModel?: (sqlite: OutgoingReadModel) => OutgoingReadModel | Promise<OutgoingReadModel>
  rateLimit?: GatewayDeps['rateLimit']
  readiness?: GatewayDeps['readiness']
  policy?: CreateRequestPolicy
  registry?: AssetRegistry
  requestMetrics?: GatewayDeps['requestMetrics']
  refusalMetrics?: GatewayDeps['refusalMetrics']
  metricsRegistry?: GatewayDeps['metricsRegistry']
  /** told of the deliveries the API puts in line (a redelivery, a test event), as the gateway's bus is */
  wakeDeliveries?: (deliveryIds: string[]) => void
  /** the rate service that prices payments in fiat; none when absent (such a create is 503) */
  rates?: PaymentCommandHandlerDeps['rates']
  /** customers' deposit addresses, on the fixture's file (docs/api.md, "Deposit addresses"); none when absent */
  depositAddresses?: (parts: {
    db: DatabaseSync
    eventStore: EventStore
    merchants: MerchantStore
    clock: ManualClock
    logger: Logger
  }) => Promise<DepositAddressRoutesDeps>
  /** the invoices' routes (docs/api.md, "Invoices"), payments through the fixture's handler; none when absent */
  invoices?: (parts: {
    db: DatabaseSync
    eventStore: EventStore
    merchants: MerchantStore
    payments: PaymentCommandHandler
    clock: ManualClock
    logger: Logger
  }) => Promise<NonNullable<GatewayDeps['invoices']>>
  /** the deposits' read model (docs/api.md, "Deposits"), on the fixture's file; none when absent */
  deposits?: (parts: { db: DatabaseSync }) => Promise<NonNullable<GatewayDeps['deposits']>>
}

/** addresses a test can tell apart; the real derivation is the wallet package's concern */
const testDeriver = {
  derive(asset: Asset, index: number): ReceivingAddress {
    const address = `${asset.chain}-address-${index}`
    return {
      address,
      tokenAccount: asset.tokenStandard === 'SPL' ? `${address}-token-account` : null,
      derivationPath: `m/test/${index}`,
      walletId: 'operator',
    }
  },
}

export async function openMerchantApiFixture(
  options: MerchantApiFixtureOptions = {},
): Promise<MerchantApiFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-gateway-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  const lines: string[] = []
  const logger: Logger = createRootLogger({
    service: 'gateway-test',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(line) },
  })
  const clock = createManualClock(FIXTURE_START)
  const encryptionKey = generateSecretKey()
  const secretBox = createSecretBox(encryptionKey)
  const registry = options.registry ?? defaultAssetRegistry
  const policy = options.policy ?? { allowInsecureCallbackUrls: false }
  const merchants = createSqliteMerchantStore(db)
  const webhookEndpoints = createSqliteWebhookEndpointStore(db)
  const deliveries = createSqliteDeliveryStore(db)
  const sqliteReadModel = createSqlitePaymentReadModel(db)
  const readModel = options.readModel ? options.readModel(sqliteReadModel) : sqliteReadModel
  const eventStore = createSqliteEventStore(db)
  const handler = createPaymentCommandHandler({
    eventStore,
    merchants,
    allocator: createSqliteAddressAllocator(db),
    deriver: testDeriver,
    registry,
    policy,
    ...(options.rates ? { rates: options.rates } : {}),
    clock,
    logger,
  })
  const receivedNet = createSqliteReceivedNetTotals(db)
  const outgoingHandler = createOutgoingCommandHandler({
    eventStore,
    receivedNet,
    merchants,
    registry,
    clock,
    logger,
  })
  const outgoing = options.outgoing ? await options.outgoing(outgoingHandler, handler) : outgoingHandler
  const sqliteOutgoingReadModel = createSqliteOutgoingReadModel(db)
  const outgoingReadModel = options.outgoingReadModel
    ? await options.outgoingReadModel(sqliteOutgoingReadModel)
    : sqliteOutgoingReadModel
  // one for both apps: what one wrote through, the other reads
  const outgoingReading = createOutgoingReading({ readModel: outgoingReadModel, commands: outgoing, clock })
  const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
  const adminDeps = { merchants, secretBox, clock }
  const merchant = await createMerchant(adminDeps, { name: 'Test Shop' })
  const otherMerchant = await createMerchant(adminDeps, { name: 'Other Shop' })
  const merchantLogos = createMerchantLogos({ allowPrivateHosts: true, clock, logger })
  const checkoutDeps = {
    checkout: { publicUrl: FIXTURE_PUBLIC_URL, frameAncestors: [] },
    checkoutLinks: createCheckoutLinks({ publicUrl: FIXTURE_PUBLIC_URL, keys: encryptionKey }),
    merchantLogos,
    merchants,
    registry,
  }
  const gatewayCommands = options.commands ? options.commands(handler) : handler
  const dashboardUserStore = createSqliteDashboardUserStore(db)
  const dashboardAccounts = createDashboardAccounts({
    users: dashboardUserStore,
    secretBox,
    clock,
    publicUrl: FIXTURE_PUBLIC_URL,
  })
  const app = await buildGatewayApp({
    commands: gatewayCommands,
    readModel,
    authenticator,
    clock,
    logger,
    rateLimit: options.rateLimit ?? { max: 10_000, windowMs: 60_000, perAddressMax: 10_000 },
    ...checkoutDeps,
    ...(options.readiness ? { readiness: options.readiness } : {}),
    requestMetrics: options.requestMetrics,
    ...(options.refusalMetrics ? { refusalMetrics: options.refusalMetrics } : {}),
    metricsRegistry: options.metricsRegistry,
    webhooks: {
      webhookEndpoints,
      deliveries,
      secretBox,
      clock,
      allowInsecureUrls: policy.allowInsecureCallbackUrls,
      ...(options.wakeDeliveries ? { wakeDeliveries: options.wakeDeliveries } : {}),
    },
    outgoing,
    outgoingReadModel,
    outgoingReading,
    claimLinks: createClaimLinks({ publicUrl: FIXTURE_PUBLIC_URL, keys: encryptionKey }),
    dashboard: {
      accounts: dashboardAccounts,
      readModel,
      search: createSqlitePaymentSearch(db),
      commands: gatewayCommands,
      outgoing,
      checkoutLinks: checkoutDeps.checkoutLinks,
      publicUrl: FIXTURE_PUBLIC_URL,
      apiKeys: merchantApiKeys(adminDeps),
    },
    ...(options.depositAddresses
      ? { depositAddresses: await options.depositAddresses({ db, eventStore, merchants, clock, logger }) }
      : {}),
    ...(options.invoices
      ? {
          invoices: await options.invoices({ db, eventStore, merchants, payments: handler, clock, logger }),
        }
      : {}),
    ...(options.deposits ? { deposits: await options.deposits({ db }) } : {}),
  })
  const adminApp = await buildAdminApp({
    merchants,
    secretBox,
    clock,
    adminToken: FIXTURE_ADMIN_TOKEN,
    logger,
    authenticator,
    outgoing,
    outgoingReadModel,
    outgoingReading,
    dashboardUsers: dashboardAccounts,
    operatorPages: { users: dashboardUserStore, accounts: dashboardAccounts },
  })

  const served: ServedResponse[] = []
  const send: MerchantApiFixture['send'] = async (method, url, request = {}) => {
    const credentials = request.credentials ?? merchant
    const timestamp = request.timestamp ?? String(clock.now().getTime())
    const signature = signApiRequest(credentials.apiSecret, {
      timestamp,
      method: request.sign?.method ?? method,
      path: request.sign?.path ?? url,
      body: request.sign?.body ?? request.body ?? '',
    })
    const contentType = request.contentType === undefined ? 'application/json' : request.contentType
    const headers: Record<string, string> = {
      'x-service-key': credentials.apiKey,
      'x-service-timestamp': timestamp,
      'x-service-signature': signature,
      ...(request.body !== undefined && contentType !== null ? { 'content-type': contentType } : {}),
    }
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      if (value === undefined) delete headers[name]
      else headers[name] = value
    }
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
      ...(request.body === undefined ? {} : { payload: request.body }),
    })
    served.push({
      method,
      url,
      statusCode: response.statusCode,
      contentType: response.headers['content-type'] as string | undefined,
      body: response.body,
    })
    return response
  }

  return {
    app,
    db,
    clock,
    secretBox,
    merchants,
    webhookEndpoints,
    deliveries,
    // what the tests save as the projection would: the document, and its count of the received net
    readModel: {
      ...sqliteReadModel,
      async save(document) {
        const outcome = await sqliteReadModel.save(document)
        await receivedNet.count(receivedNetCountOf(document))
        return outcome
      },
    },
    eventStore,
    handler,
    outgoing,
    outgoingReadModel,
    adminApp,
    authenticator,
    checkoutDeps,
    dashboardAccounts,
    merchant,
    otherMerchant,
    logLines: () => [...lines],
    responses: () => [...served],
    send,
    create: (body, credentials) =>
      send('POST', '/api/merchant/v1/payments', {
        body: JSON.stringify(body),
        ...(credentials ? { credentials } : {}),
      }),
    async close() {
      const openApi = await app.inject({ method: 'GET', url: '/api/merchant/v1/openapi.json' })
      const problems = openApiProblems(openApi.body, served)
      await app.close()
      await adminApp.close()
      await merchantLogos.close()
      await eventStore.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
      if (problems.length > 0) {
        throw new Error(`responses that differ from the OpenAPI document:\n${problems.join('\n')}`)
      }
    },
  }
}

/** the body of a JSON response */
export function json<T = Record<string, unknown>>(response: { body: string }): T {
  return JSON.parse(response.body) as T
}

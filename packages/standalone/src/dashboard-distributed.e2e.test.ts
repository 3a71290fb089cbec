// The dashboard of the distributed shape's gateway in a real browser (docs/dashboard.md; docs/
// architecture.md, "The command API"): the gateway built by its own context factory
// (buildGatewayContext) on MongoDB's wire protocol (FerretDB) for merchants, the read model and the
// dashboard's users, sessions and audit log, reaching payment-command over the command API client.
// payment-command's handler runs behind its command API in this process, with its event store, the
// relay and the projection filling the read model on MongoDB (the SQLite bus between them, as
// treasury-refunds-distributed.int: what Kafka would carry changes nothing here). The operator adds an
// owner through the gateway's admin API; the owner sets up TOTP and signs in in Chromium and finds a
// paid payment by its transaction hash, its history from payment-command over HTTP; refunds part of it
// from its page (created on payment-command over HTTP); and after 12 idle hours, on the gateway's
// clock, the session held on MongoDB ends.

import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SESSION_IDLE_MS } from '@chainpay/dashboard'
import { defaultAssetRegistry } from '@chainpay/domain'
import { buildGatewayContext, readGatewayConfig } from '@chainpay/gateway'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { buildCommandApi, createEventRelay, createOutgoingCommandHandler } from '@chainpay/payment-command'
import { openSqliteCommandSide, type SqliteCommandSide } from '@chainpay/payment-command/testing'
import {
  type Clock,
  createRootLogger,
  createServiceRunner,
  generateAdminToken,
  generateSecretKey,
  type Service,
  systemClock,
} from '@chainpay/platform'
import type { ReceivedNetTotals } from '@chainpay/ports'
import { createProjectionService } from '@chainpay/projection'
import { freePort } from '@chainpay/service-kit/testing'
import {
  createMongoPaymentReadModel,
  createMongoReceivedNetTotals,
  type MongoDatabase,
  migrateMongoDatabase,
  mongoCollections,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { createSqliteBus, createSqliteCheckpointStore } from '@chainpay/store-sqlite'
import { createMerchantClient } from '@chainpay/test-client'
import { Secret, TOTP } from 'otpauth'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import {
  addDashboardUser,
  launchChromium,
  seriousViolations,
  setUpInBrowser,
  signInInBrowser,
} from './testing/dashboard-browser.js'

const PASSWORD = 'a long passphrase for the owner'
const logger = createRootLogger({ service: 'dashboard-distributed-test', level: 'silent' })
const cleanups: Array<() => Promise<void>> = []
/** the real time, moved on by the test: the gateway's clock */
let skewMs = 0
const clock: Clock = { now: () => new Date(Date.now() + skewMs) }

let browser: Browser
let side: SqliteCommandSide
let mongo: MongoDatabase
let receivedNet: ReceivedNetTotals
/** what the gateway asked payment-command over the command API */
const commandCalls: string[] = []
let gateway: { publicUrl: string; adminUrl: string; adminToken: string }

beforeAll(async () => {
  const launched = launchChromium()
  cleanups.push(async () => (await launched).close())
  side = openSqliteCommandSide()
  cleanups.push(() => side.close())
  const database = uniqueName('dashboard')
  mongo = await openMongoDatabase({ url: testMongoDbUrl(), database })
  cleanups.push(async () => {
    await mongo.db.dropDatabase()
    await mongo.close()
  })
  await migrateMongoDatabase(mongo.db)

  // payment-command: its handlers behind the command API, the relay and the projection into MongoDB
  receivedNet = createMongoReceivedNetTotals(mongo.db)
  const outgoing = createOutgoingCommandHandler({
    eventStore: side.eventStore,
    receivedNet,
    merchants: side.merchants,
    registry: defaultAssetRegistry,
    clock: systemClock,
    logger,
  })
  const commandApi = buildCommandApi({ handler: side.handler, outgoing, logger })
  commandApi.addHook('onRequest', async (request) => void commandCalls.push(request.url))
  await commandApi.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => commandApi.close())
  const bus = createSqliteBus(side.db, { logger, pollIntervalMs: 20 })
  const services: Service[] = [
    createEventRelay({
      eventStore: side.eventStore,
      bus,
      checkpoints: createSqliteCheckpointStore(side.db),
      logger,
      pollIntervalMs: 20,
    }),
    createProjectionService({ bus, readModel: createMongoPaymentReadModel(mongo.db), receivedNet, logger }),
  ]
  for (const service of services) await service.start()
  cleanups.push(async () => {
    for (const service of [...services].reverse()) await service.stop()
    await bus.close()
  })

  // the gateway as its deployable builds it, from its environment
  const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-gateway-dashboard-'))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const [port, adminPort, metricsPort] = [await freePort(), await freePort(), await freePort()]
  const adminToken = generateAdminToken()
  const publicUrl = `http://127.0.0.1:${port}`
  const config = readGatewayConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    METRICS_PORT: String(metricsPort),
    DATA_DIR: dataDir,
    PUBLIC_URL: publicUrl,
    ADMIN_TOKEN: adminToken,
    CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    PAYMENT_COMMAND_URL: `http://127.0.0.1:${(commandApi.server.address() as AddressInfo).port}`,
    MONGODB_URL: testMongoDbUrl(),
    MONGODB_DATABASE: database,
    LOG_LEVEL: 'warn',
  })
  const context = await buildGatewayContext(config, logger, { clock })
  const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
  cleanups.push(async () => {
    await runner.stop('test over')
    await context.close()
  })
  expect(await runner.start()).toBe(true)
  gateway = { publicUrl, adminUrl: `http://127.0.0.1:${adminPort}`, adminToken }
  browser = await launched
}, 60_000)

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

it('an owner signs in with TOTP, finds a payment by its tx hash and refunds it on the distributed gateway; the session expires', async () => {
  // the operator's merchant, on MongoDB; payment-command's copy of it, which its own store would hold
  const created = await fetch(`${gateway.adminUrl}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Distributed Shop' }),
  })
  expect(created.status).toBe(201)
  const merchant = (await created.json()) as {
    merchant: { merchantId: string }
    apiKey: string
    apiSecret: string
  }
  const { merchantId } = merchant.merchant
  await side.addMerchant(merchantId)

  // a payment created through the gateway's merchant API, paid as the chain watcher reports it
  const client = createMerchantClient({
    baseUrl: `${gateway.publicUrl}/api/merchant/v1`,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
  const response = await client.createPayment({ amount: '25', currency: 'USDT', network: 'TRON' } as never)
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  const { paymentId } = response.body as { paymentId: string }
  const payment = await side.handler.getPayment({ merchantId, paymentId })
  if (payment === null) throw new Error(`payment ${paymentId} not on payment-command`)
  const { address, requiredConfirmations } = payment.payment.created
  const txHash = randomBytes(32).toString('hex')
  const now = new Date().toISOString()
  await side.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash,
    transferIndex: 0,
    address,
    amountUnits: '25000000',
    blockHeight: 100,
    blockTime: now,
    confirmations: requiredConfirmations,
    status: 'seen',
    dropReason: null,
    observedAt: now,
  })
  await vi.waitFor(
    async () => expect((await client.getPayment(paymentId)).body).toMatchObject({ status: 'confirmed' }),
    { timeout: 10_000, interval: 50 },
  )

  // the owner's setup and sign-in in the browser
  const setupUrl = await addDashboardUser(gateway, merchantId, {
    email: 'owner@distributed.example',
    role: 'owner',
  })
  expect(new URL(setupUrl).origin).toBe(gateway.publicUrl)
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
  const page = await context.newPage()
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  const codeAt = (secret: string, offsetMs: number) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs })
  const secret = (await setUpInBrowser(page, setupUrl, PASSWORD, (key) => codeAt(key, 0))) as string
  await signInInBrowser(page, `${gateway.publicUrl}/dashboard/sign-in`, {
    email: 'owner@distributed.example',
    password: PASSWORD,
    code: codeAt(secret, 30_000),
  })
  // the user, the session and the audit log are MongoDB's
  const collection = (name: string) => mongo.db.collection(name)
  expect(await collection(mongoCollections.dashboardUsers).countDocuments({})).toBe(1)
  expect(await collection(mongoCollections.dashboardSessions).countDocuments({})).toBe(1)
  expect(
    await collection(mongoCollections.dashboardAudit).countDocuments({ action: 'session.signed_in' }),
  ).toBe(1)

  // support's lookup: the hash the customer quotes, found in the read model on MongoDB
  await page.getByLabel('Payment id, address or transaction hash').fill(txHash)
  await page.getByRole('button', { name: 'Search' }).click()
  commandCalls.length = 0
  await page.getByRole('link', { name: paymentId }).click()
  await page.getByRole('heading', { name: 'History' }).waitFor()
  const main = await page.locator('main').textContent()
  expect(main).toContain(txHash)
  expect(main).toContain('payment.confirmed')
  expect(await seriousViolations(page)).toEqual([])
  // the history came from payment-command, over the command API
  expect(commandCalls).toContain(`/internal/v1/payments/${paymentId}/events?merchantId=${merchantId}`)

  // a refund from the payment's page, created on payment-command (which reads the received net the
  // projection counted on MongoDB), shown by the merchant API from the read model written through
  await vi.waitFor(async () => expect(await receivedNet.countedOf(paymentId)).toBeGreaterThan(0n), {
    timeout: 10_000,
    interval: 20,
  })
  await page.getByRole('link', { name: 'Refund this payment' }).click()
  await page.getByLabel('Amount').fill('5')
  await page.getByLabel('Reason').fill('one item was out of stock')
  commandCalls.length = 0
  await page.getByRole('button', { name: 'Create refund' }).click()
  await page.getByRole('heading', { name: 'Refunds and payouts' }).waitFor()
  expect(await page.locator('#claim-link').textContent()).toContain(`${gateway.publicUrl}/refund/`)
  expect(commandCalls).toContain('/internal/v1/outgoing/createRefund')
  const refunds = (await client.request('GET', '/refunds')).body as { data: Record<string, unknown>[] }
  expect(refunds.data).toMatchObject([{ paymentId, amount: '5', status: 'awaiting_address' }])
  expect(requests.filter((url) => new URL(url).origin !== gateway.publicUrl)).toEqual([])

  // 12 hours without a request: the next page is the sign-in
  skewMs += SESSION_IDLE_MS
  await page.getByRole('link', { name: 'Payments' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect(await page.locator('main').textContent()).toContain('Your session has ended.')
  await context.close()
})

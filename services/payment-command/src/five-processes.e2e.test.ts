// The distributed shape on one machine: the five deployables as five processes sharing one SQLite
// file. A merchant's payment goes through all of them, and the projection and the notifier survive
// kill -9 in the middle of a payment without losing a status change or a webhook.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createMerchantClient, type MerchantClient, verifyWebhook } from '@chainpay/client'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/payment-command'
import { generateSecretKey, randomToken } from '@chainpay/platform'
import {
  freePort,
  type NodeProcess,
  nodeProcess,
  type ReceivedWebhook,
  runToExit,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

type ServiceName = 'gateway' | 'payment-command' | 'chain-indexer' | 'projection' | 'notifier'

/** the deployable's build, as an operator runs it */
const mainScriptOf = (name: ServiceName) =>
  fileURLToPath(new URL(`../../${name}/dist/main.js`, import.meta.url))

interface PaymentBody {
  paymentId: string
  status: string
  generatedAddress: string
  receivedAmount: string | null
  txHash: string | null
  confirmations: number
}

interface CreatedMerchant {
  merchant: { merchantId: string }
  apiKey: string
  apiSecret: string
  webhookSecret: string
}

const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-five-'))
const adminToken = randomToken('adm', 32)
const processes = new Map<ServiceName, NodeProcess>()
const urls = { gateway: '', admin: '', paymentCommand: '', chainIndexer: '' }
let receiver: WebhookReceiver
let merchant: CreatedMerchant
let client: MerchantClient
let commands: HttpPaymentCommands

const service = (name: ServiceName) => processes.get(name) as NodeProcess

beforeAll(async () => {
  const walletFile = join(dataDir, 'dev-wallet.json')
  writeFileSync(walletFile, JSON.stringify(createDevelopmentWallet()), { mode: 0o600 })
  const encryptionKey = generateSecretKey()
  const [paymentCommand, gateway, admin, chainIndexer, projection, notifier] = await Promise.all(
    Array.from({ length: 6 }, () => freePort()),
  )
  const local = (port: number | undefined) => `http://127.0.0.1:${port}`
  urls.paymentCommand = local(paymentCommand)
  urls.gateway = local(gateway)
  urls.admin = local(admin)
  urls.chainIndexer = local(chainIndexer)
  const common = { DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }
  const define = (name: ServiceName, readyUrl: string, env: Record<string, string>) =>
    processes.set(
      name,
      nodeProcess({ name, mainScript: mainScriptOf(name), readyUrl, env: { ...common, ...env } }),
    )

  define('payment-command', `${urls.paymentCommand}/readyz`, {
    PORT: String(paymentCommand),
    WALLET_FILE: walletFile,
    CALLBACK_URL_POLICY: 'development',
  })
  define('projection', `${local(projection)}/readyz`, { HEALTH_PORT: String(projection) })
  define('notifier', `${local(notifier)}/readyz`, {
    HEALTH_PORT: String(notifier),
    CHAINPAY_ENCRYPTION_KEY: encryptionKey,
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms,800ms',
  })
  define('chain-indexer', `${urls.chainIndexer}/readyz`, {
    PORT: String(chainIndexer),
    CHAIN_MODE: 'simulator',
    TRON_BLOCK_INTERVAL_MS: '40',
    SOLANA_BLOCK_INTERVAL_MS: '40',
  })
  define('gateway', `${urls.gateway}/readyz`, {
    PORT: String(gateway),
    ADMIN_PORT: String(admin),
    ADMIN_HOST: '127.0.0.1',
    PAYMENT_COMMAND_URL: urls.paymentCommand,
    CHAINPAY_ENCRYPTION_KEY: encryptionKey,
    ADMIN_TOKEN: adminToken,
    CHAIN_SIMULATOR_URL: urls.chainIndexer,
    CALLBACK_URL_POLICY: 'development',
  })

  // payment-command first: it creates the database file; the others then open it side by side
  await service('payment-command').start()
  await Promise.all(
    (['projection', 'notifier', 'chain-indexer', 'gateway'] as const).map((name) => service(name).start()),
  )
  receiver = await startWebhookReceiver()
  commands = createHttpPaymentCommands({ baseUrl: urls.paymentCommand })
})

afterAll(async () => {
  await Promise.all([...processes.values()].map((running) => running.kill()))
  await receiver?.close()
  await commands?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function createMerchantThroughAdminApi(): Promise<CreatedMerchant> {
  const response = await fetch(`${urls.admin}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Five processes' }),
  })
  expect(response.status).toBe(201)
  return (await response.json()) as CreatedMerchant
}

async function createPayment(amount: string): Promise<PaymentBody> {
  const response = await client.createPayment({
    amount,
    currency: 'USDT',
    network: 'TRON',
    callbackUrl: receiver.url,
  } as never)
  expect(response.status).toBe(201)
  return response.body as PaymentBody
}

/** a customer's transfer, through the simulator's dev route on `baseUrl` */
async function pay(baseUrl: string, payment: PaymentBody, amount: string): Promise<string> {
  const response = await fetch(`${baseUrl}/dev/chains/TRON/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: payment.generatedAddress, amount, currency: 'USDT' }),
  })
  const body = (await response.json()) as { txHash: string }
  expect(response.status).toBe(201)
  return body.txHash
}

async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what} did not happen in time`)
}

async function confirmedThroughGateway(paymentId: string): Promise<PaymentBody> {
  return await eventually(`payment ${paymentId} confirmed through the gateway`, async () => {
    const response = await client.getPayment(paymentId)
    const body = response.body as PaymentBody
    return response.status === 200 && body.status === 'confirmed' ? body : undefined
  })
}

const acknowledged = (paymentId: string) =>
  receiver.received.filter((r) => r.answeredWith === 200 && r.body.payment.id === paymentId)

/** the events delivered for a payment, each once, in the order first delivered */
const deliveredEvents = (paymentId: string) => [...new Set(acknowledged(paymentId).map((r) => r.body.event))]

function expectSignedByMerchant(webhooks: ReceivedWebhook[]): void {
  expect(webhooks.length).toBeGreaterThan(0)
  for (const webhook of webhooks) {
    const verification = verifyWebhook(
      merchant.webhookSecret,
      {
        rawBody: webhook.rawBody,
        signature: webhook.headers['x-signature'] ?? '',
        timestamp: webhook.headers['x-timestamp'] ?? '',
      },
      Math.floor(Date.now() / 1000),
    )
    expect(verification).toEqual({ ok: true })
  }
}

/** confirmed as the gateway shows it, and its two webhooks delivered, signed by the merchant's secret */
async function expectConfirmedAndNotified(paymentId: string, amount: string, txHash: string): Promise<void> {
  const confirmed = await confirmedThroughGateway(paymentId)
  expect(confirmed).toMatchObject({ receivedAmount: amount, txHash, confirmations: 20 })
  await receiver.waitFor(() => deliveredEvents(paymentId).includes('payment.confirmed'))
  expect(deliveredEvents(paymentId)).toEqual(['payment.pending', 'payment.confirmed'])
  expectSignedByMerchant(acknowledged(paymentId))
}

describe('five services in five processes on one SQLite file', () => {
  it('confirms a TRON USDT payment and delivers its signed webhooks', async () => {
    merchant = await createMerchantThroughAdminApi()
    client = createMerchantClient({
      baseUrl: `${urls.gateway}/api/merchant/v1`,
      apiKey: merchant.apiKey,
      apiSecret: merchant.apiSecret,
    })

    const created = await createPayment('12.5')
    expect(created.status).toBe('pending')
    const txHash = await pay(urls.chainIndexer, created, '12.5')

    await expectConfirmedAndNotified(created.paymentId, '12.5', txHash)
  })

  it('loses nothing when the projection and the notifier are killed in the middle of a payment', async () => {
    const created = await createPayment('7')
    await Promise.all([service('projection').kill(), service('notifier').kill()])

    // paid through the gateway's forward to the simulator, while both are down
    const txHash = await pay(urls.gateway, created, '7')
    await eventually('the confirmation in the event store', async () => {
      const snapshot = await commands.getPayment({
        merchantId: merchant.merchant.merchantId,
        paymentId: created.paymentId,
      })
      return snapshot?.payment.status === 'confirmed' ? snapshot : undefined
    })
    // nobody projects while the projection is down: the gateway still shows what it saw at creation
    const stale = await client.getPayment(created.paymentId)
    expect((stale.body as PaymentBody).status).toBe('pending')
    expect(deliveredEvents(created.paymentId)).not.toContain('payment.confirmed')

    await Promise.all([service('projection').start(), service('notifier').start()])

    await expectConfirmedAndNotified(created.paymentId, '7', txHash)
  })

  it('stops every service cleanly on SIGTERM', async () => {
    const exitCodes = await Promise.all(
      [...processes.values()].map(async (running) => [running.name, await running.stop()] as const),
    )
    expect(Object.fromEntries(exitCodes)).toEqual({
      'payment-command': 0,
      projection: 0,
      notifier: 0,
      'chain-indexer': 0,
      gateway: 0,
    })
  })
})

describe('a deployable with a bad configuration', () => {
  it.each([
    ['payment-command', 'TRON_ACCOUNT_XPUB and SOLANA_SEED: required'],
    ['gateway', 'PAYMENT_COMMAND_URL: required'],
    ['chain-indexer', 'CHAIN_MODE: required'],
    ['projection', "HEALTH_PORT: expected an integer between 1 and 65535, got 'none'"],
    ['notifier', 'CHAINPAY_ENCRYPTION_KEY: required'],
  ] as const)('%s says what is wrong and exits with 1, without a stack trace', async (name, problem) => {
    const { code, stdout, stderr } = await runToExit(mainScriptOf(name), {
      DATA_DIR: dataDir,
      HEALTH_PORT: 'none',
    })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`chainpay ${name} cannot start: invalid configuration:\n`)
    expect(stderr).toContain(`  - ${problem}`)
    expect(stderr).not.toMatch(/^\s+at /m)
  })
})

// The upgrade of the distributed shape from the release before versioned storage (docs/operations.md,
// "Upgrades and rollbacks"): what that release's five services left (fixtures/upgrade-b991541, made
// by the script beside it: the MongoDB database dumped, payment-command's SQLite event store, the
// chain simulator's file, the wallet and the secrets) is restored, and this build's five services
// start on it: they migrate it and serve the acceptance flow on it.

import { cpSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import {
  createMerchantClient,
  type MerchantClient,
  verifyWebhook,
  WEBHOOK_HEADERS,
} from '@chainpay/test-client'
import { BSON, type Document, MongoClient } from 'mongodb'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type PaymentBody, waitForPayment } from './testing/scenario-helpers.js'
import { startTestCluster, type TestCluster } from './testing/test-cluster.js'

const fixtureDir = fileURLToPath(new URL('../fixtures/upgrade-b991541/', import.meta.url))

interface Manifest {
  unreachablePort: number
  secrets: { encryptionKey: string; adminToken: string }
  merchant: { apiKey: string; apiSecret: string; webhookSecret: string }
  payments: Record<'confirmed' | 'confirming' | 'webhookPending', { paymentId: string; address: string }>
}
const manifest = JSON.parse(readFileSync(join(fixtureDir, 'manifest.json'), 'utf8')) as Manifest
type Dump = Record<
  string,
  { indexes: { name: string; key: Record<string, 1 | -1> }[]; documents: Document[] }
>

const name = uniqueName('upgrade')
let cluster: TestCluster
let receiver: WebhookReceiver
let client: MerchantClient
let mongo: MongoClient

beforeAll(async () => {
  // the MongoDB database as the old release left it: its documents and its indexes, no versions
  mongo = await MongoClient.connect(testMongoDbUrl())
  const dump = BSON.EJSON.parse(readFileSync(join(fixtureDir, 'mongo-dump.json'), 'utf8'), {
    relaxed: false,
  }) as Dump
  for (const [collection, { indexes, documents }] of Object.entries(dump)) {
    if (documents.length > 0) await mongo.db(name).collection(collection).insertMany(documents)
    for (const index of indexes)
      await mongo.db(name).collection(collection).createIndex(index.key, { name: index.name })
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-upgrade-'))
  cpSync(fixtureDir, dataDir, { recursive: true })
  // the receiver that did not answer the old release, there at last
  receiver = await startWebhookReceiver({ port: manifest.unreachablePort })
  cluster = await startTestCluster({
    kafkaBrokers: testKafkaBrokers().join(','),
    mongodbUrl: testMongoDbUrl(),
    name,
    existing: { dataDir, secrets: manifest.secrets },
    chains: { networks: ['TRON', 'TRON_NILE'], requiredConfirmations: { TRON_NILE: 400 } },
  })
  client = createMerchantClient({
    baseUrl: `${cluster.urls.gateway}/api/merchant/v1`,
    apiKey: manifest.merchant.apiKey,
    apiSecret: manifest.merchant.apiSecret,
  })
}, 180_000)

afterAll(async () => {
  await cluster?.destroy()
  await receiver?.close()
  await mongo?.db(name).dropDatabase()
  await mongo?.close()
})

let logsShown = false
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    if (logsShown || !cluster) return
    logsShown = true
    process.stderr.write(`--- the cluster's services logged:\n${cluster.output().slice(-30_000)}\n`)
  })
})

describe('upgrade from b991541 (distributed)', () => {
  it('the old payments are readable with the old credentials', async () => {
    const confirmed = await client.getPayment(manifest.payments.confirmed.paymentId)
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toMatchObject({ status: 'confirmed', receivedAmount: '3', confirmations: 20 })
    const confirming = await client.getPayment(manifest.payments.confirming.paymentId)
    expect(confirming.body).toMatchObject({ status: 'pending', receivedAmount: '4' })
  })

  it('the old payments have the fields of v1.1 from MongoDB, listed, and their history from the event store', async () => {
    const { paymentId } = manifest.payments.confirmed
    const confirmed = (await client.getPayment(paymentId)).body as Record<string, unknown>
    // the read model's documents were given the fee policy the events' upcaster gives (migration 2)
    expect(confirmed).toMatchObject({
      requiredConfirmations: 20,
      lateFunds: [],
      receivedFeeAmount: confirmed.feeAmount,
      receivedNetAmount: confirmed.netAmount,
    })
    const listed = await client.request('GET', '/payments?status=confirmed&limit=100')
    expect(listed.status).toBe(200)
    const page = (listed.body as { data: Array<{ paymentId: string }> }).data
    expect(page.find((payment) => payment.paymentId === paymentId)).toEqual(confirmed)
    const history = await client.request('GET', `/payments/${paymentId}/events`)
    const types = (history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)
    expect(types[0]).toBe('payment.created')
    expect(types.at(-1)).toBe('payment.confirmed')
  })

  it('every store of the MongoDB database is versioned', async () => {
    const versions = await mongo.db(name).collection('schema_versions').find().toArray()
    expect(versions.map((version) => version._id).sort()).toEqual([
      'address-allocator',
      'chain-indexer',
      'dashboard-users',
      'deadlines',
      'deliveries',
      'merchant-wallets',
      'merchants',
      'read-model:deposit_addresses_read',
      'read-model:deposits_read',
      'read-model:invoices_read',
      'read-model:notifier_invoices',
      'read-model:notifier_payments',
      'read-model:outgoing_read',
      'read-model:payments_read',
      'received-net',
      'webhook-endpoints',
    ])
  })

  it('the webhook left pending is delivered, signed with the old webhook secret', async () => {
    const { paymentId } = manifest.payments.webhookPending
    const received = await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === paymentId && r.answeredWith === 200),
    )
    const delivered = received.find((r) => r.body.payment.id === paymentId && r.answeredWith === 200)
    expect(delivered?.body.event).toBe('payment.pending')
    const verification = verifyWebhook(
      manifest.merchant.webhookSecret,
      {
        rawBody: delivered?.rawBody ?? '',
        signature: delivered?.headers[WEBHOOK_HEADERS.signature] ?? '',
        timestamp: delivered?.headers[WEBHOOK_HEADERS.timestamp] ?? '',
      },
      Math.floor(Date.now() / 1000),
    )
    expect(verification).toEqual({ ok: true })
  })

  it('the payment whose transfer was confirming is confirmed once the transfer is final', async () => {
    const confirmed = await waitForPayment(
      client,
      manifest.payments.confirming.paymentId,
      (p) => p.status === 'confirmed',
      120_000,
    )
    expect(confirmed).toMatchObject({ receivedAmount: '4', confirmations: 400 })
  }, 130_000)

  it('payments created after the upgrade get addresses none of the old payments has', async () => {
    const oldAddresses = Object.values(manifest.payments).map((payment) => payment.address)
    for (const network of ['TRON', 'TRON_NILE']) {
      const created = await client.createPayment({ amount: '1', currency: 'TRX', network } as never)
      expect(created.status).toBe(201)
      expect(oldAddresses).not.toContain((created.body as PaymentBody).generatedAddress)
    }
  })
})

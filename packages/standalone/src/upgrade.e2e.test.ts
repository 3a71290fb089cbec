// The upgrade from the release before versioned storage (docs/operations.md, "Upgrades and
// rollbacks"): a data directory that release wrote (testing/fixtures/upgrade-b991541, made by the
// script beside it) is opened by this build, which migrates it and serves the acceptance flow on it.
// That file was written with synchronous=NORMAL, per-network address counters, v1 sealed secrets
// and no target_host column.
//
// Standalone runs in this process on a clock set just after the fixture was made: its open payments
// expire a day after that, and its pending webhook was due seconds after.

import { copyFileSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createManualClock } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { deliveryMigrations, openSqliteDatabase, sqliteSchemaVersion } from '@chainpay/store-sqlite'
import {
  createMerchantClient,
  type MerchantClient,
  verifyWebhook,
  WEBHOOK_HEADERS,
} from '@chainpay/test-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { newDataDir, readDemoMerchant } from './testing/standalone-process.js'

const fixtureDir = fileURLToPath(new URL('./testing/fixtures/upgrade-b991541/', import.meta.url))
const fixtureFiles = ['chainpay.sqlite', 'standalone-secrets.json', 'dev-wallet.json', 'demo-merchant.json']

interface Manifest {
  madeAt: string
  unreachablePort: number
  payments: Record<'confirmed' | 'pending' | 'webhookPending', { paymentId: string; address: string }>
}
const manifest = JSON.parse(readFileSync(join(fixtureDir, 'manifest.json'), 'utf8')) as Manifest

const dataDir = newDataDir()
const clock = createManualClock(new Date(Date.parse(manifest.madeAt) + 60_000))
let standalone: InProcessStandalone
let receiver: WebhookReceiver

/** the old credentials, signing on the test's clock: the server checks request times against it */
function merchantClientFor(running: InProcessStandalone): MerchantClient {
  const { apiKey, apiSecret } = running.demoMerchant()
  return createMerchantClient({
    baseUrl: running.apiUrl,
    apiKey,
    apiSecret,
    now: () => clock.now().getTime(),
  })
}

beforeAll(async () => {
  for (const file of fixtureFiles) copyFileSync(join(fixtureDir, file), join(dataDir, file))
  // the receiver that did not answer the old build, there at last
  receiver = await startWebhookReceiver({ port: manifest.unreachablePort })
  standalone = await startInProcessStandalone({
    clock,
    dataDir,
    env: { WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms' },
  })
}, 60_000)

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('upgrade from b991541 (standalone)', () => {
  it('the old payments are readable with the old credentials, as the old build left them', async () => {
    const client = merchantClientFor(standalone)
    const confirmed = await client.getPayment(manifest.payments.confirmed.paymentId)
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toMatchObject({
      status: 'confirmed',
      receivedAmount: '3',
      confirmations: 20,
      generatedAddress: manifest.payments.confirmed.address,
    })
    const pending = await client.getPayment(manifest.payments.pending.paymentId)
    expect(pending.body).toMatchObject({ status: 'pending', amount: '12.5', receivedAmount: null })
  })

  it('the old payments have the fields of v1.1, listed and with their history, from events written before them', async () => {
    const client = merchantClientFor(standalone)
    const { paymentId } = manifest.payments.confirmed
    const confirmed = (await client.getPayment(paymentId)).body as Record<string, unknown>
    // their PaymentCreated recorded no fee policy: the fee of the requested amount stands for it
    expect(confirmed).toMatchObject({
      requiredConfirmations: 20,
      lateFunds: [],
      receivedFeeAmount: confirmed.feeAmount,
      receivedNetAmount: confirmed.netAmount,
    })
    expect(confirmed.description === null || typeof confirmed.description === 'string').toBe(true)
    const pending = (await client.getPayment(manifest.payments.pending.paymentId)).body
    expect(pending).toMatchObject({ receivedFeeAmount: null, receivedNetAmount: null })

    const list = await client.request('GET', '/payments?limit=100')
    expect(list.status).toBe(200)
    const listed = (list.body as { data: Array<{ paymentId: string }> }).data
    expect(listed.find((payment) => payment.paymentId === paymentId)).toEqual(confirmed)
    const byStatus = await client.request('GET', '/payments?status=confirmed')
    expect((byStatus.body as { data: Array<{ paymentId: string }> }).data.map((p) => p.paymentId)).toContain(
      paymentId,
    )

    const history = await client.request('GET', `/payments/${paymentId}/events`)
    expect(history.status).toBe(200)
    const types = (history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)
    expect(types[0]).toBe('payment.created')
    expect(types).toContain('transfer.detected')
    expect(types.at(-1)).toBe('payment.confirmed')
  })

  it('the file is migrated: every store at its last version', () => {
    const db = openSqliteDatabase(join(dataDir, 'chainpay.sqlite'))
    try {
      expect(sqliteSchemaVersion(db, 'deliveries')).toBe(deliveryMigrations.length)
      const hosts = db.prepare('SELECT DISTINCT target_host FROM webhook_deliveries ORDER BY 1').all()
      expect(hosts.map((row) => row.target_host)).toEqual([
        '127.0.0.1',
        `merchant ${readDemoMerchant(dataDir).merchantId}`,
      ])
    } finally {
      db.close()
    }
  })

  it('the webhook left pending is delivered, signed with the old webhook secret', async () => {
    const { paymentId } = manifest.payments.webhookPending
    const received = await receiver.waitFor((all) =>
      all.some((r) => r.body.payment.id === paymentId && r.answeredWith === 200),
    )
    const delivered = received.find((r) => r.body.payment.id === paymentId && r.answeredWith === 200)
    expect(delivered?.body.event).toBe('payment.pending')
    const verification = verifyWebhook(
      readDemoMerchant(dataDir).webhookSecret,
      {
        rawBody: delivered?.rawBody ?? '',
        signature: delivered?.headers[WEBHOOK_HEADERS.signature] ?? '',
        timestamp: delivered?.headers[WEBHOOK_HEADERS.timestamp] ?? '',
      },
      Math.floor(clock.now().getTime() / 1000),
    )
    expect(verification).toEqual({ ok: true })
  })

  it('the open payment is still confirmed by a transfer to its address', async () => {
    const { paymentId, address } = manifest.payments.pending
    await pay(standalone, 'TRON', { to: address, amount: '12.5', currency: 'USDT' })
    const confirmed = await waitForPayment(
      merchantClientFor(standalone),
      paymentId,
      (p) => p.status === 'confirmed',
    )
    expect(confirmed.receivedAmount).toBe('12.5')
  }, 60_000)

  it('a payment created after the upgrade gets an address none of the old payments has', async () => {
    const client = merchantClientFor(standalone)
    const oldAddresses = Object.values(manifest.payments).map((payment) => payment.address)
    for (const network of ['TRON', 'TRON_NILE']) {
      const created = await client.createPayment({ amount: '1', currency: 'TRX', network } as never)
      expect(created.status).toBe(201)
      expect(oldAddresses).not.toContain((created.body as PaymentBody).generatedAddress)
    }
  })
})

// The distributed shape's dispatchers: notifier replicas, each with its own MongoDB client on one
// delivery log, claiming through leases. A receiver that hangs must hold no more than its host's
// bound over all of them, and must not delay another merchant's webhook on any of them
// (docs/api.md, "Webhooks"; docs/operations.md, "Webhook delivery: concurrency per target host").

import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import type { WebhookDelivery, WebhookDeliveryStore } from '@chainpay/ports'
import {
  createMongoDeliveryStore,
  deliveryIndexes,
  ensureMongoIndexes,
  type MongoDatabase,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  createWebhookDispatcher,
  DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST,
  type WebhookDispatcher,
} from './dispatcher.js'
import {
  createNotifierHarness,
  type NotifierHarness,
  newPaymentData,
  pendingDelivery,
  startReceiver,
  testLogger,
  type WebhookReceiver,
} from './testing/notifier-harness.js'

let harness: NotifierHarness
let database: string
const clients: MongoDatabase[] = []
const dispatchers: WebhookDispatcher[] = []
const receivers: WebhookReceiver[] = []

beforeEach(() => {
  harness = createNotifierHarness()
  database = uniqueName('notifier-replicas')
})

afterEach(async () => {
  // the receivers first: a request that hangs fails at once instead of at its 10 s timeout
  for (const receiver of receivers.splice(0)) await receiver.close()
  for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop()
  const [first] = clients
  await first?.db.dropDatabase()
  for (const client of clients.splice(0)) await client.close()
  await harness.close()
})

/** one notifier replica's delivery store: a client of its own on the shared database */
async function replicaStore(): Promise<WebhookDeliveryStore> {
  const client = await openMongoDatabase({ url: testMongoDbUrl(), database })
  clients.push(client)
  await ensureMongoIndexes(client.db, deliveryIndexes)
  return createMongoDeliveryStore(client.db)
}

/** a replica's dispatcher with the defaults: the 10 s timeout, the default bounds */
async function startedReplica(deliveries: WebhookDeliveryStore): Promise<WebhookDispatcher> {
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants: harness.merchants,
    webhookEndpoints: harness.webhookEndpoints,
    secretBox: harness.secretBox,
    clock: harness.clock,
    logger: testLogger,
    allowPrivateTargets: true,
  })
  dispatchers.push(dispatcher)
  await dispatcher.start()
  return dispatcher
}

async function receiverOf(merchant: { secret: string }, host: string): Promise<WebhookReceiver> {
  const receiver = await startReceiver(merchant.secret, host)
  receivers.push(receiver)
  return receiver
}

async function enqueuePending(
  store: WebhookDeliveryStore,
  merchantId: string,
  targetUrl: string,
): Promise<WebhookDelivery> {
  const delivery = pendingDelivery(newPaymentData({ merchantId }), {
    targetUrl,
    createdAt: harness.clock.now().toISOString(),
  })
  await store.enqueue(delivery)
  return delivery
}

describe('notifier replicas on one MongoDB delivery log', () => {
  it("hold a hanging host to its bound over every replica and deliver another merchant's webhook within 2 s", async () => {
    const merchantA = await harness.addMerchant({ webhookUrl: null })
    const merchantB = await harness.addMerchant({ webhookUrl: null })
    const hanging = await receiverOf(merchantA, '127.0.0.2')
    hanging.answer = () => 'hang'
    const receiverB = await receiverOf(merchantB, '127.0.0.1')
    const [first, second] = [await replicaStore(), await replicaStore()]

    for (let order = 0; order < 24; order++) {
      await enqueuePending(first, merchantA.merchantId, `${hanging.origin}/orders/${order}`)
    }
    const replicaOne = await startedReplica(first)
    await expect.poll(() => hanging.received.length).toBe(DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST)
    // the second replica sees the first one's leases: it takes none of A's
    const replicaTwo = await startedReplica(second)

    const recordedAt = performance.now()
    const delivery = await enqueuePending(second, merchantB.merchantId, `${receiverB.origin}/orders/b`)
    replicaOne.wake()
    replicaTwo.wake()
    await expect.poll(() => receiverB.received.length, { timeout: 5_000 }).toBe(1)

    const [webhook] = receiverB.received
    expect(webhook?.eventId).toBe(delivery.deliveryId)
    expect(webhook?.verified).toBe(true)
    expect((webhook?.receivedAt ?? Number.POSITIVE_INFINITY) - recordedAt).toBeLessThan(2_000)
    // A's requests all still hang, and there are no more of them than the bound of one host
    expect(hanging.received.every((request) => request.answered === null)).toBe(true)
    expect(hanging.received).toHaveLength(DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST)
    expect(hanging.open).toBe(DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST)
  })
})

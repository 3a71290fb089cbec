// kill -9 of one service in the middle of a stream of payments, then a restart: the five processes on
// Kafka and MongoDB lose nothing and count nothing twice. Every payment ends as paid (status and
// receivedAmount from the transfers actually made), every webhook arrives (duplicates allowed: the
// same X-Event-Id and body), and each payment's webhooks arrive in event order.
//
// A consumer killed -9 leaves its member in the Kafka group until the session times out (3 s in the
// test clusters, 30 s by default: docs/operations.md), so a restarted service waits that long
// before it gets its partitions; a webhook delivery in flight when the notifier dies is attempted
// again once its lease runs out (30 s). Nothing is asserted about time: the deadlines only say when
// to give up.

import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import type { MerchantClient } from '@chainpay/test-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CreatedMerchant } from './admin-client.js'
import type { ServiceName } from './cluster-plan.js'
import {
  createPlanned,
  eventually,
  expectSettledAsPlanned,
  expectWebhooksDelivered,
  explained,
  MIXED_PAYMENTS,
  merchantClientOf,
  openClusterDatabase,
  type PaymentBody,
  type PaymentPlan,
  payPlanned,
  showOutputOnFailure,
  sleep,
  type TrackedPayment,
} from './testing/fault-helpers.js'
import { startTestCluster, type TestCluster } from './testing/index.js'

const SETTLE_TIMEOUT_MS = 120_000
const FAULT_TEST_TIMEOUT_MS = 240_000
/** how long the killed service stays down while the stream goes on */
const DOWN_FOR_MS = 1500

const name = uniqueName('faults')
let cluster: TestCluster
let receiver: WebhookReceiver
let merchant: CreatedMerchant
let client: MerchantClient

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  cluster = await startTestCluster({
    kafkaBrokers: testKafkaBrokers().join(','),
    mongodbUrl: testMongoDbUrl(),
    name,
  })
  merchant = await cluster.createMerchant('Fault tests')
  client = merchantClientOf(cluster.urls.gateway, merchant)
}, 180_000)

afterAll(async () => {
  await cluster?.destroy()
  await receiver?.close()
  // the run's MongoDB outlives this file: its database goes (the bus namespace's topics stay)
  const database = await openClusterDatabase(testMongoDbUrl(), name)
  try {
    await database.dropDatabase()
  } finally {
    await database.close()
  }
})

beforeEach(({ onTestFailed }) => showOutputOnFailure(() => cluster, onTestFailed))

async function createAndPay(
  plans: readonly (typeof MIXED_PAYMENTS)[number][],
  payAfter: Promise<void> = Promise.resolve(),
): Promise<TrackedPayment[]> {
  return await Promise.all(
    plans.map(async (planned) => {
      const payment = await createPlanned(client, planned, receiver.url)
      await payAfter
      await payPlanned(cluster.urls.chainSimulator, payment)
      return payment
    }),
  )
}

/** the payment as payment-command's event store has it, through its internal API (not the read model) */
async function storedPayment(paymentId: string): Promise<unknown> {
  const url = `${cluster.urls.paymentCommand}/internal/v1/payments/${paymentId}?merchantId=${merchant.merchant.merchantId}`
  const response = await fetch(url, { headers: { authorization: `Bearer ${cluster.commandApiToken}` } })
  return { status: response.status, ...((await response.json()) as object) }
}

const TRON_USDT_EXACT = MIXED_PAYMENTS.find((planned) => planned.label === 'tron-usdt-exact') as PaymentPlan

// both halves mix the chains, natives and tokens, exact, short and excess payments
const firstHalf = MIXED_PAYMENTS.filter((_planned, index) => index % 2 === 0)
const secondHalf = MIXED_PAYMENTS.filter((_planned, index) => index % 2 === 1)

describe('kill -9 of one service in the middle of a payment stream', () => {
  it.each<ServiceName>(['projection', 'notifier', 'payment-command', 'chain-indexer'])(
    '%s: every payment ends as paid, once, and every webhook arrives in order',
    async (victimName) => {
      const victim = cluster.service(victimName)
      const before = await createAndPay(firstHalf)
      // the first half's transfers are now being detected, confirmed, projected and announced
      await victim.kill()

      // The stream goes on meanwhile. Creates retry (same idempotency key) while payment-command is
      // down; transfers wait for the chain simulator, which lives in the chain-indexer.
      const restarted = sleep(DOWN_FOR_MS).then(() => victim.start())
      const after = createAndPay(secondHalf, victimName === 'chain-indexer' ? restarted : Promise.resolve())
      await restarted
      const payments = [...before, ...(await after)]

      // read your writes holds throughout: whatever was down, a created payment can be read
      for (const payment of payments) {
        const answer = await client.getPayment(payment.paymentId)
        expect(answer.status, `GET ${payment.plan.label}`).toBe(200)
        expect((answer.body as PaymentBody).paymentId).toBe(payment.paymentId)
      }
      await explained(
        cluster,
        async () => {
          await expectSettledAsPlanned(client, payments, SETTLE_TIMEOUT_MS)
          await expectWebhooksDelivered(receiver, merchant.webhookSecret, payments, SETTLE_TIMEOUT_MS)
        },
        payments,
      )
    },
    FAULT_TEST_TIMEOUT_MS,
  )

  it(
    'projection and notifier killed together: the payment confirms meanwhile, and both catch up once back',
    async () => {
      const tracked = await createPlanned(client, TRON_USDT_EXACT, receiver.url)
      await Promise.all([cluster.service('projection').kill(), cluster.service('notifier').kill()])

      // paid through the gateway's forward to the chain simulator, while both are down
      await payPlanned(cluster.urls.gateway, tracked)
      let stored: unknown
      await explained(cluster, () =>
        eventually(
          'the confirmation in the event store',
          async () => {
            stored = await storedPayment(tracked.paymentId)
            return (stored as { payment?: { status?: string } }).payment?.status === 'confirmed'
              ? true
              : undefined
          },
          SETTLE_TIMEOUT_MS,
          () => stored,
        ),
      )
      // nobody projects while the projection is down: the gateway still shows what it saw at creation
      const stale = await client.getPayment(tracked.paymentId)
      expect((stale.body as PaymentBody).status).toBe('pending')
      // and nobody announces it while the notifier is down
      expect(
        receiver.received.filter(
          (webhook) =>
            webhook.body.payment.id === tracked.paymentId && webhook.body.event === 'payment.confirmed',
        ),
      ).toEqual([])

      await Promise.all([cluster.service('projection').start(), cluster.service('notifier').start()])
      await explained(cluster, async () => {
        await expectSettledAsPlanned(client, [tracked], SETTLE_TIMEOUT_MS)
        await expectWebhooksDelivered(receiver, merchant.webhookSecret, [tracked], SETTLE_TIMEOUT_MS)
      })
    },
    FAULT_TEST_TIMEOUT_MS,
  )

  it(
    'payment-command killed right after answering 201: the payment is there, and a retry replays it',
    async () => {
      const body = {
        amount: '7',
        currency: 'USDT',
        network: 'TRON',
        callbackUrl: receiver.url,
        idempotencyKey: uniqueName('killed-after-201'),
      }
      const created = await client.createPayment(body as never)
      expect(created.status).toBe(201)
      const { paymentId } = created.body as PaymentBody
      await cluster.service('payment-command').kill()

      const whileDown = await client.getPayment(paymentId)
      expect(whileDown.status).toBe(200)
      expect(whileDown.body).toMatchObject({ paymentId, status: 'pending' })

      await cluster.service('payment-command').start()
      const replayed = await client.createPayment(body as never)
      expect(replayed.status).toBe(200)
      expect(replayed.headers['idempotent-replayed']).toBe('true')
      expect(replayed.body).toMatchObject({ paymentId, status: 'pending', amount: '7' })
      const read = await client.getPayment(paymentId)
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({ paymentId, status: 'pending' })

      // and it is a live payment: its address is watched, and paying it settles it
      const payment: TrackedPayment = {
        plan: {
          label: 'killed-after-201',
          network: 'TRON',
          currency: 'USDT',
          amount: '7',
          transfers: ['7'],
          expectedStatus: 'confirmed',
          expectedReceived: '7',
        },
        paymentId,
        payTo: (created.body as PaymentBody).generatedAddress,
        createStatuses: [created.status],
        txHashes: [],
      }
      await payPlanned(cluster.urls.chainSimulator, payment)
      await explained(cluster, async () => {
        await expectSettledAsPlanned(client, [payment], SETTLE_TIMEOUT_MS)
        await expectWebhooksDelivered(receiver, merchant.webhookSecret, [payment], SETTLE_TIMEOUT_MS)
      })
    },
    FAULT_TEST_TIMEOUT_MS,
  )
})

// The servers under the five processes go away in the middle of traffic and come back: Kafka, then
// MongoDB (FerretDB). Nothing is lost: every payment settles as paid, every webhook arrives. Then
// the read model is rebuilt from the event store, the way an operator does it:
//
// Rebuilding the read model (payments_read) from the events:
//   1. Let the cluster go idle: no payment events being appended, and the notifier has handled every
//      one (its consumer group has no lag on <namespace>.chainpay.payment-events).
//   2. In the MongoDB database: db.payments_read.deleteMany({}) and
//      db.checkpoints.deleteOne({ _id: 'relay:payment-events' }) (the relay's position in the event
//      store). Idle matters: a running relay keeps its position in memory and stores it again after
//      its next batch. (Stopping payment-command before this step is safe too, at the price of 503s
//      for GETs until it is back: without a read model document, the gateway asks it.)
//   3. Restart payment-command. Its relay finds no checkpoint and publishes every stored event again;
//      the projection writes each payment's document anew. Until it has, the gateway answers GETs
//      from payment-command's event store (its read-your-writes fallback), so merchants see no gap.
//   4. Nothing else is needed: the notifier has seen every event already (its own copy of each payment
//      is at the latest revision and its delivery log is keyed by event id), so no webhook goes out
//      twice; the chain indexer and the deadline keeper take the old events as no news.
//
// The servers are this file's own (the run's shared ones must not go away under other files), so it
// needs Java and Maven (Kafka) and Go (FerretDB), like packages/local-servers. A consumer whose
// broker went away rejoins its group after a while: deadlines are minutes, nothing is timed.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  freeLoopbackPort,
  type LocalFerretDb,
  type LocalKafka,
  startFerretDb,
  startKafka,
  uniqueName,
} from '@chainpay/local-servers'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import type { MerchantClient } from '@chainpay/test-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CreatedMerchant } from './admin-client.js'
import { SERVICE_NAMES } from './cluster-plan.js'
import {
  consumerGroupProgress,
  createPlanned,
  errorCodeOf,
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
  webhookAttemptCount,
} from './testing/fault-helpers.js'
import { startTestCluster, type TestCluster } from './testing/index.js'

const SETTLE_TIMEOUT_MS = 240_000
const FAULT_TEST_TIMEOUT_MS = 360_000
/** how long a server stays down while traffic goes on */
const DOWN_FOR_MS = 6000

const name = uniqueName('faults-servers')
const directory = mkdtempSync(join(tmpdir(), 'chainpay-faults-servers-'))
let kafka: LocalKafka | undefined
let ferretdb: LocalFerretDb | undefined
let cluster: TestCluster
let receiver: WebhookReceiver
let merchant: CreatedMerchant
let client: MerchantClient
/** every payment of the file, for the rebuild at the end */
const everyPayment: TrackedPayment[] = []

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ;[kafka, ferretdb] = await Promise.all([
    (async () =>
      startKafka({
        directory: join(directory, 'kafka'),
        quickStart: true,
        port: await freeLoopbackPort(),
        controllerPort: await freeLoopbackPort(),
      }))(),
    (async () => startFerretDb({ directory: join(directory, 'ferretdb'), port: await freeLoopbackPort() }))(),
  ])
  cluster = await startTestCluster({ kafkaBrokers: kafka.brokers, mongodbUrl: ferretdb.url, name })
  merchant = await cluster.createMerchant('Server fault tests')
  client = merchantClientOf(cluster.urls.gateway, merchant)
}, 300_000)

afterAll(async () => {
  await cluster?.destroy()
  await receiver?.close()
  await Promise.all([kafka?.stop(), ferretdb?.stop()])
  rmSync(directory, { recursive: true, force: true })
}, 120_000)

beforeEach(({ onTestFailed }) => showOutputOnFailure(() => cluster, onTestFailed))

const servers = () => ({ kafka: kafka as LocalKafka, ferretdb: ferretdb as LocalFerretDb })

async function createAndPay(plans: readonly PaymentPlan[]): Promise<TrackedPayment[]> {
  const payments = await Promise.all(
    plans.map(async (planned) => {
      const payment = await createPlanned(client, planned, receiver.url)
      await payPlanned(cluster.urls.chainSimulator, payment)
      return payment
    }),
  )
  everyPayment.push(...payments)
  return payments
}

async function expectNothingLost(payments: TrackedPayment[]): Promise<void> {
  await explained(
    cluster,
    async () => {
      await expectSettledAsPlanned(client, payments, SETTLE_TIMEOUT_MS)
      await expectWebhooksDelivered(receiver, merchant.webhookSecret, payments, SETTLE_TIMEOUT_MS)
    },
    payments,
  )
}

const firstHalf = MIXED_PAYMENTS.filter((_planned, index) => index % 2 === 0)
const secondHalf = MIXED_PAYMENTS.filter((_planned, index) => index % 2 === 1)

describe('servers going away under the five processes', () => {
  it(
    'Kafka restarted in the middle of traffic: creates still answer 201, nothing is lost',
    async () => {
      const before = await createAndPay(firstHalf)
      await servers().kafka.kill()
      // The event store is payment-command's own SQLite file and the read model is in MongoDB: a
      // merchant's create needs no broker.
      const during = await createAndPay(secondHalf)
      for (const payment of during) expect(payment.createStatuses, payment.plan.label).toEqual([201])
      await sleep(DOWN_FOR_MS)
      await servers().kafka.restart()

      await expectNothingLost([...before, ...during])
    },
    FAULT_TEST_TIMEOUT_MS,
  )

  it(
    'MongoDB restarted in the middle of traffic: reads answer 200 or 503, never 500, nothing is lost',
    async () => {
      const before = await createAndPay(firstHalf)
      await servers().ferretdb.kill()

      // creates are retried on 503 (and fail on anything else) until MongoDB is back
      const during = createAndPay(secondHalf).then(
        (payments) => ({ payments, failure: undefined }),
        (failure: unknown) => ({ payments: [], failure }),
      )
      const answers: string[] = []
      const probeUntil = Date.now() + DOWN_FOR_MS
      while (Date.now() < probeUntil) {
        for (const payment of before) {
          const answer = await client.getPayment(payment.paymentId)
          const code = errorCodeOf(answer.body)
          answers.push(code ? `${answer.status} ${code}` : String(answer.status))
          if (answer.status === 503) expect(answer.headers['retry-after']).toBeDefined()
        }
      }
      await servers().ferretdb.restart()
      const { payments: afterwards, failure } = await during

      expect(answers.filter((answer) => answer !== '200' && answer !== '503 SERVICE_UNAVAILABLE')).toEqual([])
      if (failure) await explained(cluster, () => Promise.reject(failure))
      await expectNothingLost([...before, ...afterwards])
    },
    FAULT_TEST_TIMEOUT_MS,
  )

  it(
    'rebuilds the read model from the event store without sending any webhook again',
    async () => {
      const { kafka: broker, ferretdb: mongo } = servers()
      const paymentEvents = `${name}.chainpay.payment-events`
      const notifierGroup = `${name}.notifier`
      // run on its own, it has payments of its own to rebuild
      if (everyPayment.length === 0) await createAndPay(MIXED_PAYMENTS)
      // 1. idle: everything settled and announced, and the notifier has handled every event
      await expectNothingLost(everyPayment)
      // the projection too: a document written after the snapshot below would never match it
      await eventually(
        'the notifier and the projection have handled every payment event',
        async () => {
          const groups = [notifierGroup, `${name}.projection`]
          const progress = await Promise.all(
            groups.map((group) => consumerGroupProgress(broker.brokers, group, paymentEvents)),
          )
          return progress.every(({ behind }) => behind === 0) ? true : undefined
        },
        SETTLE_TIMEOUT_MS,
      )
      const publishedBefore = (await consumerGroupProgress(broker.brokers, notifierGroup, paymentEvents)).end
      const attemptsBefore = webhookAttemptCount(receiver, everyPayment)
      const database = await openClusterDatabase(mongo.url, name)
      try {
        const readModel = database.collection('payments_read')
        const documentsBefore = await readModel.find({}).toArray()
        expect(documentsBefore).toHaveLength(everyPayment.length)
        const answersBefore = await Promise.all(everyPayment.map((p) => client.getPayment(p.paymentId)))
        const deliveryLog = database.collection('webhook_deliveries')
        const deliveriesBefore = (await deliveryLog.find({}).toArray()).length

        const outputBefore = new Map(
          SERVICE_NAMES.map((service) => [service, cluster.service(service).output().length]),
        )

        // 2. the read model and the relay's position go
        await readModel.deleteMany({})
        expect(
          (await database.collection('checkpoints').deleteOne({ _id: 'relay:payment-events' })).deletedCount,
        ).toBe(1)
        // meanwhile the gateway reads through to payment-command: merchants see no gap
        const answersWithoutReadModel = await Promise.all(
          everyPayment.map((p) => client.getPayment(p.paymentId)),
        )
        expect(answersWithoutReadModel.map((answer) => [answer.status, answer.body])).toEqual(
          answersBefore.map((answer) => [answer.status, answer.body]),
        )

        // 3. payment-command restarted: its relay publishes every event again, the projection rebuilds
        await cluster.service('payment-command').stop()
        await cluster.service('payment-command').start()
        await explained(cluster, () =>
          eventually(
            'the projection has rebuilt every payment document',
            async () => {
              const rebuilt = await readModel.find({}).toArray()
              // at least the revision of the snapshot: one past it fails the comparison below at
              // once, with the difference, instead of waiting out the test's timeout
              const caughtUp = documentsBefore.every((before) =>
                rebuilt.some(
                  (after) => after._id === before._id && Number(after.revision) >= Number(before.revision),
                ),
              )
              return rebuilt.length === documentsBefore.length && caughtUp ? rebuilt : undefined
            },
            SETTLE_TIMEOUT_MS,
          ),
        )
        const byId = (documents: Record<string, unknown>[]) =>
          Object.fromEntries(
            documents.map(({ updatedAt: _updatedAt, ...document }) => [document._id, document]),
          )
        // the same aggregate state at the same revision; only the time of the write differs
        expect(byId(await readModel.find({}).toArray())).toEqual(byId(documentsBefore))
        const answersAfter = await Promise.all(everyPayment.map((p) => client.getPayment(p.paymentId)))
        expect(answersAfter.map((answer) => [answer.status, answer.body])).toEqual(
          answersBefore.map((answer) => [answer.status, answer.body]),
        )

        // 4. the notifier has handled the republished events too, and sent nothing for them
        const republished = await eventually(
          'the notifier has handled the republished events',
          async () => {
            const progress = await consumerGroupProgress(broker.brokers, notifierGroup, paymentEvents)
            return progress.behind === 0 && progress.end > publishedBefore ? progress : undefined
          },
          SETTLE_TIMEOUT_MS,
        )
        // at least a creation and a settlement per payment went out again
        expect(republished.end - publishedBefore).toBeGreaterThanOrEqual(2 * everyPayment.length)
        expect((await deliveryLog.find({}).toArray()).length).toBe(deliveriesBefore)
        expect(webhookAttemptCount(receiver, everyPayment)).toBe(attemptsBefore)
        // and no service took an old event for a problem
        for (const [service, length] of outputBefore) {
          const errors = cluster
            .service(service)
            .output()
            .slice(length)
            .split('\n')
            .filter((line) => line.includes('"level":"error"'))
          expect(errors, service).toEqual([])
        }

        // and the system carries on from there: a new payment settles and is announced
        const [fresh] = await createAndPay(MIXED_PAYMENTS.slice(0, 1))
        await expectNothingLost([fresh as TrackedPayment])
        expect(webhookAttemptCount(receiver, everyPayment.slice(0, -1))).toBe(attemptsBefore)
        expect(await readModel.findOne({ _id: (fresh as TrackedPayment).paymentId })).not.toBeNull()
        expect(
          ((await client.getPayment((fresh as TrackedPayment).paymentId)).body as PaymentBody).status,
        ).toBe('confirmed')
      } finally {
        await database.close()
      }
    },
    FAULT_TEST_TIMEOUT_MS,
  )
})

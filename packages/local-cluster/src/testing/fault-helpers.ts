// What the cross-process fault tests share: a mixed stream of payments driven the way merchants and
// customers drive them (creates retried with their idempotency key, transfers on the simulated
// chains), and the checks that nothing was lost or counted twice once the fault is over: every
// payment in its planned state with the amount paid, every webhook delivered, duplicates identical,
// each payment's webhooks in event order.

import { randomUUID } from 'node:crypto'
import type { ReceivedWebhook, WebhookReceiver } from '@chainpay/service-kit/testing'
import { createMerchantClient, type MerchantClient, verifyWebhook } from '@chainpay/test-client'
import { Kafka, logLevel } from 'kafkajs'
import { type Collection, MongoClient } from 'mongodb'
import type { CreatedMerchant } from '../admin-client.js'
import { SERVICE_NAMES } from '../cluster-plan.js'
import type { TestCluster } from './test-cluster.js'

export type PlannedStatus = 'confirmed' | 'underpaid' | 'overpaid'

export interface PaymentPlan {
  label: string
  network: 'TRON' | 'SOLANA'
  currency: string
  amount: string
  /** the customer's transfers, one after the other */
  transfers: string[]
  expectedStatus: PlannedStatus
  /** the sum of `transfers`, as the API writes it */
  expectedReceived: string
}

export interface PaymentBody {
  paymentId: string
  status: string
  network: string
  currency: string
  amount: string
  expectedAmount: string
  receivedAmount: string | null
  generatedAddress: string
  generatedTokenAccount: string | null
  txHash: string | null
  confirmations: number
  confirmedAt: string | null
  feeAmount: string
  netAmount: string
}

export interface TrackedPayment {
  plan: PaymentPlan
  paymentId: string
  /** where the customer pays: the token account for SPL tokens, else the address */
  payTo: string
  /** what POST /payments answered, retries included (0: no answer, the connection failed) */
  createStatuses: number[]
  txHashes: string[]
}

export const REQUIRED_CONFIRMATIONS = { TRON: 20, SOLANA: 32 } as const

/**
 * Eight payments over both chains, natives and tokens: exact, short and excess payments, and two
 * paid in two transfers, so that a transfer counted twice shows in receivedAmount.
 */
export const MIXED_PAYMENTS: readonly PaymentPlan[] = [
  plan('tron-usdt-exact', 'TRON', 'USDT', '12.5', ['12.5'], 'confirmed', '12.5'),
  plan('tron-trx-under', 'TRON', 'TRX', '10', ['4'], 'underpaid', '4'),
  plan('tron-usdt-over', 'TRON', 'USDT', '3', ['3.25'], 'overpaid', '3.25'),
  plan('tron-trx-two-transfers', 'TRON', 'TRX', '5', ['2', '3'], 'confirmed', '5'),
  plan('solana-usdc-exact', 'SOLANA', 'USDC', '3', ['3'], 'confirmed', '3'),
  plan('solana-sol-over', 'SOLANA', 'SOL', '1.5', ['1.75'], 'overpaid', '1.75'),
  plan('solana-usdt-under', 'SOLANA', 'USDT', '8', ['2.5'], 'underpaid', '2.5'),
  plan('solana-sol-two-transfers', 'SOLANA', 'SOL', '0.6', ['0.25', '0.35'], 'confirmed', '0.6'),
]

function plan(
  label: string,
  network: PaymentPlan['network'],
  currency: string,
  amount: string,
  transfers: string[],
  expectedStatus: PlannedStatus,
  expectedReceived: string,
): PaymentPlan {
  return { label, network, currency, amount, transfers, expectedStatus, expectedReceived }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const OUT_OF_TIME = Symbol('out of time')

/**
 * Polls `probe` until it returns a value; throws, with what it last saw, after `timeoutMs`, also
 * when a probe is still waiting then (a request nobody answers must not outlast the deadline).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  lastSeen: () => unknown = () => undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  const late = () =>
    new Error(`${what} did not happen within ${timeoutMs} ms; last seen: ${JSON.stringify(lastSeen())}`)
  for (;;) {
    let timer: NodeJS.Timeout | undefined
    const outOfTime = new Promise<typeof OUT_OF_TIME>((resolve) => {
      timer = setTimeout(() => resolve(OUT_OF_TIME), Math.max(0, deadline - Date.now()))
    })
    const value = await Promise.race([probe(), outOfTime]).finally(() => clearTimeout(timer))
    if (value === OUT_OF_TIME) throw new Error(`${late().message} (a probe was still waiting for an answer)`)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw late()
    await sleep(200)
  }
}

/** the kafkajs client's reconnect attempts while a broker is down: many, and all alike */
const RECONNECT_NOISE = /"namespace":"(Connection|BrokerPool)"/

/** the end of each service's output, which is where the reason of a failure is */
export function outputTails(cluster: TestCluster): string {
  return SERVICE_NAMES.map((name) => {
    const lines = cluster.service(name).output().split('\n')
    return lines
      .filter((line) => !RECONNECT_NOISE.test(line))
      .slice(-40)
      .join('\n')
  }).join('\n')
}

/** each service's lines that name one of the payments (its id or where it is paid), the last `max` of each */
export function linesAbout(cluster: TestCluster, payments: readonly TrackedPayment[], max = 25): string {
  const needles = payments.flatMap((payment) => [payment.paymentId, payment.payTo])
  return SERVICE_NAMES.map((name) => {
    const lines = cluster
      .service(name)
      .output()
      .split('\n')
      .filter((line) => needles.some((needle) => line.includes(needle)))
    return `[${name}] ${lines.length} lines${lines.length > max ? `, the last ${max}` : ''}\n${lines.slice(-max).join('\n')}`
  }).join('\n')
}

/**
 * runs `check`; a failure carries the end of each service's output, then what each said about the
 * payments named (last, where a truncated log still shows it)
 */
export async function explained<T>(
  cluster: TestCluster,
  check: () => Promise<T>,
  payments: readonly TrackedPayment[] = [],
): Promise<T> {
  try {
    return await check()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const about =
      payments.length === 0
        ? ''
        : `\n--- what the services said of the payments:\n${linesAbout(cluster, payments)}`
    throw new Error(
      `--- the services' output, the end of each:\n${outputTails(cluster)}${about}\n--- ${message}`,
      { cause: error },
    )
  }
}

/**
 * For a failure no explained() check reports (a test that runs out of time): the end of each
 * service's output, on stderr. Call it in a beforeEach.
 */
export function showOutputOnFailure(
  cluster: () => TestCluster | undefined,
  onTestFailed: OnTestFailed,
): void {
  onTestFailed(() => {
    const running = cluster()
    if (!running) return
    process.stderr.write(`--- the services' output, the end of each:\n${outputTails(running)}\n`)
  })
}

type OnTestFailed = (handler: () => void) => void

export function merchantClientOf(gatewayUrl: string, merchant: CreatedMerchant): MerchantClient {
  return createMerchantClient({
    baseUrl: `${gatewayUrl}/api/merchant/v1`,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
}

/** what an answer says when it is an error body */
export function errorCodeOf(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown } } | null)?.error
  return typeof error?.code === 'string' ? error.code : undefined
}

/**
 * POST /payments until it is answered 201, or 200 replayed (a retry of a create whose answer was
 * lost), as a merchant with an idempotency key does. While a dependency is down the only other
 * acceptable answer is 503 SERVICE_UNAVAILABLE with Retry-After; anything else fails at once.
 */
export async function createPaymentRetrying(
  client: MerchantClient,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<{ payment: PaymentBody; statuses: number[] }> {
  const statuses: number[] = []
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const answer = await client.createPayment(body as never).catch(() => undefined)
    statuses.push(answer?.status ?? 0)
    if (answer?.status === 201) return { payment: answer.body as PaymentBody, statuses }
    if (answer?.status === 200 && answer.headers['idempotent-replayed'] === 'true') {
      return { payment: answer.body as PaymentBody, statuses }
    }
    if (
      answer !== undefined &&
      !(
        answer.status === 503 &&
        errorCodeOf(answer.body) === 'SERVICE_UNAVAILABLE' &&
        answer.headers['retry-after'] !== undefined
      )
    ) {
      throw new Error(
        `creating ${JSON.stringify(body)} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      )
    }
    if (Date.now() > deadline) {
      throw new Error(`creating ${JSON.stringify(body)} kept failing: ${statuses.join(', ')}`)
    }
    await sleep(250)
  }
}

export async function createPlanned(
  client: MerchantClient,
  planned: PaymentPlan,
  callbackUrl: string,
  timeoutMs = 180_000,
): Promise<TrackedPayment> {
  const body = {
    amount: planned.amount,
    currency: planned.currency,
    network: planned.network,
    callbackUrl,
    idempotencyKey: `${planned.label}-${randomUUID()}`,
    metadata: { label: planned.label },
  }
  const { payment, statuses } = await createPaymentRetrying(client, body, timeoutMs)
  return {
    plan: planned,
    paymentId: payment.paymentId,
    payTo: payment.generatedTokenAccount ?? payment.generatedAddress,
    createStatuses: statuses,
    txHashes: [],
  }
}

/**
 * The customer's transfers on the simulated chain, one after the other. Never retried: a transfer
 * whose answer was lost may have been made, and paying again would change what is owed.
 */
export async function payPlanned(chainSimulatorUrl: string, payment: TrackedPayment): Promise<void> {
  for (const amount of payment.plan.transfers) {
    const response = await fetch(`${chainSimulatorUrl}/dev/chains/${payment.plan.network}/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: payment.payTo, amount, currency: payment.plan.currency }),
    })
    const body = (await response.json()) as { txHash?: string }
    if (response.status !== 201 || typeof body.txHash !== 'string') {
      throw new Error(
        `transfer to ${payment.plan.label} answered ${response.status}: ${JSON.stringify(body)}`,
      )
    }
    payment.txHashes.push(body.txHash)
  }
}

/**
 * Waits until every payment shows its planned status with the whole amount paid, then checks each
 * against its plan; returns the GETs. (Settled is not enough to stop waiting: a payment paid in two
 * transfers can be underpaid, with both transfers in, for a moment before it is confirmed.)
 */
export async function expectSettledAsPlanned(
  client: MerchantClient,
  payments: readonly TrackedPayment[],
  timeoutMs: number,
): Promise<Map<string, PaymentBody>> {
  const seen = new Map<string, PaymentBody>()
  /** the last answer other than 200 of each payment's GET, or why there was none, until a 200 */
  const failed = new Map<string, string>()
  /** the payments whose GET has not answered yet */
  const waiting = new Set<string>()
  await eventually(
    'every payment settled with everything paid',
    async () => {
      await Promise.all(
        payments.map(async (payment) => {
          waiting.add(payment.paymentId)
          const answer = await client
            .getPayment(payment.paymentId)
            .catch((error: unknown) => {
              failed.set(payment.paymentId, error instanceof Error ? error.message : String(error))
              return undefined
            })
            .finally(() => waiting.delete(payment.paymentId))
          if (answer === undefined) return
          if (answer.status === 200) {
            seen.set(payment.paymentId, answer.body as PaymentBody)
            failed.delete(payment.paymentId)
          } else failed.set(payment.paymentId, `${answer.status} ${JSON.stringify(answer.body)}`)
        }),
      )
      const done = payments.every((payment) => {
        const current = seen.get(payment.paymentId)
        return (
          current !== undefined &&
          current.status === payment.plan.expectedStatus &&
          current.receivedAmount === payment.plan.expectedReceived &&
          current.confirmations === REQUIRED_CONFIRMATIONS[payment.plan.network]
        )
      })
      return done ? true : undefined
    },
    timeoutMs,
    () =>
      payments.map((payment) => {
        const current = seen.get(payment.paymentId)
        const last = [payment.plan.label, current?.status, current?.receivedAmount, current?.confirmations]
        const failure = failed.get(payment.paymentId)
        if (failure !== undefined) last.push(`GET since: ${failure}`)
        if (waiting.has(payment.paymentId)) last.push('a GET not answered yet')
        return last
      }),
  )
  for (const payment of payments) {
    const current = seen.get(payment.paymentId) as PaymentBody
    expectPayment(payment, current)
  }
  return seen
}

function expectPayment(payment: TrackedPayment, current: PaymentBody): void {
  const { plan: planned } = payment
  const problems: string[] = []
  const check = (what: string, actual: unknown, expected: unknown) => {
    if (actual !== expected)
      problems.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
  }
  check('status', current.status, planned.expectedStatus)
  // the sum of the distinct transfers made: a transfer counted twice would show here
  check('receivedAmount', current.receivedAmount, planned.expectedReceived)
  check('confirmations', current.confirmations, REQUIRED_CONFIRMATIONS[planned.network])
  check('transfers made', payment.txHashes.length, planned.transfers.length)
  if (!payment.txHashes.includes(current.txHash ?? '')) {
    problems.push(`txHash ${current.txHash} is none of the transfers made: ${payment.txHashes.join(', ')}`)
  }
  if (planned.transfers.length === 1) check('txHash', current.txHash, payment.txHashes[0])
  if (current.confirmedAt === null) problems.push('confirmedAt is null')
  if (problems.length > 0) {
    throw new Error(`payment ${planned.label} (${payment.paymentId}): ${problems.join('; ')}`)
  }
}

/** the webhook kinds a payment announces, in order; more than one sequence where timing decides */
export function expectedWebhookSequences(planned: PaymentPlan): string[][] {
  const final = `payment.${planned.expectedStatus}`
  // each counted transfer is announced once when first seen (payment.transfer_detected)
  const detected = planned.transfers.map(() => 'payment.transfer_detected')
  const sequences = [['payment.pending', ...detected, final]]
  // the first of two transfers can reach its confirmations before the second is seen: underpaid first
  if (planned.transfers.length > 1 && planned.expectedStatus !== 'underpaid') {
    sequences.push(['payment.pending', detected[0] ?? '', 'payment.underpaid', ...detected.slice(1), final])
  }
  return sequences
}

const attemptsOf = (receiver: WebhookReceiver, paymentId: string) =>
  receiver.received.filter((received) => received.body.payment.id === paymentId)

/** each event of the payment once, in the order first delivered */
function eventsInFirstDeliveryOrder(attempts: ReceivedWebhook[]): ReceivedWebhook[] {
  const firsts = new Map<string, ReceivedWebhook>()
  for (const attempt of attempts) {
    const eventId = attempt.headers['x-event-id'] ?? ''
    if (!firsts.has(eventId)) firsts.set(eventId, attempt)
  }
  return [...firsts.values()]
}

/**
 * Waits until every payment's final webhook has been acknowledged, then checks all of them: each
 * expected event delivered (acknowledged with 200) under exactly one X-Event-Id, duplicates of one
 * event identical but for the attempt's timestamp, every attempt signed with the merchant's secret,
 * the events of a payment in event order, and the last one telling the amount received.
 */
export async function expectWebhooksDelivered(
  receiver: WebhookReceiver,
  webhookSecret: string,
  payments: readonly TrackedPayment[],
  timeoutMs: number,
): Promise<void> {
  const finalDelivered = (payment: TrackedPayment) =>
    attemptsOf(receiver, payment.paymentId).some(
      (attempt) =>
        attempt.answeredWith === 200 && attempt.body.event === `payment.${payment.plan.expectedStatus}`,
    )
  await eventually(
    'every final webhook acknowledged',
    async () => (payments.every(finalDelivered) ? true : undefined),
    timeoutMs,
    () => payments.filter((payment) => !finalDelivered(payment)).map((payment) => payment.plan.label),
  )
  for (const payment of payments) expectPaymentWebhooks(receiver, webhookSecret, payment)
}

function withoutTimestamp(attempt: ReceivedWebhook): string {
  const { timestamp: _timestamp, ...rest } = JSON.parse(attempt.rawBody) as Record<string, unknown>
  return JSON.stringify(rest)
}

function expectPaymentWebhooks(
  receiver: WebhookReceiver,
  webhookSecret: string,
  payment: TrackedPayment,
): void {
  const { label } = payment.plan
  const attempts = attemptsOf(receiver, payment.paymentId)
  const fail = (problem: string): never => {
    const seen = attempts.map((a) => [a.body.event, a.headers['x-event-id'], a.answeredWith])
    throw new Error(
      `webhooks of ${label} (${payment.paymentId}): ${problem}; received ${JSON.stringify(seen)}`,
    )
  }
  for (const attempt of attempts) {
    // Signature only: the age check is the receiver's, and an attempt is minutes old by now.
    const timestamp = attempt.headers['x-timestamp'] ?? ''
    const verified = verifyWebhook(
      webhookSecret,
      {
        rawBody: attempt.rawBody,
        signature: attempt.headers['x-signature'] ?? '',
        timestamp,
        // the body's id is signed; X-Event-Id, which deduplication below relies on, must agree
        eventId: attempt.headers['x-event-id'] ?? '',
      },
      Number(timestamp),
    )
    if (!verified.ok) fail(`an attempt is not signed with the merchant's secret (${verified.reason})`)
    if (timestamp !== String(attempt.body.timestamp)) fail('X-Timestamp differs from the body timestamp')
    if (attempt.headers['x-event-type'] !== attempt.body.event)
      fail('X-Event-Type differs from the body event')
  }
  const byEventId = new Map<string, ReceivedWebhook[]>()
  for (const attempt of attempts) {
    const eventId = attempt.headers['x-event-id'] ?? ''
    byEventId.set(eventId, [...(byEventId.get(eventId) ?? []), attempt])
  }
  for (const [eventId, copies] of byEventId) {
    if (eventId === '') fail('an attempt without X-Event-Id')
    const bodies = new Set(copies.map(withoutTimestamp))
    if (bodies.size !== 1) fail(`the attempts of event ${eventId} differ: ${[...bodies].join(' | ')}`)
    if (!copies.some((copy) => copy.answeredWith === 200)) fail(`event ${eventId} was never acknowledged`)
  }
  const events = eventsInFirstDeliveryOrder(attempts).map((attempt) => attempt.body.event)
  const sequences = expectedWebhookSequences(payment.plan)
  if (!sequences.some((sequence) => JSON.stringify(sequence) === JSON.stringify(events))) {
    fail(
      `events in first-delivery order ${JSON.stringify(events)}, expected one of ${JSON.stringify(sequences)}`,
    )
  }
  const last = eventsInFirstDeliveryOrder(attempts).at(-1)
  const announced = last?.body.payment as { status?: unknown; received_amount?: unknown } | undefined
  if (announced?.status !== payment.plan.expectedStatus.toUpperCase()) {
    fail(`the last webhook says status ${String(announced?.status)}`)
  }
  if (announced?.received_amount !== payment.plan.expectedReceived) {
    fail(`the last webhook says received_amount ${String(announced?.received_amount)}`)
  }
}

/** how many attempts have reached the receiver for these payments */
export const webhookAttemptCount = (receiver: WebhookReceiver, payments: readonly TrackedPayment[]) =>
  payments.reduce((count, payment) => count + attemptsOf(receiver, payment.paymentId).length, 0)

/** chainpay's collections key their documents by strings (payment ids, checkpoint names) */
export type ClusterDocument = { _id: string; [field: string]: unknown }

/** the cluster's MongoDB database, as an operator's shell sees it */
export async function openClusterDatabase(
  url: string,
  database: string,
): Promise<{
  collection(name: string): Collection<ClusterDocument>
  dropDatabase(): Promise<unknown>
  close(): Promise<void>
}> {
  // an operation the server takes a minute to answer is one it will not answer: fail, do not hang
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000, socketTimeoutMS: 60_000 })
  await client.connect()
  const db = client.db(database)
  return {
    collection: (name) => db.collection<ClusterDocument>(name),
    dropDatabase: () => db.dropDatabase(),
    close: () => client.close(),
  }
}

/**
 * How far a consumer group is from the end of a topic, from the broker: the end offsets and the
 * group's committed offsets (committed after a message is handled, so 0 behind means all handled).
 */
export async function consumerGroupProgress(
  brokers: string,
  groupId: string,
  topic: string,
): Promise<{ end: number; behind: number }> {
  const admin = new Kafka({
    clientId: 'fault-tests',
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin()
  await admin.connect()
  try {
    const ends = await admin.fetchTopicOffsets(topic)
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] })
    let end = 0
    let behind = 0
    for (const { partition, high } of ends) {
      const at = Number(committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1')
      end += Number(high)
      behind += Number(high) - Math.max(at, 0)
    }
    return { end, behind }
  } finally {
    await admin.disconnect()
  }
}

// Sends the webhook deliveries that are due: each attempt signed afresh, POSTed once (redirects are
// not followed), and recorded with its status code, duration and error. A failure is retried on the
// schedule, with jitter so that a receiver coming back is not hit by every retry at once; when the
// schedule is exhausted the delivery is failed and waits for a redelivery through the admin API,
// which starts the schedule over (the store sets its attempts back to 0).
// Deliveries of one payment leave for each target in event order: the store only hands out the first
// pending one of each payment and target. Each goes to its target's URL and is signed with its secret
// as they are when sent (targetOf), so a retry or redelivery follows a changed URL or a rotation.
//
// One slow or failing receiver never delays another merchant's deliveries (docs/api.md, "Webhooks"):
// attempts in flight are bounded per target host (concurrencyPerTargetHost) as well as in all
// (concurrency), and the store's claim passes over a host at its bound rather than handing this
// dispatcher deliveries it would have to sit on. A receiver that hangs thus holds at most its host's
// share of the slots for the length of the timeout, while every other host's deliveries are claimed
// and sent; its own deliveries wait, still due, and each failed one waits for its retry.
//
// The dispatcher is woken by new work rather than polling for it (docs/benchmarks.md, where a 500 ms
// poll's scan of the delivery log cost FerretDB more than the deliveries): the recorder hands it each
// delivery it records, which it claims at once by id (dispatchRecorded: no read of the due
// deliveries, docs/capacity.md, "Webhooks"), a finished attempt wakes it when a slot, a place at its host or
// the payment's next delivery may be free, and a timer wakes it when a retry it scheduled falls due
// or a lease it holds runs out after its attempt could not be recorded; what the gateway puts in line
// (a redelivery, a test event) comes as a wake-up on the bus (delivery-wakeups.ts), also claimed by
// id. The poll stays, at a longer interval, for what no one here is told of: a wake-up that was lost
// or went to another notifier, a lease of a worker that died, a retry another notifier scheduled, an
// attempt of another notifier that freed a place at its host.

import {
  type DepositWebhookBodyInput,
  type InvoiceWebhookBodyInput,
  renderDepositWebhookBody,
  renderInvoiceWebhookBody,
  renderWebhookBody,
  type WebhookBodyInput,
} from '@chainpay/contracts'
import {
  type Clock,
  createWorkLoop,
  isoNow,
  type Logger,
  moduleLogger,
  type ReadinessReporter,
  type SecretBox,
  type Service,
} from '@chainpay/platform'
import {
  type AttemptOutcome,
  eventIdOf,
  MERCHANT_DEFAULT_TARGET,
  type MerchantRecord,
  type MerchantStore,
  targetHostOf,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
  webhookEndpointSecretContext,
  webhookSecretContext,
} from '@chainpay/ports'
import { NotPublicAddressError } from '@chainpay/service-kit'
import { signWebhook } from '@chainpay/signing'
import { Agent, request } from 'undici'
import { DEFAULT_RETRY_SCHEDULE_MS } from './retry-schedule.js'
import {
  publicAddressLookup,
  type ResolveHost,
  resolveHostWithDns,
  webhookTargetProblem,
} from './webhook-target.js'

export interface WebhookDispatcherOptions {
  deliveries: WebhookDeliveryStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** the webhook endpoints deliveries go to: their URL and secrets as they are when sent */
  webhookEndpoints: Pick<WebhookEndpointStore, 'get'>
  /** opens the merchants' and endpoints' sealed webhook secrets */
  secretBox: SecretBox
  clock: Clock
  logger: Logger
  /** development only: allows http and loopback or private targets */
  allowPrivateTargets: boolean
  /** delay after the 1st, 2nd... failed attempt; default 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 12 h, 24 h */
  schedule?: readonly number[]
  /** each delay is scaled by a random factor within 1 ± jitter; default 0.1 */
  jitter?: number
  /** uniform in [0, 1); default Math.random */
  random?: () => number
  /**
   * the safety net: how long an idle dispatcher waits before looking for due deliveries when nothing
   * woke it; default 5 s
   */
  pollIntervalMs?: number
  /** deliveries in flight at once, over every target host; default 64 */
  concurrency?: number
  /**
   * deliveries in flight at once to one target host (targetHostOf: the URL's host name), counted over
   * every notifier through the store's leases; default 4
   */
  concurrencyPerTargetHost?: number
  /** how long a claimed delivery stays reserved for this worker; default 30 s */
  leaseMs?: number
  /** default dns.lookup with all addresses */
  resolveHost?: ResolveHost
  /** a receiver must answer with a 2xx within this time; default 10 s */
  timeoutMs?: number
  /** told the outcome of every attempt; e.g. service-kit's `createServiceMetrics(...).webhooks` */
  metrics?: WebhookDispatcherMetrics
}

/**
 * What came of one attempt: delivered; retry (it failed, another attempt is scheduled); failed (it
 * failed and the schedule is exhausted); no_target (there was no URL to send it to, whether or not
 * another attempt is scheduled).
 */
export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed' | 'no_target'

export interface WebhookDispatcherMetrics {
  /** one attempt, recorded in the delivery store: what came of it and how long it took */
  attempted(outcome: WebhookAttemptOutcome, durationMs: number): void
}

export interface WebhookDispatcher extends Service, ReadinessReporter {
  /** claims what is due now and attempts it; resolves with the number attempted once all are recorded */
  dispatchOnce(): Promise<number>
  /** looks for due deliveries now instead of after the poll interval */
  wake(): void
  /**
   * claims these deliveries, just recorded, by id and attempts them; one held back (its payment's
   * earlier delivery, its host's bound, no free slot) goes when what holds it back is done
   */
  dispatchRecorded(deliveryIds: readonly string[]): void
}

export const WEBHOOK_USER_AGENT = 'chainpay-webhooks/1'

const DEFAULT_POLL_INTERVAL_MS = 5_000
export const DEFAULT_WEBHOOK_CONCURRENCY = 64
export const DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST = 4
const MAX_BACKOFF_MS = 30_000
/** the first rest after a failed claim (doubled per failure in a row, up to MAX_BACKOFF_MS) */
const FAILURE_BACKOFF_MS = 500
/** setTimeout's longest delay; a later retry is looked at again then */
const MAX_TIMER_MS = 2 ** 31 - 1
/** a receiver's answer is read only to free the connection; anything larger closes it */
const RESPONSE_DISCARD_LIMIT = 64 * 1024

interface AttemptResult {
  statusCode: number | null
  error: string | null
  /** where the attempt went, as recorded (the merchant's to see) */
  url: string | null
  /** where the attempt went, for the log: without path or query (which may carry a receiver's token) */
  origin: string | null
  /** neither the delivery nor its merchant had a URL */
  noTarget: boolean
  /** for the log only: what a refused target name resolved to (never stored, never shown) */
  refusedAddresses?: readonly string[]
}

export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { deliveries, merchants, webhookEndpoints, secretBox, clock, allowPrivateTargets } = options
  const logger = moduleLogger(options.logger, 'webhook-dispatcher')
  const schedule = [...(options.schedule ?? DEFAULT_RETRY_SCHEDULE_MS)]
  const jitter = options.jitter ?? 0.1
  const random = options.random ?? Math.random
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
  const concurrency = options.concurrency ?? DEFAULT_WEBHOOK_CONCURRENCY
  const concurrencyPerTargetHost =
    options.concurrencyPerTargetHost ?? DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST
  const leaseMs = options.leaseMs ?? 30_000
  const timeoutMs = options.timeoutMs ?? 10_000
  if (schedule.some((delay) => !Number.isSafeInteger(delay) || delay < 0)) {
    throw new RangeError('webhook dispatcher: schedule entries must be non-negative integers of milliseconds')
  }
  if (!(jitter >= 0 && jitter < 1))
    throw new RangeError(`webhook dispatcher: jitter must be in [0, 1), got ${jitter}`)
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`webhook dispatcher: concurrency must be a positive integer, got ${concurrency}`)
  }
  if (!Number.isSafeInteger(concurrencyPerTargetHost) || concurrencyPerTargetHost < 1) {
    throw new RangeError(
      `webhook dispatcher: concurrency per target host must be a positive integer, got ${concurrencyPerTargetHost}`,
    )
  }
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: allowPrivateTargets
      ? { timeout: timeoutMs }
      : { timeout: timeoutMs, lookup: publicAddressLookup(options.resolveHost ?? resolveHostWithDns) },
  })

  const inFlight = new Set<Promise<void>>()
  /** this dispatcher's attempts in flight per target host (the store counts every notifier's) */
  const inFlightPerHost = new Map<string, number>()
  let agentClosed: Promise<void> | undefined

  /**
   * Where the delivery goes and the secrets it is signed with, as they are now: a webhook endpoint's
   * current URL and secret (and, during a rotation's overlap, the previous one), the merchant's
   * current default URL, or the payment's callbackUrl; the last two with the merchant's secret.
   */
  async function targetOf(
    delivery: WebhookDelivery,
    merchant: MerchantRecord,
    at: Date,
  ): Promise<{ url: string | null; secret: string; previousSecret: string | null }> {
    const endpointId = delivery.endpointId ?? null
    if (endpointId !== null && endpointId !== MERCHANT_DEFAULT_TARGET) {
      const endpoint = await webhookEndpoints.get(merchant.merchantId, endpointId)
      if (endpoint === null) throw new Error(`webhook endpoint ${endpointId} was deleted`)
      if (!endpoint.enabled) throw new Error(`webhook endpoint ${endpointId} is disabled`)
      const context = webhookEndpointSecretContext(endpoint)
      const overlap =
        endpoint.previousSecret !== null &&
        endpoint.previousSecretExpiresAt !== null &&
        Date.parse(endpoint.previousSecretExpiresAt) > at.getTime()
      return {
        url: endpoint.url,
        secret: secretBox.open(endpoint.secret, context),
        previousSecret: overlap ? secretBox.open(endpoint.previousSecret as string, context) : null,
      }
    }
    // A delivery recorded without a target may be redelivered once the merchant has a default URL.
    const url =
      endpointId === MERCHANT_DEFAULT_TARGET
        ? merchant.webhookUrl
        : (delivery.targetUrl ?? merchant.webhookUrl)
    const secret = secretBox.open(merchant.webhookSecret, webhookSecretContext(merchant.merchantId))
    return { url, secret, previousSecret: null }
  }

  async function send(delivery: WebhookDelivery, at: Date, result: AttemptResult): Promise<void> {
    const merchant = await merchants.getMerchant(delivery.merchantId)
    if (merchant === null) throw new Error(`merchant ${delivery.merchantId} does not exist`)
    const { url: target, secret, previousSecret } = await targetOf(delivery, merchant, at)
    if (target === null) {
      result.noTarget = true
      throw new Error('no target: the payment has no callbackUrl and the merchant no webhook URL')
    }
    result.url = target
    const problem = webhookTargetProblem(target, { allowPrivateTargets })
    if (problem !== null) throw new Error(problem)
    result.origin = new URL(target).origin
    const timestamp = Math.floor(at.getTime() / 1000)
    // The event id goes in the body as well as in X-Event-Id: the signature covers only the body, so
    // a receiver checks the two agree before deduplicating by it (docs/api.md, "Verifying a webhook").
    const stored = delivery.payload as unknown as Omit<WebhookBodyInput, 'id'>
    const eventId = eventIdOf(delivery)
    // an invoice's delivery carries the invoice instead of a payment (docs/api.md, "Invoices")
    // a deposit's carries the deposit (docs/api.md, "Deposits")
    const body =
      'deposit' in delivery.payload
        ? renderDepositWebhookBody(
            { ...(delivery.payload as unknown as Omit<DepositWebhookBodyInput, 'id'>), id: eventId },
            timestamp,
          )
        : 'invoice' in delivery.payload
          ? renderInvoiceWebhookBody(
              { ...(delivery.payload as unknown as Omit<InvoiceWebhookBodyInput, 'id'>), id: eventId },
              timestamp,
            )
          : renderWebhookBody({ ...stored, id: eventId }, timestamp)
    const signature = signWebhook(secret, timestamp, body)
    const response = await request(target, {
      method: 'POST',
      dispatcher: agent,
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'x-signature': signature,
        // the old secret's signature while a rotation overlaps (docs/api.md, "Rotating an endpoint's secret")
        ...(previousSecret === null
          ? {}
          : { 'x-signature-previous': signWebhook(previousSecret, timestamp, body) }),
        'x-timestamp': String(timestamp),
        'x-event-id': eventId,
        'x-event-type': delivery.eventType,
      },
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // the inactivity timeouts above do not bound a receiver that trickles its answer
      signal: AbortSignal.timeout(timeoutMs),
    })
    result.statusCode = response.statusCode
    await response.body.dump({ limit: RESPONSE_DISCARD_LIMIT }).catch(() => undefined)
    if (response.statusCode >= 300 && response.statusCode < 400) {
      result.error = `HTTP ${response.statusCode}: redirects are not followed`
    } else if (response.statusCode < 200 || response.statusCode >= 300) {
      result.error = `HTTP ${response.statusCode}`
    }
  }

  /** what follows a failed attempt number `attempt`: the next try on the schedule, or failed */
  function afterFailure(attempt: number): AttemptOutcome {
    const delay = schedule[attempt - 1]
    if (delay === undefined) return { status: 'failed' }
    const scaled = Math.round(delay * (1 + jitter * (2 * random() - 1)))
    return { status: 'pending', nextAttemptAt: new Date(clock.now().getTime() + scaled).toISOString() }
  }

  /** attempts the delivery and records the outcome; the outcome's status once recorded */
  async function attempt(delivery: WebhookDelivery): Promise<AttemptOutcome['status']> {
    const at = clock.now()
    const started = performance.now()
    const result: AttemptResult = {
      statusCode: null,
      error: null,
      url: null,
      origin: null,
      noTarget: false,
    }
    try {
      await send(delivery, at, result)
    } catch (error) {
      result.error = describeError(error, timeoutMs)
      const refused = notPublicAddressErrorOf(error)
      if (refused !== null) result.refusedAddresses = refused.resolvedAddresses
    }
    const durationMs = Math.round(performance.now() - started)
    const number = delivery.attempts + 1
    const outcome: AttemptOutcome =
      result.error === null ? { status: 'delivered', deliveredAt: isoNow(clock) } : afterFailure(number)
    await deliveries.recordAttempt(
      {
        deliveryId: delivery.deliveryId,
        attempt: number,
        at: at.toISOString(),
        statusCode: result.statusCode,
        durationMs,
        error: result.error,
        ...(result.url === null ? {} : { url: result.url }),
      },
      outcome,
    )
    if (outcome.status === 'pending') wakeAt(Date.parse(outcome.nextAttemptAt))
    options.metrics?.attempted(metricOutcome(outcome, result), durationMs)
    const context = {
      deliveryId: delivery.deliveryId,
      paymentId: delivery.paymentId,
      merchantId: delivery.merchantId,
      eventType: delivery.eventType,
      attempt: number,
      statusCode: result.statusCode,
      durationMs,
      target: result.origin,
      ...(result.refusedAddresses === undefined ? {} : { refusedAddresses: result.refusedAddresses }),
    }
    if (outcome.status === 'delivered') logger.info(context, 'webhook delivered')
    else if (outcome.status === 'pending') {
      logger.warn(
        { ...context, error: result.error, nextAttemptAt: outcome.nextAttemptAt },
        'webhook attempt failed; will retry',
      )
    } else
      logger.error({ ...context, error: result.error }, 'webhook delivery failed; retry schedule exhausted')
    return outcome.status
  }

  // The times at which this dispatcher knows a delivery falls due: the retries it scheduled, and the
  // leases it holds on deliveries whose attempt could not be recorded. Kept latest first, so that the
  // earliest is at the end; one timer for it, while the loop runs, wakes the loop once the clock has
  // reached it. A time stays until then: a clock that did not move (a manual one) is looked at again.
  const dueTimes: number[] = []
  let dueTimer: NodeJS.Timeout | undefined

  function wakeAt(time: number): void {
    // without the loop (dispatchOnce alone) nothing would ever take the time off again
    if (!Number.isFinite(time) || !loop.isRunning()) return
    // the first index whose time is not later than `time`
    let low = 0
    let high = dueTimes.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((dueTimes[middle] ?? 0) > time) low = middle + 1
      else high = middle
    }
    dueTimes.splice(low, 0, time)
    if (low === dueTimes.length - 1) armDueTimer()
  }

  function armDueTimer(): void {
    clearTimeout(dueTimer)
    dueTimer = undefined
    const earliest = dueTimes.at(-1)
    if (!loop.isRunning() || earliest === undefined) return
    const inMs = Math.min(MAX_TIMER_MS, Math.max(1, earliest - clock.now().getTime()))
    dueTimer = setTimeout(onDueTimer, inMs)
    dueTimer.unref()
  }

  function onDueTimer(): void {
    const now = clock.now().getTime()
    let due = false
    while ((dueTimes.at(-1) ?? Number.POSITIVE_INFINITY) <= now) {
      dueTimes.pop()
      due = true
    }
    if (due) loop.wake()
    armDueTimer()
  }

  /**
   * Whether a claim may have passed over a due delivery because an earlier one of its payment was
   * pending: then a delivery that leaves the pending state wakes the loop, whose claim reads the due
   * deliveries. A claim of the due deliveries that took none leaves none so held back (what is due
   * then waits for a retry's timer or a host's place, which wake the loop themselves); one that took
   * some may have; a claim by id that took fewer than it was given may have. So may one that took
   * none while attempts were in flight: a delivery woken by the bus (a redelivery) whose payment's
   * earlier delivery is being attempted is passed over, and that attempt's end must wake the loop.
   * Counted, so that a claim of the due deliveries clears only what happened before it began.
   */
  let heldBack = 1
  /** claims under way: an attempt that leaves the pending state meanwhile wakes the loop after them */
  let claiming = 0

  /**
   * claims what is due within the free slots (of `among` only, when given) and starts it; the
   * attempts, not awaited
   */
  async function claimAndStart(among?: readonly string[]): Promise<Promise<void>[]> {
    const free = concurrency - inFlight.size
    if (free <= 0) {
      if (among !== undefined) heldBack += 1
      return []
    }
    const heldBackBefore = heldBack
    const attemptsUnderWay = inFlight.size
    const now = clock.now()
    claiming += 1
    const claimed = await deliveries
      .claimDue(now.toISOString(), {
        limit: free,
        leaseMs,
        perTargetHost: concurrencyPerTargetHost,
        ...(among === undefined ? {} : { among }),
      })
      .finally(() => {
        claiming -= 1
      })
    if (among !== undefined) {
      if (claimed.length < among.length) heldBack += 1
    } else if (claimed.length > 0 || attemptsUnderWay > 0) heldBack += 1
    else if (heldBack === heldBackBefore) heldBack = 0
    // a lease is free once the clock is past its end (the stores compare leasedUntil < now)
    const leaseFreeAt = now.getTime() + leaseMs + 1
    return claimed.map((delivery) => {
      const host = targetHostOf(delivery)
      inFlightPerHost.set(host, (inFlightPerHost.get(host) ?? 0) + 1)
      // whether the delivery left the pending state: the next delivery of its payment may go now
      let leftPending = false
      const work = attempt(delivery)
        .then((status) => {
          leftPending = status !== 'pending'
        })
        .catch((error: unknown) => {
          // the lease runs out and the delivery is attempted again: the timer wakes the loop then
          logger.error({ err: error, deliveryId: delivery.deliveryId }, 'recording a webhook attempt failed')
          wakeAt(leaseFreeAt)
        })
        .finally(() => {
          const wasFull = inFlight.size >= concurrency
          inFlight.delete(work)
          const hostInFlight = inFlightPerHost.get(host) ?? 0
          const hostWasFull = hostInFlight >= concurrencyPerTargetHost
          if (hostInFlight <= 1) inFlightPerHost.delete(host)
          else inFlightPerHost.set(host, hostInFlight - 1)
          // A freed slot matters only if the loop found none, a freed place at the host only if the
          // claim passed over the host's other deliveries; a delivery that left the pending state
          // may let the next delivery of its payment go, if a claim may have held one back. A
          // retry holds its payment back until the timer wakes the loop for it.
          if (wasFull || hostWasFull || (leftPending && (heldBack > 0 || claiming > 0))) loop.wake()
        })
      inFlight.add(work)
      return work
    })
  }

  // Rests after every claim: one that got fewer deliveries than it had slots for left nothing due;
  // one that filled every slot waits for an attempt to finish, which wakes it. A wake that comes
  // while it claims is not slept through (createWorkLoop).
  const loop = createWorkLoop({
    async iterate() {
      await claimAndStart()
      return 'idle'
    },
    pollIntervalMs,
    failureBackoffMs: Math.min(pollIntervalMs, FAILURE_BACKOFF_MS),
    maxBackoffMs: MAX_BACKOFF_MS,
    onFailure(error, retry) {
      logger.error({ err: error, ...retry }, 'claiming due webhooks failed; retrying')
    },
  })

  return {
    name: 'webhook dispatcher',
    notReadyReason: () => loop.notReadyReason(),

    async dispatchOnce() {
      const started = await claimAndStart()
      await Promise.all(started)
      return started.length
    },

    wake: loop.wake,

    dispatchRecorded(deliveryIds) {
      if (!loop.isRunning()) return
      claimAndStart(deliveryIds).catch((error: unknown) => {
        // the loop's claim takes them: they are due
        logger.warn(
          { err: error, deliveryIds },
          'claiming recorded webhooks failed; the next claim takes them',
        )
        loop.wake()
      })
    },

    async start() {
      if (loop.isRunning()) return
      loop.start()
      armDueTimer()
      logger.info(
        { concurrency, concurrencyPerTargetHost, schedule, allowPrivateTargets, pollIntervalMs },
        'webhook dispatcher started',
      )
    },

    async stop() {
      await loop.stop()
      await Promise.all(inFlight)
      clearTimeout(dueTimer)
      dueTimer = undefined
      agentClosed ??= agent.close()
      await agentClosed
    },
  }
}

function metricOutcome(outcome: AttemptOutcome, result: AttemptResult): WebhookAttemptOutcome {
  if (result.noTarget) return 'no_target'
  return outcome.status === 'pending' ? 'retry' : outcome.status
}

function notPublicAddressErrorOf(error: unknown): NotPublicAddressError | null {
  if (error instanceof NotPublicAddressError) return error
  return error instanceof Error && error.cause instanceof NotPublicAddressError ? error.cause : null
}

function describeError(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error)
  if (error.name === 'TimeoutError' || error.name.endsWith('TimeoutError')) {
    return `no answer within ${timeoutMs} ms (${error.message})`
  }
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}

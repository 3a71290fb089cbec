// Expiry in two parts: the deadline keeper follows payment-command's own events to know which
// payments are open and until when; the scheduler asks the decider to expire those whose deadline
// passed, once the chain watcher watches the payment's address (the observation consumer marks the
// deadline) and has scanned past the deadline too. At the deadline an underpaid payment becomes
// final (docs/api.md, "Lifecycle"), so the deadline stays through a transfer and an underpaid
// settlement; one whose transfer still confirms at the deadline is asked again a little later.

import { type PaymentEventMessage, parsePaymentEventMessage } from '@chainpay/contracts'
import type { PaymentState } from '@chainpay/domain'
import type { Clock, Logger, ReadinessReporter, Service } from '@chainpay/platform'
import { type Bus, consumerService, type PaymentDeadlineStore, Topics } from '@chainpay/ports'
import type { ChainTimeTracker } from './chain-times.js'
import type { PaymentCommandHandler } from './command-handler.js'

export interface DeadlineKeeperOptions {
  bus: Bus
  deadlines: PaymentDeadlineStore
  /** the payment as its stream stands: whether a dropped transfer left it open again */
  paymentState: (paymentId: string) => Promise<PaymentState>
  logger: Logger
  groupId?: string
}

/** after these nothing happens to a payment at its deadline */
const closingEvents: ReadonlySet<PaymentEventMessage['type']> = new Set([
  'PaymentExpired',
  'PaymentCanceled',
  'PaymentFailed',
  'PaymentConfirmed',
  'PaymentOverpaid',
  'PaymentUnderpaidFinalized',
])

export function createDeadlineKeeper(options: DeadlineKeeperOptions): Service {
  const { bus, deadlines, paymentState, logger } = options
  return consumerService(bus, {
    name: 'payment deadline keeper',
    logger,
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'payment-command-deadlines',
    handle: async (message) => {
      const event = parsePaymentEventMessage(message.value)
      if (event.type === 'PaymentCreated') {
        const { paymentId, network, expiresAt } = event.data
        await deadlines.upsert({ paymentId, network, expiresAt })
      } else if (closingEvents.has(event.type)) {
        await deadlines.remove(event.paymentId)
      } else if (event.type === 'TransferDropped') {
        // a dropped transfer is as if it had never come: with nothing else counted the payment can
        // expire again (docs/api.md, "Transfers the chain takes back"). Its address was watched
        // when the transfer was seen, so the deadline gets its watch mark back with it.
        const state = await paymentState(event.paymentId)
        if (state.status !== 'pending' || state.transfers.length > 0) return
        const { paymentId, network, expiresAt } = state.created
        await deadlines.upsert({ paymentId, network, expiresAt })
        await deadlines.markWatched(paymentId, event.recordedAt)
      }
    },
  })
}

export interface ExpirySchedulerOptions {
  deadlines: PaymentDeadlineStore
  handler: Pick<PaymentCommandHandler, 'expire'>
  chainTimes: Pick<ChainTimeTracker, 'get' | 'forPayment' | 'networks'>
  clock: Clock
  logger: Logger
  intervalMs?: number
  batchSize?: number
  /** wait before retrying a deadline whose expiry failed, doubled per failure up to retryMaxMs */
  retryInitialMs?: number
  retryMaxMs?: number
  /**
   * how long a payment past its deadline whose transfer still confirms, or that the chain watcher
   * holds, waits to be asked again; default 5 s
   */
  settlingRecheckMs?: number
}

export interface ExpiryScheduler extends Service, ReadinessReporter {
  /** one pass over the due deadlines; what the timer runs every interval */
  tick(): Promise<void>
}

export function createExpiryScheduler(options: ExpirySchedulerOptions): ExpiryScheduler {
  const { deadlines, handler, chainTimes, clock, logger } = options
  const intervalMs = options.intervalMs ?? 1000
  const batchSize = options.batchSize ?? 100
  const retryInitialMs = options.retryInitialMs ?? 5_000
  const retryMaxMs = options.retryMaxMs ?? 300_000
  const settlingRecheckMs = options.settlingRecheckMs ?? 5_000
  let timer: NodeJS.Timeout | undefined
  let started = false
  let inFlight: Promise<void> = Promise.resolve()
  /** whether the latest pass failed as a whole (its deadline store, mostly): for readiness */
  let latestPassFailed = false

  // Network by network, up to the earlier of the clock and that network's chain time: the deadlines
  // of a network whose watcher lags (or has not reported, so that a transfer made in time may still
  // be unseen) are never asked for, so they cannot fill the batch and hold back the other networks.
  // A deadline whose expiry keeps failing steps aside until its retry time, so that it cannot hold
  // the head of its network's batch.
  const expireDue = async () => {
    const nowMs = clock.now().getTime()
    const now = new Date(nowMs).toISOString()
    for (const network of chainTimes.networks()) {
      const chainTime = chainTimes.get(network)
      if (chainTime === null) continue
      const expiredBy = new Date(Math.min(nowMs, Date.parse(chainTime))).toISOString()
      for (const deadline of await deadlines.due({ expiredBy, now, limit: batchSize, network })) {
        // a payment the watcher does not speak for yet keeps an earlier chain time: not due yet,
        // and steps aside like a settling one, so that held payments cannot fill the batch
        const paymentChainTime = chainTimes.forPayment(network, deadline.paymentId) ?? chainTime
        if (Date.parse(paymentChainTime) < Date.parse(deadline.expiresAt)) {
          await deadlines.retryLater(deadline.paymentId, new Date(nowMs + settlingRecheckMs).toISOString())
          continue
        }
        try {
          const result = await handler.expire(deadline.paymentId, paymentChainTime)
          if (result === 'settling') {
            // steps aside like a failed one, so that it cannot hold the head of the batch
            await deadlines.retryLater(deadline.paymentId, new Date(nowMs + settlingRecheckMs).toISOString())
          } else if (result !== 'not_due') await deadlines.remove(deadline.paymentId)
        } catch (error) {
          const delayMs = Math.min(retryMaxMs, retryInitialMs * 2 ** deadline.attempts)
          const retryAt = new Date(nowMs + delayMs).toISOString()
          logger.error(
            { err: error, paymentId: deadline.paymentId, attempts: deadline.attempts + 1, retryAt },
            'expiring a payment failed; retrying later',
          )
          await deadlines.retryLater(deadline.paymentId, retryAt)
        }
      }
    }
  }

  const tick = (): Promise<void> => {
    // ticks never overlap: a tick asked for while one runs waits for it, then runs
    inFlight = inFlight.then(() =>
      expireDue().then(
        () => {
          latestPassFailed = false
        },
        (error: unknown) => {
          latestPassFailed = true
          logger.error({ err: error }, 'expiry pass failed; retrying next tick')
        },
      ),
    )
    return inFlight
  }

  const schedule = () => {
    timer = setTimeout(() => {
      void tick().then(() => {
        if (started) schedule()
      })
    }, intervalMs)
    timer.unref()
  }

  return {
    name: 'payment expiry scheduler',
    tick,
    notReadyReason: () => (started && latestPassFailed ? 'its latest pass failed' : undefined),
    async start() {
      if (started) return
      started = true
      schedule()
    },
    async stop() {
      started = false
      clearTimeout(timer)
      await inFlight
    },
  }
}

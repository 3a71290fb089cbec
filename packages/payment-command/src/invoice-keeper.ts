// What moves an invoice without a request (docs/api.md, "Invoices"), in payment-command, from its own
// events as the bus hands them over again after a crash (every step is idempotent):
// - the invoices' relay publishes the invoice streams on Topics.invoiceEvents;
// - the invoice deadline keeper keeps each open invoice's expiry in the payments' deadline store,
//   under the pseudo-network INVOICE_DEADLINES (already watched: an invoice has no address), and
//   the invoice expiry scheduler expires those due (the clock's time: an invoice has no chain);
// - the invoice payment keeper follows the payment events: a payment of an invoice confirmed or
//   overpaid makes the invoice paid; one that closes otherwise (expired, canceled, failed, underpaid
//   and final) lets an invoice past its expiry expire. An invoice whose payment is still open at its
//   expiry waits for that payment, whose own expiry follows the chain (docs/architecture.md).

import {
  invoiceEventBusMessage,
  type PaymentEventMessage,
  parseInvoiceEventMessage,
  parsePaymentEventMessage,
} from '@chainpay/contracts'
import type { PaymentState } from '@chainpay/domain'
import type { Clock, Logger, ReadinessReporter, Service } from '@chainpay/platform'
import {
  type Bus,
  type CheckpointStore,
  consumerService,
  type EventStore,
  type PaymentDeadlineStore,
  Topics,
} from '@chainpay/ports'
import type { InvoiceCommandHandler } from './invoice-handler.js'
import { toInvoiceEvent } from './invoice-stream.js'
import { storedSchemaVersion } from './payment-stream.js'
import { createEventRelay } from './relay.js'

/** the deadline store's network of invoice expiries: no chain's name, so no payment scheduler asks for it */
export const INVOICE_DEADLINES = 'INVOICE'

const INVOICE_STREAM_PREFIX = 'invoice-'

export function createInvoiceRelay(options: {
  eventStore: EventStore
  bus: Bus
  checkpoints: CheckpointStore
  logger: Logger
}): Service & ReadinessReporter {
  return createEventRelay({
    ...options,
    checkpointName: 'relay:invoice-events',
    streams: {
      prefix: INVOICE_STREAM_PREFIX,
      topic: Topics.invoiceEvents,
      toMessage: (recorded) =>
        invoiceEventBusMessage({
          eventId: recorded.eventId,
          invoiceId: recorded.streamId.slice(INVOICE_STREAM_PREFIX.length),
          streamId: recorded.streamId,
          revision: recorded.revision,
          schemaVersion: storedSchemaVersion(recorded),
          recordedAt: recorded.recordedAt,
          ...toInvoiceEvent(recorded),
        }),
    },
  })
}

export function createInvoiceDeadlineKeeper(options: {
  bus: Bus
  deadlines: PaymentDeadlineStore
  logger: Logger
  groupId?: string
}): Service {
  const { bus, deadlines, logger } = options
  return consumerService(bus, {
    name: 'invoice deadline keeper',
    logger,
    topic: Topics.invoiceEvents,
    groupId: options.groupId ?? 'payment-command-invoice-deadlines',
    handle: async (message) => {
      const event = parseInvoiceEventMessage(message.value)
      if (event.type === 'InvoiceCreated') {
        const { invoiceId, expiresAt } = event.data
        await deadlines.upsert({ paymentId: invoiceId, network: INVOICE_DEADLINES, expiresAt })
        await deadlines.markWatched(invoiceId, event.recordedAt)
      } else if (event.type !== 'InvoicePaymentPicked') {
        await deadlines.remove(event.invoiceId)
      }
    },
  })
}

/** after these a payment of an invoice can no longer pay it */
const closingEvents: ReadonlySet<PaymentEventMessage['type']> = new Set([
  'PaymentExpired',
  'PaymentCanceled',
  'PaymentFailed',
  'PaymentUnderpaidFinalized',
])

export function createInvoicePaymentKeeper(options: {
  bus: Bus
  invoices: Pick<InvoiceCommandHandler, 'markPaid' | 'expire'>
  /** the payment as its stream stands: whose invoice it is */
  paymentState: (paymentId: string) => Promise<PaymentState>
  logger: Logger
  groupId?: string
}): Service {
  const { bus, invoices, paymentState, logger } = options
  const invoiceOf = async (paymentId: string): Promise<string | null> => {
    const state = await paymentState(paymentId)
    return state.status === 'none' ? null : (state.created.invoiceId ?? null)
  }
  return consumerService(bus, {
    name: 'invoice payment keeper',
    logger,
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'payment-command-invoices',
    handle: async (message) => {
      const event = parsePaymentEventMessage(message.value)
      const paid = event.type === 'PaymentConfirmed' || event.type === 'PaymentOverpaid'
      if (!paid && !closingEvents.has(event.type)) return
      const invoiceId = await invoiceOf(event.paymentId)
      if (invoiceId === null) return
      if (paid) await invoices.markPaid(invoiceId, event.paymentId)
      else await invoices.expire(invoiceId)
    },
  })
}

export interface InvoiceExpiryScheduler extends Service {
  /** one pass over the due invoice deadlines */
  tick(): Promise<void>
}

export function createInvoiceExpiryScheduler(options: {
  deadlines: PaymentDeadlineStore
  invoices: Pick<InvoiceCommandHandler, 'expire'>
  clock: Clock
  logger: Logger
  intervalMs?: number
  batchSize?: number
}): InvoiceExpiryScheduler {
  const { deadlines, invoices, clock, logger } = options
  const intervalMs = options.intervalMs ?? 1000
  const batchSize = options.batchSize ?? 100
  let timer: NodeJS.Timeout | undefined
  let started = false
  let inFlight: Promise<void> = Promise.resolve()

  const expireDue = async () => {
    const now = clock.now().toISOString()
    const due = await deadlines.due({ expiredBy: now, now, limit: batchSize, network: INVOICE_DEADLINES })
    for (const deadline of due) {
      try {
        // 'deferred' too: the invoice's open payment closes it when it closes (createInvoicePaymentKeeper)
        await invoices.expire(deadline.paymentId)
        await deadlines.remove(deadline.paymentId)
      } catch (error) {
        const retryAt = new Date(clock.now().getTime() + Math.min(300_000, 5_000 * 2 ** deadline.attempts))
        logger.error(
          { err: error, invoiceId: deadline.paymentId, attempts: deadline.attempts + 1 },
          'expiring an invoice failed; retrying later',
        )
        await deadlines.retryLater(deadline.paymentId, retryAt.toISOString())
      }
    }
  }

  const tick = (): Promise<void> => {
    inFlight = inFlight.then(() =>
      expireDue().catch((error: unknown) => {
        logger.error({ err: error }, 'invoice expiry pass failed; retrying next tick')
      }),
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
    name: 'invoice expiry scheduler',
    tick,
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

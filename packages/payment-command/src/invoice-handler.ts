// The command side of an invoice (docs/api.md, "Invoices"): read its stream, decide, append with
// optimistic concurrency, re-reading after a conflicting append, as for payments
// (command-handler.ts). A pick creates a payment of the invoice through the payments' own create
// path (priced in the invoice's fiat, its rate locked then) before the invoice records it: a crash in
// between leaves a payment that nobody was sent to, which expires; a retry of the same pick finds the
// same payment (its idempotency key names the invoice, the pick's number and the asset).

import { randomUUID } from 'node:crypto'
import {
  type AssetRegistry,
  type CreateRequestPolicy,
  currentInvoicePayment,
  DomainError,
  decideInvoice,
  evolveInvoice,
  type InvoiceCommand,
  type InvoiceEvent,
  type InvoiceState,
  invoiceIdForIdempotencyKey,
  isCancelable,
  type OpenInvoice,
  requestFingerprint,
  toInvoiceStreamId,
  validateCreateInvoiceRequest,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type EventStore,
  type InvoiceCommands,
  type InvoiceSnapshot,
  type MerchantStore,
  type PaymentSnapshot,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import type { PaymentCommandHandler } from './command-handler.js'
import { type LoadedInvoice, loadInvoice, toNewInvoiceEvent } from './invoice-stream.js'

export interface InvoiceCommandHandlerDeps {
  eventStore: EventStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** the assets served: `accepted` defaults to all of them */
  registry: AssetRegistry
  policy: CreateRequestPolicy
  /** the payments of the picks are created, canceled and read through the payments' handler */
  payments: Pick<PaymentCommandHandler, 'createInvoicePayment' | 'cancelPayment' | 'getPayment'>
  clock: Clock
  newId?: () => string
  logger: Logger
  maxConflictRetries?: number
}

/**
 * 'expired': the invoice expired now; 'deferred': its current payment is still open, and that
 * payment's own expiry, which follows the chain, will close the invoice (invoice-keeper.ts);
 * 'closed': nothing to do (paid, expired, canceled, not due, or unknown)
 */
export type InvoiceExpireResult = 'expired' | 'deferred' | 'closed'

export interface InvoiceCommandHandler extends InvoiceCommands {
  /** a payment of the invoice was confirmed (or overpaid): the invoice is paid */
  markPaid(invoiceId: string, paymentId: string): Promise<void>
  /** at or after its expiry, and when a payment of it closes */
  expire(invoiceId: string): Promise<InvoiceExpireResult>
}

const DEFAULT_MAX_CONFLICT_RETRIES = 10

export function createInvoiceCommandHandler(deps: InvoiceCommandHandlerDeps): InvoiceCommandHandler {
  const { eventStore, merchants, registry, policy, payments, clock, logger } = deps
  const newId = deps.newId ?? randomUUID
  const maxConflictRetries = deps.maxConflictRetries ?? DEFAULT_MAX_CONFLICT_RETRIES

  const execute = async (
    invoiceId: string,
    decide: (current: LoadedInvoice) => Promise<InvoiceEvent[]> | InvoiceEvent[],
  ): Promise<LoadedInvoice & { appended: InvoiceEvent[] }> => {
    for (let attempt = 0; ; attempt++) {
      const current = await loadInvoice(eventStore, invoiceId)
      const events = await decide(current)
      if (events.length === 0) return { ...current, appended: [] }
      const expected = current.revision === -1 ? 'no_stream' : current.revision
      try {
        const result = await eventStore.appendToStream(
          toInvoiceStreamId(invoiceId),
          events.map((event) => toNewInvoiceEvent(event, newId())),
          expected,
        )
        const state = events.reduce(evolveInvoice, current.state)
        return { state, revision: result.nextExpectedRevision, appended: events }
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxConflictRetries) throw error
        logger.debug({ invoiceId, attempt: attempt + 1, expected }, 'conflicting append; deciding again')
      }
    }
  }

  /** the invoice of this merchant; INVOICE_NOT_FOUND for unknown or another merchant's */
  const ownInvoice = async (merchantId: string, invoiceId: string): Promise<InvoiceSnapshot> => {
    const { state, revision } = await loadInvoice(eventStore, invoiceId)
    if (state.status === 'none' || state.created.merchantId !== merchantId) {
      throw new DomainError('INVOICE_NOT_FOUND', `invoice ${invoiceId} not found`)
    }
    return { invoice: state, revision }
  }

  /** the payment of the invoice's latest pick, as its stream stands; null before any pick */
  const currentPayment = async (invoice: OpenInvoice): Promise<PaymentSnapshot | null> => {
    const paymentId = currentInvoicePayment(invoice)
    if (paymentId === null) return null
    return payments.getPayment({ merchantId: invoice.created.merchantId, paymentId })
  }

  /** the decider's answer without appending it: a command refused before anything is created */
  const check = (command: InvoiceCommand, state: InvoiceState): void => {
    decideInvoice(command, state)
  }

  return {
    async createInvoice({ merchantId, request: body }) {
      if ((await merchants.getMerchant(merchantId)) === null) {
        logger.warn({ merchantId }, 'invoice refused: no such merchant in the merchant store')
        throw new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
      }
      const { request, accepted } = validateCreateInvoiceRequest(body, registry, policy)
      const invoiceId = invoiceIdForIdempotencyKey(merchantId, request.idempotencyKey)
      const fingerprint = requestFingerprint(request)
      const result = await execute(invoiceId, ({ state }) =>
        decideInvoice(
          {
            type: 'CreateInvoice',
            data: {
              invoiceId,
              merchantId,
              request,
              requestFingerprint: fingerprint,
              accepted,
              now: isoNow(clock),
            },
          },
          state,
        ),
      )
      return { outcome: result.appended.length > 0 ? 'created' : 'replayed', ...toSnapshot(result) }
    },

    async getInvoice({ merchantId, invoiceId }) {
      const current = await loadInvoice(eventStore, invoiceId)
      if (current.state.status === 'none' || current.state.created.merchantId !== merchantId) return null
      return { invoice: current.state, revision: current.revision }
    },

    async cancelInvoice({ merchantId, invoiceId }) {
      const { invoice } = await ownInvoice(merchantId, invoiceId)
      const now = isoNow(clock)
      check({ type: 'CancelInvoice', data: { invoiceId, merchantId, now } }, invoice)
      const payment = invoice.status === 'open' ? ((await currentPayment(invoice))?.payment ?? null) : null
      if (payment !== null && payment.status === 'pending') {
        if (!isCancelable(payment)) {
          throw new DomainError(
            'INVOICE_NOT_CANCELABLE',
            `a transfer to the invoice's payment ${payment.created.paymentId} was already seen; the invoice can no longer be canceled`,
          )
        }
        await payments.cancelPayment({ merchantId, paymentId: payment.created.paymentId })
      }
      const result = await execute(invoiceId, ({ state }) =>
        decideInvoice({ type: 'CancelInvoice', data: { invoiceId, merchantId, now: isoNow(clock) } }, state),
      )
      return toSnapshot(result)
    },

    async pickInvoicePayment({ merchantId, invoiceId, currency, network }) {
      const picked = await ownInvoice(merchantId, invoiceId)
      const { invoice } = picked
      const pickNumber = invoice.picks.length + 1
      const { created } = invoice
      const previousSnapshot = await currentPayment(invoice)
      const previous = previousSnapshot?.payment ?? null
      // the same asset again while its payment is still payable: that payment (a form sent twice)
      if (
        previousSnapshot !== null &&
        previous?.status === 'pending' &&
        previous.created.currency === currency &&
        previous.created.network === network
      ) {
        return { invoice: picked, payment: previousSnapshot, replaced: null }
      }
      // refused before anything is created or canceled: closed, expired, or an asset not accepted
      check(
        {
          type: 'PickInvoicePayment',
          data: { invoiceId, paymentId: '', currency, network, now: isoNow(clock) },
        },
        invoice,
      )
      let replaced: PaymentSnapshot | null = null
      if (previous !== null && previous.status === 'pending') {
        if (!isCancelable(previous)) {
          throw new DomainError(
            'PAYMENT_NOT_CANCELABLE',
            `a transfer to the payment of the earlier pick (${previous.created.currency} on ${previous.created.network}) was already seen; pay that one`,
          )
        }
        replaced = await payments.cancelPayment({
          merchantId,
          paymentId: previous.created.paymentId,
          canceledBy: 'customer',
        })
      }
      const request = {
        priceAmount: created.priceAmount,
        priceCurrency: created.priceCurrency,
        currency,
        network,
        ...(created.description === null ? {} : { description: created.description }),
        ...(Object.keys(created.metadata).length === 0 ? {} : { metadata: created.metadata }),
        ...(created.callbackUrl === null ? {} : { callbackUrl: created.callbackUrl }),
        ...(created.successRedirectUrl === null ? {} : { successRedirectUrl: created.successRedirectUrl }),
        ...(created.cancelRedirectUrl === null ? {} : { cancelRedirectUrl: created.cancelRedirectUrl }),
        idempotencyKey: `invoice:${invoiceId}:${pickNumber}:${currency}:${network}`,
      }
      const payment = await payments.createInvoicePayment({
        merchantId,
        request,
        invoice: { invoiceId, expiresAt: created.expiresAt },
      })
      const paymentId = payment.payment.created.paymentId
      const result = await execute(invoiceId, ({ state }) =>
        decideInvoice(
          {
            type: 'PickInvoicePayment',
            data: { invoiceId, paymentId, currency, network, now: isoNow(clock) },
          },
          state,
        ),
      )
      logger.info({ invoiceId, paymentId, currency, network, pickNumber }, 'invoice payment picked')
      return { invoice: toSnapshot(result), payment, replaced }
    },

    async markPaid(invoiceId, paymentId) {
      const result = await execute(invoiceId, ({ state }) =>
        state.status === 'none'
          ? []
          : decideInvoice(
              { type: 'MarkInvoicePaid', data: { invoiceId, paymentId, now: isoNow(clock) } },
              state,
            ),
      )
      if (result.appended.length > 0) logger.info({ invoiceId, paymentId }, 'invoice paid')
    },

    async expire(invoiceId) {
      const current = await loadInvoice(eventStore, invoiceId)
      if (current.state.status !== 'open') return 'closed'
      const payment = (await currentPayment(current.state))?.payment ?? null
      const currentPaymentOpen =
        payment !== null &&
        (payment.status === 'pending' || (payment.status === 'underpaid' && payment.closedAt === null))
      const result = await execute(invoiceId, ({ state }) =>
        state.status === 'none'
          ? []
          : decideInvoice(
              { type: 'ExpireInvoice', data: { invoiceId, now: isoNow(clock), currentPaymentOpen } },
              state,
            ),
      )
      if (result.appended.length > 0) return 'expired'
      return currentPaymentOpen ? 'deferred' : 'closed'
    },
  }
}

function toSnapshot({ state, revision }: LoadedInvoice): InvoiceSnapshot {
  if (state.status === 'none') throw new DomainError('INTERNAL_ERROR', 'invoice state is missing')
  return { invoice: state, revision }
}

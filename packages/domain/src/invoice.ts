// The invoice aggregate (docs/api.md, "Invoices"): a price in fiat, the assets the customer may pick,
// and the payments of its picks. Pure like the payment decider: time and ids arrive in commands, and
// what the invoice's payments did arrives as commands too (paid, still open), from payment-command.

import { DomainError } from './errors.js'
import { paymentIdForIdempotencyKey } from './identity.js'
import type {
  AcceptedAsset,
  InvoiceCommand,
  InvoiceEvent,
  InvoiceEventType,
  InvoiceState,
  OpenInvoice,
} from './invoice-types.js'
import { BrokenPaymentStreamError } from './payment-fold.js'

export type * from './invoice-types.js'

export const InvoiceEventTypes: readonly InvoiceEventType[] = [
  'InvoiceCreated',
  'InvoicePaymentPicked',
  'InvoicePaid',
  'InvoiceExpired',
  'InvoiceCanceled',
]

export const initialInvoiceState: InvoiceState = { status: 'none' }

export const toInvoiceStreamId = (invoiceId: string): string => `invoice-${invoiceId}`

/** default and bounds of expiresInMinutes, as for a payment (docs/api.md, "POST /invoices") */
export const invoiceLimits = { expiresInMinutes: { min: 1, max: 1440, default: 30 } } as const

//////// Evolve

export function evolveInvoice(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  switch (event.type) {
    case 'InvoiceCreated':
      return { status: 'open', created: event.data, picks: [], paidBy: null, closedAt: null }
    case 'InvoicePaymentPicked': {
      const invoice = opened(state, event.type)
      const { paymentId, currency, network, pickedAt } = event.data
      return { ...invoice, picks: [...invoice.picks, { paymentId, currency, network, pickedAt }] }
    }
    case 'InvoicePaid':
      return {
        ...opened(state, event.type),
        status: 'paid',
        paidBy: event.data.paymentId,
        closedAt: event.data.paidAt,
      }
    case 'InvoiceExpired':
      return { ...opened(state, event.type), status: 'expired', closedAt: event.data.expiredAt }
    case 'InvoiceCanceled':
      return { ...opened(state, event.type), status: 'canceled', closedAt: event.data.canceledAt }
    default: {
      const unknown: never = event
      throw new Error(`unknown invoice event ${(unknown as { type: string }).type}`)
    }
  }
}

function opened(state: InvoiceState, type: InvoiceEventType): OpenInvoice {
  if (state.status === 'none') throw new Error(`invoice event ${type} before InvoiceCreated`)
  return state
}

/** the payment of the latest pick; null before any pick */
export function currentInvoicePayment(invoice: OpenInvoice): string | null {
  return invoice.picks.at(-1)?.paymentId ?? null
}

//////// Decide

/** The events a command produces on a state; throws DomainError when the command breaks a rule. */
export function decideInvoice(command: InvoiceCommand, state: InvoiceState): InvoiceEvent[] {
  switch (command.type) {
    case 'CreateInvoice': {
      const { data } = command
      if (state.status !== 'none') {
        const { created } = state
        if (created.merchantId === data.merchantId && created.requestFingerprint === data.requestFingerprint)
          return []
        throw new DomainError(
          'IDEMPOTENCY_KEY_REUSED',
          'idempotencyKey: already used with a different request',
        )
      }
      const { request, now } = data
      const minutes = request.expiresInMinutes ?? invoiceLimits.expiresInMinutes.default
      return [
        {
          type: 'InvoiceCreated',
          data: {
            invoiceId: data.invoiceId,
            merchantId: data.merchantId,
            idempotencyKey: request.idempotencyKey,
            requestFingerprint: data.requestFingerprint,
            priceAmount: request.priceAmount,
            priceCurrency: request.priceCurrency,
            accepted: data.accepted.map(({ currency, network, tokenStandard }) => ({
              currency,
              network,
              tokenStandard,
            })),
            description: request.description ?? null,
            metadata: { ...request.metadata },
            callbackUrl: request.callbackUrl ?? null,
            successRedirectUrl: request.successRedirectUrl ?? null,
            cancelRedirectUrl: request.cancelRedirectUrl ?? null,
            createdAt: now,
            expiresAt: new Date(Date.parse(now) + minutes * 60_000).toISOString(),
          },
        },
      ]
    }
    case 'PickInvoicePayment': {
      const { invoiceId, paymentId, currency, network, now } = command.data
      const invoice = found(state, invoiceId)
      if (invoice.picks.some((pick) => pick.paymentId === paymentId)) return []
      if (invoice.status !== 'open') {
        throw new DomainError(
          'INVOICE_NOT_OPEN',
          `invoice is ${invoice.status}; nothing can be picked any more`,
        )
      }
      if (Date.parse(now) >= Date.parse(invoice.created.expiresAt)) {
        throw new DomainError('INVOICE_NOT_OPEN', `invoice expired at ${invoice.created.expiresAt}`)
      }
      if (
        !invoice.created.accepted.some((asset) => asset.currency === currency && asset.network === network)
      ) {
        throw new DomainError(
          'UNSUPPORTED_ASSET',
          `the invoice does not accept ${currency} on ${network}; it accepts ${describeAccepted(invoice.created.accepted)}`,
        )
      }
      return [
        { type: 'InvoicePaymentPicked', data: { invoiceId, paymentId, currency, network, pickedAt: now } },
      ]
    }
    case 'MarkInvoicePaid': {
      const { invoiceId, paymentId, now } = command.data
      const invoice = found(state, invoiceId)
      // a closed invoice stays as it is, and only its own payments pay it
      if (invoice.status !== 'open' || !invoice.picks.some((pick) => pick.paymentId === paymentId)) return []
      return [{ type: 'InvoicePaid', data: { invoiceId, paymentId, paidAt: now } }]
    }
    case 'ExpireInvoice': {
      const { invoiceId, now, currentPaymentOpen } = command.data
      const invoice = found(state, invoiceId)
      if (invoice.status !== 'open' || currentPaymentOpen) return []
      if (Date.parse(now) < Date.parse(invoice.created.expiresAt)) return []
      return [{ type: 'InvoiceExpired', data: { invoiceId, expiredAt: now } }]
    }
    case 'CancelInvoice': {
      const { invoiceId, merchantId, now } = command.data
      if (state.status === 'none' || state.created.merchantId !== merchantId) {
        throw new DomainError('INVOICE_NOT_FOUND', `invoice ${invoiceId} not found`)
      }
      if (state.status === 'canceled') return []
      if (state.status !== 'open') {
        throw new DomainError(
          'INVOICE_NOT_CANCELABLE',
          `invoice is ${state.status}; only an open invoice can be canceled`,
        )
      }
      return [{ type: 'InvoiceCanceled', data: { invoiceId, canceledAt: now } }]
    }
    default: {
      const unknown: never = command
      throw new DomainError('INTERNAL_ERROR', `unknown invoice command ${(unknown as { type: string }).type}`)
    }
  }
}

function found(state: InvoiceState, invoiceId: string): OpenInvoice {
  if (state.status === 'none') throw new DomainError('INVOICE_NOT_FOUND', `invoice ${invoiceId} not found`)
  return state
}

function describeAccepted(accepted: readonly AcceptedAsset[]): string {
  return accepted.map((asset) => `${asset.currency} on ${asset.network}`).join(', ')
}

//////// Fold (the read sides)

/** An invoice as a read side holds it: the aggregate's state after the event at `revision`. */
export interface FoldedInvoice {
  invoiceId: string
  merchantId: string
  revision: number
  state: OpenInvoice
}

/**
 * The invoice after `recorded`, or 'skip' when `folded` already covers its revision; a gap or a
 * stream that does not start with InvoiceCreated is BrokenPaymentStreamError (poison), as for
 * payments (payment-fold.ts).
 */
export function foldInvoiceEvent(
  folded: FoldedInvoice | null,
  recorded: { invoiceId: string; revision: number } & InvoiceEvent,
): FoldedInvoice | 'skip' {
  const { invoiceId, revision } = recorded
  if (folded !== null && revision <= folded.revision) return 'skip'
  const expected = folded === null ? 0 : folded.revision + 1
  if (revision !== expected || (folded === null && recorded.type !== 'InvoiceCreated')) {
    throw new BrokenPaymentStreamError(
      `invoice ${invoiceId}: event ${recorded.type} at revision ${revision} arrived; revision ${expected} is missing`,
    )
  }
  const state = evolveInvoice(folded?.state ?? initialInvoiceState, {
    type: recorded.type,
    data: recorded.data,
  } as InvoiceEvent)
  if (state.status === 'none') throw new BrokenPaymentStreamError(`invoice ${invoiceId}: no InvoiceCreated`)
  return { invoiceId, merchantId: state.created.merchantId, revision, state }
}

/**
 * The invoice id a merchant's idempotency key maps to: a UUID from sha256 of the key under the
 * merchant, apart from the payments' ids (the text hashed starts with "invoice", which no merchant
 * id is), so that concurrent duplicates race for one stream (docs/architecture.md, "Idempotency").
 */
export function invoiceIdForIdempotencyKey(merchantId: string, idempotencyKey: string): string {
  return paymentIdForIdempotencyKey(`invoice\n${merchantId}`, idempotencyKey)
}

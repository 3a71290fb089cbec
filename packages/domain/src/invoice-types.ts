// The invoice aggregate's types: its events, state and commands (invoice.ts is the decider). An
// invoice is a price in fiat that the customer pays in the asset they pick on its page; each pick is
// a payment of the invoice (docs/api.md, "Invoices"). Its stream is `invoice-<invoiceId>`.

import type { Metadata } from './create-request.js'

/** an asset the customer may pick, as the invoice accepts it */
export interface AcceptedAsset {
  currency: string
  network: string
  tokenStandard: string
}

//////// Events

export interface InvoiceCreatedData {
  invoiceId: string
  merchantId: string
  idempotencyKey: string
  /** sha256 hex of the canonical JSON of the request body, to tell a replay from a reuse */
  requestFingerprint: string
  priceAmount: string
  priceCurrency: string
  /** in the order the merchant listed them (the operator's registry order by default) */
  accepted: AcceptedAsset[]
  description: string | null
  metadata: Metadata
  callbackUrl: string | null
  successRedirectUrl: string | null
  cancelRedirectUrl: string | null
  createdAt: string
  expiresAt: string
}

/** the customer picked an asset: the payment of the invoice created for it */
export interface InvoicePaymentPickedData {
  invoiceId: string
  paymentId: string
  currency: string
  network: string
  pickedAt: string
}

export interface InvoicePaidData {
  invoiceId: string
  /** the payment that paid it */
  paymentId: string
  paidAt: string
}

export interface InvoiceExpiredData {
  invoiceId: string
  expiredAt: string
}

export interface InvoiceCanceledData {
  invoiceId: string
  canceledAt: string
}

export type InvoiceEvent =
  | { type: 'InvoiceCreated'; data: InvoiceCreatedData }
  | { type: 'InvoicePaymentPicked'; data: InvoicePaymentPickedData }
  | { type: 'InvoicePaid'; data: InvoicePaidData }
  | { type: 'InvoiceExpired'; data: InvoiceExpiredData }
  | { type: 'InvoiceCanceled'; data: InvoiceCanceledData }

export type InvoiceEventType = InvoiceEvent['type']

//////// State

export type InvoiceStatus = 'open' | 'paid' | 'expired' | 'canceled'

export interface InvoicePick {
  paymentId: string
  currency: string
  network: string
  pickedAt: string
}

export interface OpenInvoice {
  status: InvoiceStatus
  created: InvoiceCreatedData
  /** every pick, oldest first; the last one is the current payment */
  picks: InvoicePick[]
  /** the payment that paid the invoice; null unless paid */
  paidBy: string | null
  /** when it became paid, expired or canceled; null while open */
  closedAt: string | null
}

export type InvoiceState = { status: 'none' } | OpenInvoice

//////// Commands

/** the invoice request after validation (invoice-request.ts) */
export interface CreateInvoiceRequest {
  priceAmount: string
  priceCurrency: string
  accepted?: { currency: string; network: string }[]
  description?: string
  metadata?: Metadata
  callbackUrl?: string
  successRedirectUrl?: string
  cancelRedirectUrl?: string
  expiresInMinutes?: number
  idempotencyKey: string
}

export type InvoiceCommand =
  | {
      type: 'CreateInvoice'
      data: {
        invoiceId: string
        merchantId: string
        request: CreateInvoiceRequest
        requestFingerprint: string
        /** the accepted assets, resolved against the registry */
        accepted: AcceptedAsset[]
        now: string
      }
    }
  | {
      type: 'PickInvoicePayment'
      data: {
        invoiceId: string
        /** the payment created for the pick (its rate locked then) */
        paymentId: string
        currency: string
        network: string
        now: string
      }
    }
  | { type: 'MarkInvoicePaid'; data: { invoiceId: string; paymentId: string; now: string } }
  | {
      type: 'ExpireInvoice'
      data: {
        invoiceId: string
        now: string
        /**
         * whether the invoice's current payment is still open (pending or underpaid, not final): then
         * the payment's own expiry, which follows the chain, decides (docs/architecture.md, "Expiry
         * follows the chain, not only the clock")
         */
        currentPaymentOpen: boolean
      }
    }
  | { type: 'CancelInvoice'; data: { invoiceId: string; merchantId: string; now: string } }

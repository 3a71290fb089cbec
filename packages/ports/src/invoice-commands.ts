// How the gateway asks payment-command to act on invoices (docs/api.md, "Invoices"): a direct call in
// standalone, HTTP in the distributed shape, like PaymentCommands (payment-commands.ts), whose
// failures it shares: DomainErrors with the merchant-facing code, UnavailableError when
// payment-command or its store cannot serve right now.

import type { OpenInvoice } from '@chainpay/domain'
import type { PaymentSnapshot } from './payment-commands.js'

export interface InvoiceSnapshot {
  invoice: OpenInvoice
  /** stream revision of `invoice` */
  revision: number
}

export interface CreateInvoiceOutcome extends InvoiceSnapshot {
  /** 'replayed' when the idempotency key matched an earlier identical request */
  outcome: 'created' | 'replayed'
}

export interface PickInvoicePaymentOutcome {
  invoice: InvoiceSnapshot
  /** the payment of the pick, priced in the invoice's fiat at a rate locked now */
  payment: PaymentSnapshot
  /** the payment of the pick before, canceled by this one; null when there was none open */
  replaced: PaymentSnapshot | null
}

export interface InvoiceCommands {
  /** the merchant's body exactly as sent; payment-command loads the merchant and validates it */
  createInvoice(input: { merchantId: string; request: unknown }): Promise<CreateInvoiceOutcome>
  /** the invoice from the source of truth; null for unknown or another merchant's */
  getInvoice(input: { merchantId: string; invoiceId: string }): Promise<InvoiceSnapshot | null>
  /**
   * cancels the invoice and its open payment; INVOICE_NOT_FOUND, INVOICE_NOT_CANCELABLE (paid,
   * expired, or its payment has a transfer already)
   */
  cancelInvoice(input: { merchantId: string; invoiceId: string }): Promise<InvoiceSnapshot>
  /**
   * the customer's pick on the invoice's page: a payment of the invoice in the picked asset, priced
   * in the invoice's fiat at a rate locked now; the payment of an earlier pick is canceled first
   * (PAYMENT_NOT_CANCELABLE once a transfer was seen for it). INVOICE_NOT_FOUND, INVOICE_NOT_OPEN,
   * UNSUPPORTED_ASSET (not accepted), RATE_UNAVAILABLE.
   */
  pickInvoicePayment(input: {
    merchantId: string
    invoiceId: string
    currency: string
    network: string
  }): Promise<PickInvoicePaymentOutcome>
}

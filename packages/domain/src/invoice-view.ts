// The invoice as the merchant API shows it (docs/api.md, "The invoice object").

import type { Metadata } from './create-request.js'
import type { AcceptedAsset, InvoiceStatus, OpenInvoice } from './invoice-types.js'

export interface InvoicePaymentView {
  paymentId: string
  currency: string
  network: string
  pickedAt: string
}

export interface InvoiceView {
  invoiceId: string
  status: InvoiceStatus
  priceAmount: string
  priceCurrency: string
  accepted: AcceptedAsset[]
  description: string | null
  metadata: Metadata
  callbackUrl: string | null
  successRedirectUrl: string | null
  cancelRedirectUrl: string | null
  /** the invoice's page, where the customer picks how to pay: {PUBLIC_URL}/invoice/{checkoutToken} */
  checkoutUrl: string
  createdAt: string
  expiresAt: string
  /** when it became paid, expired or canceled; null while open */
  closedAt: string | null
  /** the payment that paid it; null unless paid */
  paidPaymentId: string | null
  /** the payments of the customer's picks, oldest first; the last is the current one */
  payments: InvoicePaymentView[]
}

export function toInvoiceView(invoice: OpenInvoice, checkoutUrl: string): InvoiceView {
  const { created } = invoice
  return {
    invoiceId: created.invoiceId,
    status: invoice.status,
    priceAmount: created.priceAmount,
    priceCurrency: created.priceCurrency,
    accepted: created.accepted.map((asset) => ({ ...asset })),
    description: created.description,
    metadata: { ...created.metadata },
    callbackUrl: created.callbackUrl,
    successRedirectUrl: created.successRedirectUrl,
    cancelRedirectUrl: created.cancelRedirectUrl,
    checkoutUrl,
    createdAt: created.createdAt,
    expiresAt: created.expiresAt,
    closedAt: invoice.closedAt,
    paidPaymentId: invoice.paidBy,
    payments: invoice.picks.map((pick) => ({ ...pick })),
  }
}

// The invoices' read model: each invoice's fold at a stream revision, saved by the projection (and
// the gateway's write-through), guarded by revision like the payments' (read-model.ts).

import type { FoldedInvoice, InvoiceStatus } from '@chainpay/domain'

/** one invoice as the read side keeps it: the domain's fold of its events (foldInvoiceEvent) */
export type InvoiceDocument = FoldedInvoice

/** where a page of a merchant's invoices starts: strictly after this one, in list order */
export interface InvoiceListPosition {
  createdAt: string
  invoiceId: string
}

/** a merchant's invoices, newest first: (createdAt, invoiceId) descending (docs/api.md, "GET /invoices") */
export interface InvoiceListQuery {
  merchantId: string
  limit: number
  after?: InvoiceListPosition
  /** any of these statuses; all when absent */
  statuses?: readonly InvoiceStatus[]
  /** createdAt at or after */
  createdFrom?: string
  /** createdAt before */
  createdTo?: string
}

export interface InvoiceReadModel {
  get(invoiceId: string): Promise<InvoiceDocument | null>
  /** stores the document when its revision is newer than the stored one; 'stale' otherwise */
  save(document: InvoiceDocument): Promise<'applied' | 'stale'>
  /** one page of a merchant's invoices, from an index that begins with the merchant */
  list(query: InvoiceListQuery): Promise<InvoiceDocument[]>
}

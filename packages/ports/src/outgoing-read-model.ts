// Refunds and payouts on the read side (docs/architecture.md, "The refunds and payouts read model"):
// each one's fold at a stream revision, saved by the projection from chainpay.outgoing-events (and by
// the gateway's write-through after a create or a cancel), guarded by revision like the payments' and
// the invoices' read models. The merchant API's lists are newest first, the admin API's (what the
// offline procedure is to send) oldest first, both in (createdAt, id) order, each page strictly after
// the last item of the one before (decisions section 14).

import type { FoldedOutgoing, OutgoingKind, OutgoingStatus } from '@chainpay/domain'

/** one refund or payout as the read side keeps it: the domain's fold (foldOutgoingEvent) */
export type OutgoingDocument = FoldedOutgoing

/** where a page starts: strictly after this item, in list order */
export interface OutgoingListPosition {
  createdAt: string
  id: string
}

/** a merchant's refunds or payouts, newest first (GET /refunds, GET /payouts) */
export interface MerchantOutgoingQuery {
  merchantId: string
  kind: OutgoingKind
  limit: number
  after?: OutgoingListPosition
  /** any of these statuses; all when absent or empty */
  statuses?: readonly OutgoingStatus[]
  /** refunds of this payment */
  paymentId?: string
}

/** every merchant's refunds and payouts of a network, oldest first (GET /admin/v1/outgoing) */
export interface NetworkOutgoingQuery {
  network: string
  /** at least one */
  statuses: readonly OutgoingStatus[]
  /** the wallet they are paid from ('operator' or a merchant wallet's id); all when absent */
  walletId?: string
  limit: number
  after?: OutgoingListPosition
}

export interface OutgoingReadModel {
  get(kind: OutgoingKind, id: string): Promise<OutgoingDocument | null>
  /** stores the document when its revision is newer than the stored one; 'stale' otherwise */
  save(document: OutgoingDocument): Promise<'applied' | 'stale'>
  /** one page of a merchant's refunds or payouts, from an index that begins with the merchant */
  listForMerchant(query: MerchantOutgoingQuery): Promise<OutgoingDocument[]>
  /** one page of a network's refunds and payouts in these statuses, from an index that begins with the network */
  listForNetwork(query: NetworkOutgoingQuery): Promise<OutgoingDocument[]>
}

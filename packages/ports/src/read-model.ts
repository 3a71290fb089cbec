import type { FoldedPayment, Metadata, PaymentStatus } from '@chainpay/domain'

/** One payment as the read side keeps it: the domain's fold of its events (foldPaymentEvent). */
export type PaymentDocument = FoldedPayment

/** where a page of a merchant's payments starts: strictly after this one, in list order */
export interface PaymentListPosition {
  createdAt: string
  paymentId: string
}

/**
 * A merchant's payments, newest first: ordered by (createdAt, paymentId) descending, so that the
 * order is total and a page continues from the last payment of the one before (docs/api.md,
 * "GET /payments"). Timestamps are ISO 8601 in UTC with milliseconds, as payments record them.
 */
export interface PaymentListQuery {
  merchantId: string
  /** at most this many documents */
  limit: number
  after?: PaymentListPosition
  /** any of these statuses; all when absent */
  statuses?: readonly PaymentStatus[]
  network?: string
  currency?: string
  /** createdAt at or after */
  createdFrom?: string
  /** createdAt before */
  createdTo?: string
}

/**
 * A page of the payments whose address received final funds (hasReceivedFunds), in paymentId order,
 * for the operator's balances (docs/api.md, "Balances and sweeps").
 */
export interface FundedPaymentQuery {
  limit: number
  /** strictly after this payment id */
  afterPaymentId?: string
  merchantId?: string
  network?: string
  /** the wallet the address derives from: 'operator' or a merchant wallet's id (paymentWalletId) */
  walletId?: string
}

export interface PaymentReadModel {
  get(paymentId: string): Promise<PaymentDocument | null>
  /**
   * Stores the document when its revision is newer than the stored one; an older or equal
   * revision is ignored ('stale'), which makes replays and duplicate deliveries harmless.
   */
  save(document: PaymentDocument): Promise<'applied' | 'stale'>
  /**
   * One page of a merchant's payments, from an index that begins with the merchant: the page costs
   * the same however many payments the store holds.
   */
  list(query: PaymentListQuery): Promise<PaymentDocument[]>
  /** one page of the payments that received funds, from an index of those alone */
  listFunded(query: FundedPaymentQuery): Promise<PaymentDocument[]>
}

/** The read model of a consumer that folds each payment's events onto the document it saved last. */
export interface RememberingReadModel extends PaymentReadModel {
  /**
   * The document an event of `revision` folds onto: the one this instance saved or read last of the
   * payment when the event directly follows it (`revision` one past it), without reading the store;
   * nothing for the payment's first event; the store's otherwise (a replay, a gap, an event of a
   * payment this instance has not seen since it started).
   */
  documentBefore(paymentId: string, revision: number): Promise<PaymentDocument | null>
}

/**
 * For the projection and the notifier (docs/capacity.md, "Webhooks"): an event that directly follows
 * the document saved last costs the store one write and no read. Safe beside other writers and
 * against a read model emptied while running (a rebuild): every save is guarded by revision, a
 * remembered document is never newer than the stored one, and an event that does not directly
 * follow it (a republished one) reads the store. A save the store finds stale, or that fails, is
 * forgotten. At most `maxEntries` payments, the least recently used forgotten first.
 */
export function rememberingReadModel(readModel: PaymentReadModel, maxEntries = 10_000): RememberingReadModel {
  const remembered = new Map<string, PaymentDocument>()
  const remember = (document: PaymentDocument) => {
    remembered.delete(document.paymentId)
    remembered.set(document.paymentId, document)
    for (const oldest of remembered.keys()) {
      if (remembered.size <= maxEntries) break
      remembered.delete(oldest)
    }
  }
  return {
    ...readModel,
    async documentBefore(paymentId, revision) {
      // a payment's first event folds onto nothing: no read (a replay of it is folded again, and
      // its save is stale against what is stored, as every consumer's writes are idempotent)
      if (revision === 0) return null
      const known = remembered.get(paymentId)
      if (known !== undefined && known.revision === revision - 1) {
        remember(known)
        return known
      }
      const document = await readModel.get(paymentId)
      if (document !== null) remember(document)
      return document
    },
    async save(document) {
      try {
        const outcome = await readModel.save(document)
        // a stale save means the store holds newer: read it again next time
        if (outcome === 'applied') remember(document)
        else remembered.delete(document.paymentId)
        return outcome
      } catch (error) {
        remembered.delete(document.paymentId)
        throw error
      }
    },
  }
}

/**
 * Finding a merchant's payments by what a customer quotes to support (docs/dashboard.md, "Finding a
 * payment"): the receiving address, a transaction's hash, or a value of the payment's metadata (the
 * shop's order number). Reads the read model's documents through indexes that begin with the
 * merchant.
 */
export interface PaymentSearch {
  /**
   * The merchant's payments whose receiving address is `reference`, or whose latest counted
   * transfer has it as tx hash (an adapter may find earlier transfers' too), or whose metadata has
   * it as a value under any key (paymentMetadataValues): exact and case-sensitive, newest first,
   * those strictly after `after` in that order.
   */
  findByReference(
    merchantId: string,
    reference: string,
    limit: number,
    after?: PaymentListPosition,
  ): Promise<PaymentDocument[]>
}

/**
 * The values a payment is found by in support's search (docs/dashboard.md, "Finding a payment"):
 * every metadata value whatever its key, a string as it is, a number or a boolean as its JSON text
 * (`1042` and `"1042"` are both found by 1042); null and the empty string are not kept. Metadata is
 * set at create and never changes, so these never change either.
 */
export function paymentMetadataValues(metadata: Metadata | undefined): string[] {
  const values = new Set<string>()
  for (const value of Object.values(metadata ?? {})) {
    if (value === null) continue
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (text !== '') values.add(text)
  }
  return [...values]
}

import type { FoldedPayment } from '@chainpay/domain'

/** One payment as the read side keeps it: the domain's fold of its events (foldPaymentEvent). */
export type PaymentDocument = FoldedPayment

export interface PaymentReadModel {
  get(paymentId: string): Promise<PaymentDocument | null>
  /**
   * Stores the document when its revision is newer than the stored one; an older or equal
   * revision is ignored ('stale'), which makes replays and duplicate deliveries harmless.
   */
  save(document: PaymentDocument): Promise<'applied' | 'stale'>
}

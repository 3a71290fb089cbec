import type { OpenPayment } from '@chainpay/domain'

/** One payment as the read side keeps it: the aggregate's state after `revision`. */
export interface PaymentDocument {
  paymentId: string
  merchantId: string
  /** stream revision of the last event folded into `state` */
  revision: number
  state: OpenPayment
  updatedAt: string
}

export interface PaymentReadModel {
  get(paymentId: string): Promise<PaymentDocument | null>
  /**
   * Stores the document when its revision is newer than the stored one; an older or equal
   * revision is ignored ('stale'), which makes replays and duplicate deliveries harmless.
   */
  save(document: PaymentDocument): Promise<'applied' | 'stale'>
}

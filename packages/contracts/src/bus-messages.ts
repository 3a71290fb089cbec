// What travels on the bus. Values are JSON text of these shapes; the typebox schemas that validate
// them on the consuming side live in bus-schemas.ts and must match these types exactly.

import type { DropReason, PaymentCommand, PaymentEvent } from '@chainpay/domain'

/** A stored payment event as the relay publishes it, keyed by paymentId. */
export type PaymentEventMessage = {
  eventId: string
  paymentId: string
  streamId: string
  revision: number
  /** version of the event's data schema */
  schemaVersion: number
  recordedAt: string
} & PaymentEvent

/** Headers on every payment event message. */
export const PaymentEventHeaders = {
  eventId: 'event-id',
  eventType: 'event-type',
  streamRevision: 'stream-revision',
} as const

/** A payment event message as it is published: keyed by payment, the envelope fields in headers. */
export function paymentEventBusMessage(message: PaymentEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return {
    key: message.paymentId,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

export type TransferObservation = {
  kind: 'transfer'
  network: string
  paymentId: string
  txHash: string
  transferIndex: number
  address: string
  amountUnits: string
  blockHeight: number
  blockTime: string
  /** what the merchant sees: the blocks on top of the transfer's, capped at the payment's requirement */
  confirmations: number
  /**
   * seen and final: the chain made it final and the count reached the payment's requirement
   * (docs/chains.md, "Confirmations and finality"). Absent from the messages of a watcher that
   * predates explicit finality (decisions 19): for those the count at the requirement meant final.
   */
  final?: boolean
  /**
   * Solana: the owner of the receiving token account (for SOL the account itself), which is the
   * payment's address for every token account it owns (decisions 16, 19); absent elsewhere
   */
  owner?: string
  /**
   * seen: on the chain with `confirmations`; in_doubt: counted before, no longer shown, not final
   * (a fork switch); dropped: the chain decided it will never be on it (docs/api.md, "Transfers the
   * chain takes back"). For in_doubt and dropped the block fields are the last known ones.
   */
  status: 'seen' | 'in_doubt' | 'dropped'
  /** dropped only: EXPIRED (can no longer be included) or REVERTED (on chain, failed) */
  dropReason: DropReason | null
  observedAt: string
}

/**
 * Funds to a payment's address that are not its asset (another registry asset, TRX a contract
 * sent; on Solana any token account of the owner): reported as seen, with confirmations, like a
 * transfer; the payment records them once final (docs/api.md, "Foreign funds").
 */
export type ForeignFundsObservation = {
  kind: 'foreign_funds'
  network: string
  paymentId: string
  txHash: string
  transferIndex: number
  address: string
  /** registry currency code: TRX, USDT, SOL, USDC... */
  currency: string
  decimals: number
  amountUnits: string
  blockHeight: number
  blockTime: string
  confirmations: number
  /** as TransferObservation's */
  final?: boolean
  /** as TransferObservation's */
  owner?: string
  observedAt: string
}

/** The watcher's progress: it has scanned every block up to `height`, whose time is `blockTime`. */
export type ChainProgressObservation = {
  kind: 'progress'
  network: string
  height: number
  blockTime: string
  /**
   * payments the progress does not speak for yet, up to a time: a transaction found on one of their
   * accounts that the node did not return yet, in a block at `before` (docs/chains.md, "Solana by
   * address: the watcher"). Their chain time stays before it; every other payment's is blockTime.
   */
  holds?: ChainTimeHold[]
  observedAt: string
}

export type ChainTimeHold = { paymentId: string; before: string }

/**
 * The watcher watches the payment's address and has checked every block since the payment's
 * creation for it: from here on, the watcher's progress speaks for this payment too.
 */
export type WatchingObservation = {
  kind: 'watching'
  network: string
  paymentId: string
  address: string
  observedAt: string
}

/**
 * A transfer of a registry asset to a customer's deposit address that no open payment counts
 * (docs/api.md, "Deposits"; decisions.md section 22), with a payment transfer's lifecycle: seen with
 * confirmations (final once the chain made it so), in doubt on a fork, dropped.
 */
export type DepositObservation = {
  kind: 'deposit'
  network: string
  merchantId: string
  merchantUserId: string
  /** the deposit address */
  address: string
  txHash: string
  transferIndex: number
  currency: string
  decimals: number
  amountUnits: string
  blockHeight: number
  blockTime: string
  confirmations: number
  /** the network's requirement when the indexer first saw the transfer */
  requiredConfirmations: number
  final: boolean
  status: 'seen' | 'in_doubt' | 'dropped'
  dropReason: DropReason | null
  observedAt: string
}

/**
 * Chain observations are keyed by paymentId (transfers, foreign funds, watching), the deposit
 * address (deposits) or network (progress).
 */
export type ChainObservationMessage =
  | TransferObservation
  | ForeignFundsObservation
  | ChainProgressObservation
  | WatchingObservation
  | DepositObservation

/** A bus message that does not parse or validate; marked `poison` so that the bus dead-letters it. */
export class MessageFormatError extends Error {
  override readonly name = 'MessageFormatError'
  readonly poison = true
}

/** the payment command that records a transfer observation, as the command side received it at `now` */
export function recordTransferObservationCommand(
  paymentId: string,
  observation: TransferObservation,
  now: string,
): Extract<PaymentCommand, { type: 'RecordTransferObservation' }> {
  const { txHash, transferIndex, status, dropReason, amountUnits, blockHeight, blockTime } = observation
  return {
    type: 'RecordTransferObservation',
    data: {
      paymentId,
      txHash,
      transferIndex,
      status,
      ...(dropReason === null ? {} : { dropReason }),
      amountUnits,
      blockHeight,
      blockTime,
      confirmations: observation.confirmations,
      ...(observation.final === undefined ? {} : { final: observation.final }),
      now,
    },
  }
}

/** the payment command that records foreign funds, as the command side received them at `now` */
export function recordForeignFundsCommand(
  paymentId: string,
  observation: ForeignFundsObservation,
  now: string,
): Extract<PaymentCommand, { type: 'RecordForeignFunds' }> {
  const { txHash, transferIndex, currency, decimals, amountUnits, blockHeight, blockTime, confirmations } =
    observation
  return {
    type: 'RecordForeignFunds',
    data: {
      paymentId,
      txHash,
      transferIndex,
      currency,
      decimals,
      amountUnits,
      blockHeight,
      blockTime,
      confirmations,
      ...(observation.final === undefined ? {} : { final: observation.final }),
      now,
    },
  }
}

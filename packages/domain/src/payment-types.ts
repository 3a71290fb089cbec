// The payment aggregate's types: its events, state and commands (payment.ts is the decider, which
// re-exports them). They sit apart so that evolve, decide and the views can import them without
// importing the decider that imports them (no import circle, biome's noImportCycles).
//
// Amounts in events and state are integers of the asset's smallest unit, written as decimal strings
// ("12500000"), so that events and state are plain JSON.

import type { Asset } from './assets.js'
import type { CreatePaymentRequest, Metadata } from './create-request.js'
import type { FeePolicy } from './fees.js'
import type { LockedRate } from './rates.js'

//////// Events

export interface PaymentCreatedData {
  paymentId: string
  merchantId: string
  /** null when the merchant sent none */
  idempotencyKey: string | null
  /** sha256 hex of the canonical JSON of the request body, to tell a replay from a reuse */
  requestFingerprint: string
  network: string
  currency: string
  tokenStandard: string
  decimals: number
  /** the amount exactly as the merchant sent it */
  amount: string
  amountUnits: string
  feeUnits: string
  netUnits: string
  /**
   * the merchant's fee policy for this asset when the payment was created, so that the fee of what
   * actually arrived follows the same policy (schema version 2; see the upcaster for older events)
   */
  feeBps: number
  fixedFeeUnits: string
  address: string
  /** SPL: associated token account of `address` for the mint; otherwise null */
  tokenAccount: string | null
  derivationPath: string
  /**
   * the wallet the address was derived from: 'operator' or a merchant wallet's id (schema version
   * 3; older events are the operator's, see the upcaster; decisions section 18)
   */
  walletId: string
  /** PER_USER: the address is the customer's deposit address (decisions.md section 22; schema version 4) */
  addressMode: 'PER_PAYMENT' | 'PER_USER'
  /** the merchant's customer of a PER_USER payment; null otherwise (absent before schema version 4) */
  merchantUserId?: string | null
  requiredConfirmations: number
  description: string | null
  metadata: Metadata
  callbackUrl: string | null
  successRedirectUrl: string | null
  cancelRedirectUrl: string | null
  createdAt: string
  expiresAt: string
  /**
   * a payment priced in fiat (docs/api.md, "Prices in fiat"): the price as the merchant sent it and
   * the rate `amount` was computed at, locked until expiresAt; null for a payment created with an
   * amount; absent from events written before version 1.3 (read as null)
   */
  priceAmount?: string | null
  priceCurrency?: string | null
  rate?: LockedRate | null
  /**
   * the merchant's underpayment tolerance when the payment was created, in percent ("0".."5"): a
   * total at or above expected * (1 - tolerance / 100) confirms it; absent before version 1.3 ("0")
   */
  underpaymentTolerancePercent?: string
  /**
   * the invoice whose pick created the payment (docs/api.md, "Invoices"); absent from events of
   * payments created otherwise, and from events written before invoices (read as null)
   */
  invoiceId?: string | null
}

export interface TransferRef {
  txHash: string
  /** position of the transfer inside its transaction (log index, instruction index) */
  transferIndex: number
}

export interface TransferDetectedData extends TransferRef {
  paymentId: string
  amountUnits: string
  blockHeight: number
  /** the block's own timestamp: a transfer counts when its block time is before expiresAt */
  blockTime: string
  /** what the merchant sees; finality is `final`, never this count */
  confirmations: number
  /**
   * the chain watcher's word that the transfer is final (docs/chains.md, "Confirmations and
   * finality"); null in events written before schema version 2, whose watcher held the count one
   * short of the requirement until final: for those, final is the count at the requirement
   * (isFinalTransfer)
   */
  final: boolean | null
  detectedAt: string
}

export interface TransferConfirmationsUpdatedData extends TransferRef {
  paymentId: string
  confirmations: number
  /** as TransferDetectedData's */
  final: boolean | null
  updatedAt: string
}

/**
 * The transfer is in doubt (docs/api.md, "Transfers the chain takes back"): the chain no longer
 * shows it before finality. It leaves the total but keeps the payment waiting until the chain
 * decides: TransferDetected again (it counts again) or TransferDropped.
 */
export interface TransferWithdrawnData extends TransferRef {
  paymentId: string
  /** DROPPED: the block left the canonical chain; REVERTED: written by versions before in-doubt */
  reason: 'DROPPED' | 'REVERTED'
  withdrawnAt: string
}

/** why the chain will never count a transfer */
export type DropReason = 'EXPIRED' | 'REVERTED'

/**
 * The chain has decided that a counted transfer will never be on it: EXPIRED, it can no longer be
 * included (TRON: expiration passed and absent from the solidified chain; Solana: blockhash expired
 * and unknown at finalized); REVERTED, it is on the chain as a failed transaction.
 */
export interface TransferDroppedData extends TransferRef {
  paymentId: string
  reason: DropReason
  droppedAt: string
}

/** Final funds of another registry asset, or TRX a contract sent, to the payment's address. */
export interface ForeignFundsReceivedData extends TransferRef {
  paymentId: string
  currency: string
  /** decimals of `currency`, so that the amount can be written without the registry */
  decimals: number
  amountUnits: string
  blockHeight: number
  blockTime: string
  receivedAt: string
}

export interface PaymentSettledData {
  paymentId: string
  receivedUnits: string
  /** latest counted transfer */
  txHash: string
  confirmedAt: string
}

export interface PaymentExpiredData {
  paymentId: string
  expiredAt: string
}

/** an underpaid payment at its expiresAt: no further transfer counts, the shortfall is final */
export interface PaymentUnderpaidFinalizedData {
  paymentId: string
  /** the total of the counted transfers, final */
  receivedUnits: string
  finalizedAt: string
}

export interface PaymentCanceledData {
  paymentId: string
  canceledAt: string
  /** who asked: the merchant over the API, or the customer on the payment's page (since schema v2) */
  canceledBy: CanceledBy
}

export type CanceledBy = 'merchant' | 'customer'

export interface PaymentFailedData {
  paymentId: string
  /** TRANSFER_DROPPED: the chain dropped the counted transfers and expiresAt had passed;
   * TRANSFER_WITHDRAWN: written by versions before in-doubt (a withdrawn transfer failed at once) */
  reason: 'TRANSFER_WITHDRAWN' | 'TRANSFER_DROPPED'
  failedAt: string
}

export interface LateFundsReceivedData extends TransferRef {
  paymentId: string
  amountUnits: string
  blockHeight: number
  blockTime: string
  /** the payment's status when the funds arrived */
  statusAtArrival: PaymentStatus
  receivedAt: string
}

/**
 * Funds moved from the payment's address to the operator's treasury by a signed sweep (docs/api.md,
 * "Balances and sweeps"); recorded once per transaction and currency, in any status. Amounts in the
 * smallest units of `currency` and of `feeCurrency`, whose decimals are recorded with them.
 */
export interface PaymentFundsSweptData {
  paymentId: string
  txHash: string
  network: string
  /** the payment's address the funds left (its owner address, also for SPL) */
  address: string
  currency: string
  decimals: number
  amountUnits: string
  /** what the sweep transaction cost, in the network's native coin */
  feeUnits: string
  feeCurrency: string
  feeDecimals: number
  treasury: string
  sweptAt: string
}

export type PaymentEvent =
  | { type: 'PaymentCreated'; data: PaymentCreatedData }
  | { type: 'TransferDetected'; data: TransferDetectedData }
  | { type: 'TransferConfirmationsUpdated'; data: TransferConfirmationsUpdatedData }
  | { type: 'TransferWithdrawn'; data: TransferWithdrawnData }
  | { type: 'TransferDropped'; data: TransferDroppedData }
  | { type: 'PaymentConfirmed'; data: PaymentSettledData }
  | { type: 'PaymentUnderpaid'; data: PaymentSettledData }
  | { type: 'PaymentOverpaid'; data: PaymentSettledData }
  | { type: 'PaymentExpired'; data: PaymentExpiredData }
  | { type: 'PaymentCanceled'; data: PaymentCanceledData }
  | { type: 'PaymentFailed'; data: PaymentFailedData }
  | { type: 'LateFundsReceived'; data: LateFundsReceivedData }
  | { type: 'PaymentUnderpaidFinalized'; data: PaymentUnderpaidFinalizedData }
  | { type: 'ForeignFundsReceived'; data: ForeignFundsReceivedData }
  | { type: 'PaymentFundsSwept'; data: PaymentFundsSweptData }

export type PaymentEventType = PaymentEvent['type']

//////// State

export type PaymentStatus =
  | 'pending'
  | 'confirmed'
  | 'underpaid'
  | 'overpaid'
  | 'expired'
  | 'canceled'
  | 'failed'

export interface CountedTransfer extends TransferRef {
  amountUnits: string
  blockHeight: number
  blockTime: string
  confirmations: number
  /** final on the chain: the payment settles once every counted transfer is */
  final: boolean
  /** in doubt: the chain no longer shows it (TransferWithdrawn); left out of the total */
  withdrawn: boolean
}

export interface LateTransfer extends TransferRef {
  amountUnits: string
  blockTime: string
}

export interface ForeignFunds extends TransferRef {
  currency: string
  decimals: number
  amountUnits: string
  blockTime: string
}

/** a recorded sweep: one transaction moving one currency out of the payment's address */
export type Sweep = Omit<PaymentFundsSweptData, 'paymentId' | 'network' | 'address'>

export interface OpenPayment {
  status: PaymentStatus
  created: PaymentCreatedData
  /**
   * transfers that count toward the payment, in detection order; ones in doubt stay, flagged
   * `withdrawn`, until the chain includes them again or drops them
   */
  transfers: CountedTransfer[]
  /** transfers recorded as late funds, reported once each */
  lateTransfers: LateTransfer[]
  /** final funds of another asset, recorded once each (docs/api.md, "Foreign funds") */
  foreignFunds: ForeignFunds[]
  /** sweeps to the treasury, in recording order (docs/api.md, "Balances and sweeps") */
  sweeps: Sweep[]
  /** latest counted, not withdrawn transfer */
  txHash: string | null
  /** total of counted, not withdrawn transfers; null until one is seen */
  receivedUnits: string | null
  confirmedAt: string | null
  /** when the payment closed: expired, canceled, failed, or underpaid made final at its expiresAt */
  closedAt: string | null
  failureReason: PaymentFailedData['reason'] | null
}

export type PaymentState = { status: 'none' } | OpenPayment

//////// Commands

export interface ReceivingAddress {
  address: string
  tokenAccount: string | null
  derivationPath: string
  /** 'operator' or the id of the merchant wallet the address was derived from */
  walletId: string
}

export type PaymentCommand =
  | {
      type: 'CreatePayment'
      data: {
        paymentId: string
        merchantId: string
        /** as validateCreatePaymentRequest let it through, with `asset` its resolved asset */
        request: CreatePaymentRequest
        requestFingerprint: string
        asset: Asset
        feePolicy: FeePolicy
        receivingAddress: ReceivingAddress
        requiredConfirmations: number
        /** the rate locked for a request priced in fiat (the rate service's answer); absent otherwise */
        rate?: LockedRate
        /** the merchant's underpayment tolerance in percent; absent: "0" */
        underpaymentTolerancePercent?: string
        /**
         * a payment of an invoice (the customer's pick): the invoice, and its expiry, which the payment
         * takes instead of expiresInMinutes (docs/api.md, "Invoices")
         */
        invoice?: { invoiceId: string; expiresAt: string }
        now: string
      }
    }
  | {
      type: 'CancelPayment'
      data: { paymentId: string; merchantId: string; canceledBy: CanceledBy; now: string }
    }
  | {
      type: 'ExpirePayment'
      data: {
        paymentId: string
        now: string
        /** block time of the newest block the chain watcher has scanned for this network */
        chainTime: string
      }
    }
  | {
      type: 'RecordTransferObservation'
      data: TransferRef & {
        paymentId: string
        /** seen with `confirmations`; in doubt (no longer shown, not final); dropped for good */
        status: 'seen' | 'in_doubt' | 'dropped'
        /** with status dropped */
        dropReason?: DropReason
        amountUnits: string
        blockHeight: number
        blockTime: string
        confirmations: number
        /**
         * seen and final on the chain; absent from watchers before version 1.2, whose count at the
         * payment's requirement meant final
         */
        final?: boolean
        now: string
      }
    }
  | {
      type: 'RecordSweep'
      data: {
        paymentId: string
        txHash: string
        currency: string
        /** whole units, decimal strings, as the admin API takes them */
        amount: string
        fee: string
        feeCurrency: string
        /** the native coin of the payment's network, in which fees are paid; null when the registry has none */
        nativeAsset: { currency: string; decimals: number } | null
        treasury: string
        now: string
      }
    }
  | {
      type: 'RecordForeignFunds'
      data: TransferRef & {
        paymentId: string
        currency: string
        decimals: number
        amountUnits: string
        blockHeight: number
        blockTime: string
        confirmations: number
        /** as RecordTransferObservation's */
        final?: boolean
        now: string
      }
    }

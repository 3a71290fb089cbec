// Payment events and commands for tests: a 10.5 USDT payment on TRON created at 14:00, expiring at
// 14:30, needing 20 confirmations. Each builder takes the fields a test cares about. Every package's
// tests build their events here (through @chainpay/domain/testing), so the fixtures follow the
// event types in one place.

import { defaultAssetRegistry, resolveAsset } from '../assets.js'
import {
  evolvePayment,
  type ForeignFundsReceivedData,
  initialPaymentState,
  type LateFundsReceivedData,
  type OpenPayment,
  type PaymentCommand,
  type PaymentCreatedData,
  type PaymentEvent,
  type PaymentFundsSweptData,
  type PaymentSettledData,
  type PaymentStatus,
  type PaymentUnderpaidFinalizedData,
  type TransferConfirmationsUpdatedData,
  type TransferDetectedData,
  type TransferDroppedData,
  type TransferWithdrawnData,
} from '../payment.js'

export const paymentId = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
export const merchantId = 'merchant-1'
export const fingerprint = 'f'.repeat(64)
export const usdtOnTron = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'USDT' })
export const required = 20

/** the time `minutes` after creation, so that 30 is expiresAt */
export function at(minutes: number): string {
  return new Date(Date.parse('2026-11-21T14:00:00.000Z') + minutes * 60_000).toISOString()
}

/** expiresAt is 30 minutes after createdAt unless given */
export function paymentCreatedData(data: Partial<PaymentCreatedData> = {}): PaymentCreatedData {
  const createdAt = data.createdAt ?? at(0)
  return {
    paymentId,
    merchantId,
    idempotencyKey: null,
    requestFingerprint: fingerprint,
    network: 'TRON',
    currency: 'USDT',
    tokenStandard: 'TRC20',
    decimals: 6,
    amount: '10.5',
    amountUnits: '10500000',
    feeUnits: '105000',
    netUnits: '10395000',
    feeBps: 100,
    fixedFeeUnits: '0',
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tokenAccount: null,
    derivationPath: "m/44'/195'/0'/0/7",
    walletId: 'operator',
    addressMode: 'PER_PAYMENT',
    requiredConfirmations: required,
    description: null,
    metadata: {},
    callbackUrl: null,
    successRedirectUrl: null,
    cancelRedirectUrl: null,
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + 30 * 60_000).toISOString(),
    priceAmount: null,
    priceCurrency: null,
    rate: null,
    underpaymentTolerancePercent: '0',
    ...data,
  }
}

export function paymentCreated(data: Partial<PaymentCreatedData> = {}): PaymentEvent {
  return { type: 'PaymentCreated', data: paymentCreatedData(data) }
}

/** final unless said otherwise when its count is at the requirement, as a watcher reports it */
export function transferDetected(data: Partial<TransferDetectedData> = {}): PaymentEvent {
  const confirmations = data.confirmations ?? 1
  return {
    type: 'TransferDetected',
    data: {
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: at(5),
      confirmations,
      final: confirmations >= required,
      detectedAt: at(5),
      ...data,
    },
  }
}

export function settled(
  type: 'PaymentConfirmed' | 'PaymentUnderpaid' | 'PaymentOverpaid',
  data: Partial<PaymentSettledData> = {},
): PaymentEvent {
  return {
    type,
    data: { paymentId, receivedUnits: '10500000', txHash: 'tx-1', confirmedAt: at(10), ...data },
  }
}

/** final unless said otherwise when its count is at the requirement, as a watcher reports it */
export function confirmationsUpdated(data: Partial<TransferConfirmationsUpdatedData> = {}): PaymentEvent {
  const confirmations = data.confirmations ?? required
  return {
    type: 'TransferConfirmationsUpdated',
    data: {
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      confirmations,
      final: confirmations >= required,
      updatedAt: at(6),
      ...data,
    },
  }
}

export function withdrawn(data: Partial<TransferWithdrawnData> = {}): PaymentEvent {
  return {
    type: 'TransferWithdrawn',
    data: { paymentId, txHash: 'tx-1', transferIndex: 0, reason: 'DROPPED', withdrawnAt: at(8), ...data },
  }
}

export function dropped(data: Partial<TransferDroppedData> = {}): PaymentEvent {
  return {
    type: 'TransferDropped',
    data: { paymentId, txHash: 'tx-1', transferIndex: 0, reason: 'EXPIRED', droppedAt: at(32), ...data },
  }
}

/** 7 TRX, final, to a USDT payment's address */
export function foreignFunds(data: Partial<ForeignFundsReceivedData> = {}): PaymentEvent {
  return {
    type: 'ForeignFundsReceived',
    data: {
      paymentId,
      txHash: 'tx-trx',
      transferIndex: 0,
      currency: 'TRX',
      decimals: 6,
      amountUnits: '7000000',
      blockHeight: 100,
      blockTime: at(5),
      receivedAt: at(7),
      ...data,
    },
  }
}

/** the whole 10.5 USDT of a confirmed payment swept to the treasury in tx-sweep, for 13.4 TRX of fees */
export function fundsSwept(data: Partial<PaymentFundsSweptData> = {}): PaymentEvent {
  return {
    type: 'PaymentFundsSwept',
    data: {
      paymentId,
      txHash: 'tx-sweep',
      network: 'TRON',
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      currency: 'USDT',
      decimals: 6,
      amountUnits: '10500000',
      feeUnits: '13400000',
      feeCurrency: 'TRX',
      feeDecimals: 6,
      treasury: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      sweptAt: at(60),
      ...data,
    },
  }
}

/** tx-1 paying the exact amount in a block after expiry, to a payment that was `statusAtArrival` */
export function lateFunds(
  statusAtArrival: PaymentStatus,
  data: Partial<LateFundsReceivedData> = {},
): PaymentEvent {
  return {
    type: 'LateFundsReceived',
    data: {
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: at(31),
      statusAtArrival,
      receivedAt: at(6),
      ...data,
    },
  }
}

export function underpaidFinalized(data: Partial<PaymentUnderpaidFinalizedData> = {}): PaymentEvent {
  return {
    type: 'PaymentUnderpaidFinalized',
    data: { paymentId, receivedUnits: '10000000', finalizedAt: at(30), ...data },
  }
}

/** the events that leave a payment in `status` (settled ones through one final transfer) */
export function eventsFor(status: PaymentStatus): PaymentEvent[] {
  const created = paymentCreated()
  switch (status) {
    case 'pending':
      return [created]
    case 'confirmed':
      return [created, transferDetected({ confirmations: required }), settled('PaymentConfirmed')]
    case 'underpaid':
      return [
        created,
        transferDetected({ amountUnits: '10000000', confirmations: required }),
        settled('PaymentUnderpaid', { receivedUnits: '10000000' }),
      ]
    case 'overpaid':
      return [
        created,
        transferDetected({ amountUnits: '11000000', confirmations: required }),
        settled('PaymentOverpaid', { receivedUnits: '11000000' }),
      ]
    case 'expired':
      return [created, { type: 'PaymentExpired', data: { paymentId, expiredAt: at(31) } }]
    case 'canceled':
      return [
        created,
        { type: 'PaymentCanceled', data: { paymentId, canceledAt: at(3), canceledBy: 'merchant' } },
      ]
    case 'failed':
      return [
        created,
        transferDetected(),
        withdrawn(),
        dropped(),
        { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_DROPPED', failedAt: at(32) } },
      ]
  }
}

/** one event of every type, with the optional PaymentCreated fields set and metadata of every value type */
export const samplePaymentEvents: PaymentEvent[] = [
  paymentCreated({
    idempotencyKey: 'order-1042',
    amount: '10.50',
    metadata: { orderId: '1042', vip: true, score: 4.5, note: null },
    callbackUrl: 'https://merchant.example/hooks/chainpay',
  }),
  transferDetected(),
  confirmationsUpdated({ confirmations: 12 }),
  withdrawn(),
  settled('PaymentConfirmed'),
  settled('PaymentUnderpaid', { receivedUnits: '10000000' }),
  settled('PaymentOverpaid', { receivedUnits: '11000000' }),
  { type: 'PaymentExpired', data: { paymentId, expiredAt: at(31) } },
  { type: 'PaymentCanceled', data: { paymentId, canceledAt: at(3), canceledBy: 'merchant' } },
  { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_WITHDRAWN', failedAt: at(8) } },
  lateFunds('expired', { transferIndex: 1, amountUnits: '2000000', blockHeight: 900, receivedAt: at(32) }),
  underpaidFinalized(),
  dropped(),
  foreignFunds(),
  fundsSwept(),
]

/** the state the events fold to; throws when they do not open a payment */
export function foldPayment(events: PaymentEvent[]): OpenPayment {
  const state = events.reduce(evolvePayment, initialPaymentState)
  if (state.status === 'none') throw new Error('the events do not create a payment')
  return state
}

type Observation = Extract<PaymentCommand, { type: 'RecordTransferObservation' }>

/**
 * a transfer as the chain watcher reports it, by default tx-1 paying the exact amount at 14:05; final
 * unless said otherwise when its count is at the requirement
 */
export function observed(data: Partial<Observation['data']> = {}): Observation {
  const confirmations = data.confirmations ?? 1
  return {
    type: 'RecordTransferObservation',
    data: {
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      status: 'seen',
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: at(5),
      confirmations,
      final: confirmations >= required,
      now: at(6),
      ...data,
    },
  }
}

type ForeignObservation = Extract<PaymentCommand, { type: 'RecordForeignFunds' }>

/** funds of another asset as the chain watcher reports them, by default 7 TRX final at 14:07 */
export function foreignObserved(data: Partial<ForeignObservation['data']> = {}): ForeignObservation {
  return {
    type: 'RecordForeignFunds',
    data: {
      paymentId,
      txHash: 'tx-trx',
      transferIndex: 0,
      currency: 'TRX',
      decimals: 6,
      amountUnits: '7000000',
      blockHeight: 100,
      blockTime: at(5),
      confirmations: required,
      final: (data.confirmations ?? required) >= required,
      now: at(7),
      ...data,
    },
  }
}

type SweepRecord = Extract<PaymentCommand, { type: 'RecordSweep' }>

/** the operator records fundsSwept(): 10.5 USDT to the treasury in tx-sweep, 13.4 TRX of fees */
export function sweepRecorded(data: Partial<SweepRecord['data']> = {}): SweepRecord {
  return {
    type: 'RecordSweep',
    data: {
      paymentId,
      txHash: 'tx-sweep',
      currency: 'USDT',
      amount: '10.5',
      fee: '13.4',
      feeCurrency: 'TRX',
      nativeAsset: { currency: 'TRX', decimals: 6 },
      treasury: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      now: at(60),
      ...data,
    },
  }
}

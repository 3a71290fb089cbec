// Payment events and commands for tests: a 10.5 USDT payment on TRON created at 14:00, expiring at
// 14:30, needing 20 confirmations. Each builder takes the fields a test cares about.

import { defaultAssetRegistry, resolveAsset } from '../assets.js'
import type {
  PaymentCommand,
  PaymentCreatedData,
  PaymentEvent,
  PaymentSettledData,
  PaymentStatus,
  TransferDetectedData,
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

export function paymentCreated(data: Partial<PaymentCreatedData> = {}): PaymentEvent {
  return {
    type: 'PaymentCreated',
    data: {
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
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      tokenAccount: null,
      derivationPath: "m/44'/195'/0'/0/7",
      addressMode: 'PER_PAYMENT',
      requiredConfirmations: required,
      description: null,
      metadata: {},
      callbackUrl: null,
      successRedirectUrl: null,
      cancelRedirectUrl: null,
      createdAt: at(0),
      expiresAt: at(30),
      ...data,
    },
  }
}

export function transferDetected(data: Partial<TransferDetectedData> = {}): PaymentEvent {
  return {
    type: 'TransferDetected',
    data: {
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: at(5),
      confirmations: 1,
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
      return [created, { type: 'PaymentCanceled', data: { paymentId, canceledAt: at(3) } }]
    case 'failed':
      return [
        created,
        transferDetected(),
        {
          type: 'TransferWithdrawn',
          data: { paymentId, txHash: 'tx-1', transferIndex: 0, reason: 'DROPPED', withdrawnAt: at(8) },
        },
        { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_WITHDRAWN', failedAt: at(8) } },
      ]
  }
}

type Observation = Extract<PaymentCommand, { type: 'RecordTransferObservation' }>

/** a transfer as the chain watcher reports it, by default tx-1 paying the exact amount at 14:05 */
export function observed(data: Partial<Observation['data']> = {}): Observation {
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
      confirmations: 1,
      now: at(6),
      ...data,
    },
  }
}

// One valid event of every type, for the tests of the schemas and parsers.

import type { PaymentEvent } from '@chainpay/domain'

export const samplePaymentId = '0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b'

const transfer = {
  txHash: '5f2c9a0e7d1b4c3a8e6f2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b1a',
  transferIndex: 0,
}

const settled = {
  paymentId: samplePaymentId,
  receivedUnits: '10500000',
  txHash: transfer.txHash,
  confirmedAt: '2026-11-21T14:05:07.000Z',
}

export const samplePaymentEvents: PaymentEvent[] = [
  {
    type: 'PaymentCreated',
    data: {
      paymentId: samplePaymentId,
      merchantId: 'merchant-1',
      idempotencyKey: 'order-1042',
      requestFingerprint: 'a'.repeat(64),
      network: 'TRON',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      decimals: 6,
      amount: '10.50',
      amountUnits: '10500000',
      feeUnits: '105000',
      netUnits: '10395000',
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      tokenAccount: null,
      derivationPath: "m/44'/195'/0'/0/7",
      addressMode: 'PER_PAYMENT',
      requiredConfirmations: 20,
      description: null,
      metadata: { orderId: '1042', vip: true, score: 4.5, note: null },
      callbackUrl: 'https://merchant.example/hooks/chainpay',
      successRedirectUrl: null,
      cancelRedirectUrl: null,
      createdAt: '2026-11-21T14:03:07.123Z',
      expiresAt: '2026-11-21T14:33:07.123Z',
    },
  },
  {
    type: 'TransferDetected',
    data: {
      ...transfer,
      paymentId: samplePaymentId,
      amountUnits: '10500000',
      blockHeight: 67_123_456,
      blockTime: '2026-11-21T14:04:00.000Z',
      confirmations: 1,
      detectedAt: '2026-11-21T14:04:03.000Z',
    },
  },
  {
    type: 'TransferConfirmationsUpdated',
    data: {
      ...transfer,
      paymentId: samplePaymentId,
      confirmations: 12,
      updatedAt: '2026-11-21T14:04:40.000Z',
    },
  },
  {
    type: 'TransferWithdrawn',
    data: {
      ...transfer,
      paymentId: samplePaymentId,
      reason: 'DROPPED',
      withdrawnAt: '2026-11-21T14:04:50.000Z',
    },
  },
  { type: 'PaymentConfirmed', data: settled },
  { type: 'PaymentUnderpaid', data: { ...settled, receivedUnits: '10000000' } },
  { type: 'PaymentOverpaid', data: { ...settled, receivedUnits: '11000000' } },
  { type: 'PaymentExpired', data: { paymentId: samplePaymentId, expiredAt: '2026-11-21T14:33:07.123Z' } },
  { type: 'PaymentCanceled', data: { paymentId: samplePaymentId, canceledAt: '2026-11-21T14:10:00.000Z' } },
  {
    type: 'PaymentFailed',
    data: { paymentId: samplePaymentId, reason: 'TRANSFER_WITHDRAWN', failedAt: '2026-11-21T14:05:00.000Z' },
  },
  {
    type: 'LateFundsReceived',
    data: {
      ...transfer,
      transferIndex: 1,
      paymentId: samplePaymentId,
      amountUnits: '2000000',
      blockHeight: 67_124_000,
      blockTime: '2026-11-21T15:00:00.000Z',
      statusAtArrival: 'expired',
      receivedAt: '2026-11-21T15:00:04.000Z',
    },
  },
]

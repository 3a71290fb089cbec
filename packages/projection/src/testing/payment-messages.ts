// Payment event messages for the projection's tests: a 10.5 USDT payment on TRON and the events a
// payment-command would store for it, wrapped as the relay publishes them.

import type { PaymentEventMessage } from '@chainpay/contracts'
import type { PaymentCreatedData, PaymentEvent } from '@chainpay/domain'

/** the time `minutes` after 14:00 */
export function at(minutes: number): string {
  return new Date(Date.parse('2026-11-21T14:00:00.000Z') + minutes * 60_000).toISOString()
}

export function paymentCreated(paymentId: string, merchantId = 'merchant-1'): PaymentEvent {
  const data: PaymentCreatedData = {
    paymentId,
    merchantId,
    idempotencyKey: null,
    requestFingerprint: 'f'.repeat(64),
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
    requiredConfirmations: 20,
    description: null,
    metadata: { orderId: '1042' },
    callbackUrl: null,
    successRedirectUrl: null,
    cancelRedirectUrl: null,
    createdAt: at(0),
    expiresAt: at(30),
  }
  return { type: 'PaymentCreated', data }
}

const transfer = { txHash: 'tx-1', transferIndex: 0 }

/** created, a transfer seen, final at 20 confirmations, confirmed */
export function confirmedStream(paymentId: string): PaymentEvent[] {
  return [
    paymentCreated(paymentId),
    {
      type: 'TransferDetected',
      data: {
        ...transfer,
        paymentId,
        amountUnits: '10500000',
        blockHeight: 100,
        blockTime: at(5),
        confirmations: 1,
        detectedAt: at(5),
      },
    },
    {
      type: 'TransferConfirmationsUpdated',
      data: { ...transfer, paymentId, confirmations: 20, updatedAt: at(6) },
    },
    {
      type: 'PaymentConfirmed',
      data: { paymentId, receivedUnits: '10500000', txHash: 'tx-1', confirmedAt: at(6) },
    },
  ]
}

/** created, canceled, then funds that arrived too late */
export function canceledStream(paymentId: string): PaymentEvent[] {
  return [
    paymentCreated(paymentId),
    { type: 'PaymentCanceled', data: { paymentId, canceledAt: at(2) } },
    {
      type: 'LateFundsReceived',
      data: {
        ...transfer,
        paymentId,
        amountUnits: '10500000',
        blockHeight: 140,
        blockTime: at(8),
        statusAtArrival: 'canceled',
        receivedAt: at(9),
      },
    },
  ]
}

/** the events as the relay publishes them, revision i recorded i minutes after 14:00 */
export function toMessages(paymentId: string, events: PaymentEvent[]): PaymentEventMessage[] {
  return events.map((event, revision) => ({
    eventId: `${paymentId}-${revision}`,
    paymentId,
    streamId: `payment-${paymentId}`,
    revision,
    schemaVersion: 1,
    recordedAt: at(revision),
    ...event,
  }))
}

// Which payment events merchants hear about, and what the webhook says about the payment
// (docs/api.md, "Webhooks"). Transfer events stay internal: the merchant learns about a transfer through
// the status change it leads to.

import type { WebhookEventKind, WebhookPaymentFields } from '@chainpay/contracts'
import {
  formatUnits,
  type OpenPayment,
  type PaymentEvent,
  type PaymentEventType,
  toPaymentView,
} from '@chainpay/domain'

const kindsByEventType: Record<PaymentEventType, WebhookEventKind | null> = {
  PaymentCreated: 'payment.pending',
  TransferDetected: null,
  TransferConfirmationsUpdated: null,
  TransferWithdrawn: null,
  TransferDropped: null,
  PaymentConfirmed: 'payment.confirmed',
  PaymentUnderpaid: 'payment.underpaid',
  PaymentOverpaid: 'payment.overpaid',
  PaymentExpired: 'payment.expired',
  PaymentCanceled: 'payment.canceled',
  PaymentFailed: 'payment.failed',
  LateFundsReceived: 'payment.late_funds',
  ForeignFundsReceived: 'payment.foreign_funds',
}

/** the webhook kind a payment event is announced as; null for events merchants do not get */
export function webhookKindOf(type: PaymentEventType): WebhookEventKind | null {
  return kindsByEventType[type] ?? null
}

/**
 * The payment object of a webhook body: the payment as it is after `event`, with the amount exactly
 * as the merchant sent it, computed amounts canonical, for late funds the late transfer and for foreign funds those funds.
 */
export function webhookPaymentFields(state: OpenPayment, event: PaymentEvent): WebhookPaymentFields {
  const view = toPaymentView(state)
  const fields: WebhookPaymentFields = {
    id: view.paymentId,
    status: view.status.toUpperCase(),
    amount: view.amount,
    tx_hash: view.txHash,
    currency: view.currency,
    network: view.network,
    expected_amount: view.expectedAmount,
    received_amount: view.receivedAmount,
    fee_amount: view.feeAmount,
    net_amount: view.netAmount,
    confirmations: view.confirmations,
    metadata: view.metadata,
  }
  if (event.type === 'LateFundsReceived') {
    fields.late_funds = {
      tx_hash: event.data.txHash,
      amount: formatUnits(event.data.amountUnits, state.created.decimals),
    }
  }
  if (event.type === 'ForeignFundsReceived') {
    fields.foreign_funds = {
      tx_hash: event.data.txHash,
      currency: event.data.currency,
      amount: formatUnits(event.data.amountUnits, event.data.decimals),
    }
  }
  return fields
}

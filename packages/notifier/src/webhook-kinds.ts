// Which payment events merchants hear about, and what the webhook says about the payment
// (docs/api.md, "Webhooks"). Of the transfer events, only the first sight of a counted transfer is
// announced (payment.transfer_detected); its confirmations and withdrawal show in the status change
// they lead to. A new kind is one entry below and one in @chainpay/contracts' WebhookEventKinds.

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
  TransferDetected: 'payment.transfer_detected',
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
  PaymentUnderpaidFinalized: 'payment.underpaid_final',
  ForeignFundsReceived: 'payment.foreign_funds',
  // the operator's bookkeeping, not the merchant's (docs/api.md, "Balances and sweeps")
  PaymentFundsSwept: null,
}

/** the webhook kind a payment event is announced as; null for events merchants do not get */
export function webhookKindOf(type: PaymentEventType): WebhookEventKind | null {
  return kindsByEventType[type] ?? null
}

/**
 * The payment object of a webhook body: the payment as it is after `event`, with the amount exactly
 * as the merchant sent it, computed amounts canonical, for late funds the late transfer and for foreign funds those funds.
 */
export function webhookPaymentFields(
  state: OpenPayment,
  event: PaymentEvent,
  checkoutUrl: string,
): WebhookPaymentFields {
  const view = toPaymentView(state, checkoutUrl)
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
    checkout_url: view.checkoutUrl,
    price_amount: view.priceAmount,
    price_currency: view.priceCurrency,
    rate: view.rate,
    shortfall_amount: view.shortfallAmount,
    ...(view.invoiceId === null ? {} : { invoice_id: view.invoiceId }),
  }
  if (event.type === 'LateFundsReceived') {
    fields.late_funds = {
      tx_hash: event.data.txHash,
      amount: formatUnits(event.data.amountUnits, state.created.decimals),
    }
  }
  if (event.type === 'TransferDetected') {
    fields.required_confirmations = state.created.requiredConfirmations
    fields.transfer = {
      tx_hash: event.data.txHash,
      amount: formatUnits(event.data.amountUnits, state.created.decimals),
      confirmations: event.data.confirmations,
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

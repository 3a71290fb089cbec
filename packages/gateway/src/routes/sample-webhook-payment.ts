// The made-up payment of a test event (docs/api.md, "Trying a webhook receiver"): a 10.5 USDT payment
// on TRON as it would be right after an event of the kind, with the fields that kind carries, so that
// a receiver meets the shapes it will meet.

import type {
  DepositWebhookKind,
  InvoiceWebhookKind,
  WebhookDepositFields,
  WebhookEventKind,
  WebhookInvoiceFields,
  WebhookOutgoingFields,
  WebhookPaymentFields,
} from '@chainpay/contracts'

const TX_HASH = `${'0'.repeat(63)}1`

export function sampleWebhookPayment(
  kind: Exclude<WebhookEventKind, InvoiceWebhookKind>,
  paymentId: string,
): WebhookPaymentFields {
  const base: WebhookPaymentFields = {
    id: paymentId,
    status: 'PENDING',
    amount: '10.5',
    tx_hash: null,
    currency: 'USDT',
    network: 'TRON',
    expected_amount: '10.5',
    received_amount: null,
    fee_amount: '0.105',
    net_amount: '10.395',
    confirmations: 0,
    metadata: { orderId: 'test' },
    price_amount: null,
    price_currency: null,
    rate: null,
    shortfall_amount: null,
  }
  const received = (status: string, amount: string, confirmations = 20): WebhookPaymentFields => ({
    ...base,
    status,
    tx_hash: TX_HASH,
    received_amount: amount,
    confirmations,
  })
  switch (kind) {
    case 'payment.pending':
      return base
    case 'payment.transfer_detected':
      return {
        ...received('PENDING', '10.5', 1),
        required_confirmations: 20,
        transfer: { tx_hash: TX_HASH, amount: '10.5', confirmations: 1 },
      }
    case 'payment.confirmed':
      return received('CONFIRMED', '10.5')
    case 'payment.underpaid':
    case 'payment.underpaid_final':
      return received('UNDERPAID', '5')
    case 'payment.overpaid':
      return received('OVERPAID', '12')
    case 'payment.expired':
      return { ...base, status: 'EXPIRED' }
    case 'payment.canceled':
      return { ...base, status: 'CANCELED' }
    case 'payment.failed':
      return { ...base, status: 'FAILED' }
    case 'payment.late_funds':
      return { ...base, status: 'EXPIRED', late_funds: { tx_hash: TX_HASH, amount: '10.5' } }
    case 'payment.foreign_funds':
      return { ...base, foreign_funds: { tx_hash: TX_HASH, currency: 'TRX', amount: '1' } }
    default:
      // refund.* and payout.* carry a refund or payout instead (sampleOutgoingWebhookFields)
      return base
  }
}

/** the made-up refund or payout of a refund.* or payout.* test event, as right after an event of the kind */
export function sampleOutgoingWebhookFields(kind: WebhookEventKind, id: string): WebhookOutgoingFields {
  const step = kind.slice(kind.indexOf('.') + 1)
  const status = { created: 'READY', ready: 'READY', released: 'READY' }[step] ?? step.toUpperCase()
  const sent = ['sent', 'completed', 'failed'].includes(step)
  return {
    id,
    status,
    ...(kind.startsWith('refund.')
      ? { payment_id: '00000000-0000-4000-8000-000000000001' }
      : { metadata: {} }),
    network: 'TRON',
    currency: 'USDT',
    amount: '2.5',
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tx_hash: sent ? TX_HASH : null,
    network_fee: step === 'completed' ? { currency: 'TRX', amount: '13.3' } : null,
    failure_reason: step === 'failed' ? 'REVERT' : null,
  }
}

/** the made-up deposit of a deposit.* test event: 12.5 USDT at 1 % fee, as right after the event */
export function sampleWebhookDeposit(kind: DepositWebhookKind, id: string): WebhookDepositFields {
  const confirmed = kind === 'deposit.confirmed'
  return {
    id,
    status: confirmed ? 'CONFIRMED' : 'DETECTED',
    merchant_user_id: 'test-user',
    network: 'TRON',
    currency: 'USDT',
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tx_hash: TX_HASH,
    transfer_index: 0,
    amount: '12.5',
    fee_amount: '0.125',
    net_amount: '12.375',
    confirmations: confirmed ? 20 : 1,
    required_confirmations: 20,
    detected_at: '2030-01-01T00:00:00.000Z',
    confirmed_at: confirmed ? '2030-01-01T00:01:00.000Z' : null,
  }
}

/** the made-up invoice of an invoice kind's test event: a 19.99 EUR invoice, as after the event */
export function sampleWebhookInvoice(kind: InvoiceWebhookKind, invoiceId: string): WebhookInvoiceFields {
  const paymentId = '00000000-0000-4000-8000-000000000001'
  return {
    id: invoiceId,
    status: kind === 'invoice.paid' ? 'PAID' : kind === 'invoice.expired' ? 'EXPIRED' : 'CANCELED',
    price_amount: '19.99',
    price_currency: 'EUR',
    paid_payment_id: kind === 'invoice.paid' ? paymentId : null,
    payments:
      kind === 'invoice.canceled' ? [] : [{ payment_id: paymentId, currency: 'USDT', network: 'TRON' }],
    metadata: { orderId: 'test' },
    checkout_url: 'https://pay.example.com/pay/invoice/test',
    expires_at: '2030-01-01T00:30:00.000Z',
  }
}

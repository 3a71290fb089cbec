// The internal command API's paths, shared by payment-command's server and the gateway's client.

export const commandApiRoutes = {
  payments: '/internal/v1/payments',
  payment: '/internal/v1/payments/:paymentId',
  cancel: '/internal/v1/payments/:paymentId/cancel',
  history: '/internal/v1/payments/:paymentId/events',
  sweeps: '/internal/v1/payments/:paymentId/sweeps',
  merchantWallet: '/internal/v1/merchants/:merchantId/wallet',
  resealWalletSeeds: '/internal/v1/merchant-wallets/reseal',
  invoices: '/internal/v1/invoices',
  invoice: '/internal/v1/invoices/:invoiceId',
  invoiceCancel: '/internal/v1/invoices/:invoiceId/cancel',
  invoicePick: '/internal/v1/invoices/:invoiceId/picks',
  /** refunds and payouts: one route per method of the OutgoingCommands port, its input as the body */
  outgoing: '/internal/v1/outgoing/:method',
  /** a customer's deposit address, created on first call (docs/api.md, "Deposit addresses") */
  depositAddresses: '/internal/v1/deposit-addresses',
  /** the operator's record of a sweep of a customer's deposit (docs/api.md, "Balances and sweeps") */
  depositSweeps: '/internal/v1/deposits/:depositId/sweeps',
} as const

export function depositSweepsPath(depositId: string): string {
  return `/internal/v1/deposits/${encodeURIComponent(depositId)}/sweeps`
}

export function invoicePath(invoiceId: string): string {
  return `${commandApiRoutes.invoices}/${encodeURIComponent(invoiceId)}`
}

export function paymentPath(paymentId: string): string {
  return `${commandApiRoutes.payments}/${encodeURIComponent(paymentId)}`
}

export function cancelPath(paymentId: string): string {
  return `${paymentPath(paymentId)}/cancel`
}

export function historyPath(paymentId: string): string {
  return `${paymentPath(paymentId)}/events`
}

export function sweepsPath(paymentId: string): string {
  return `${paymentPath(paymentId)}/sweeps`
}

export function merchantWalletPath(merchantId: string): string {
  return `/internal/v1/merchants/${encodeURIComponent(merchantId)}/wallet`
}

/** the methods of the OutgoingCommands port the command API carries (docs/architecture.md) */
export const outgoingCommandMethods = [
  'createRefund',
  'createPayout',
  'cancelOutgoing',
  'getOutgoing',
  'listOutgoing',
  'listOperatorOutgoing',
  'giveRefundAddress',
  'recordOutgoingStep',
  'getRefundHistory',
  'getBalances',
] as const

export type OutgoingCommandMethod = (typeof outgoingCommandMethods)[number]

export function outgoingPath(method: OutgoingCommandMethod): string {
  return `/internal/v1/outgoing/${method}`
}

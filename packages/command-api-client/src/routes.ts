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
} as const

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

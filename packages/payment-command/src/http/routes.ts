// The internal API's paths, shared by the server and its client.

export const commandApiRoutes = {
  payments: '/internal/v1/payments',
  payment: '/internal/v1/payments/:paymentId',
  cancel: '/internal/v1/payments/:paymentId/cancel',
} as const

export function paymentPath(paymentId: string): string {
  return `${commandApiRoutes.payments}/${encodeURIComponent(paymentId)}`
}

export function cancelPath(paymentId: string): string {
  return `${paymentPath(paymentId)}/cancel`
}

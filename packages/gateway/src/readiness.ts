// What the gateway's /readyz asks: its stores, and payment-command, without which it can neither
// create nor cancel a payment.

const DEPENDENCY_TIMEOUT_MS = 2000

export function gatewayReadiness(
  storesAnswer: () => Promise<boolean>,
  paymentCommandUrl: string,
): () => Promise<boolean> {
  return async () => (await storesAnswer()) && (await answersReady(`${paymentCommandUrl}/readyz`))
}

async function answersReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(DEPENDENCY_TIMEOUT_MS) })
    await response.body?.cancel()
    return response.status === 200
  } catch {
    return false
  }
}

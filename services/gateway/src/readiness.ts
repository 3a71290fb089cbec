// What the gateway's /readyz asks: its database, and payment-command, without which it can neither
// create nor cancel a payment.

import { type DatabaseSync, sqliteAnswers } from '@chainpay/store-sqlite'

const DEPENDENCY_TIMEOUT_MS = 2000

export function gatewayReadiness(db: DatabaseSync, paymentCommandUrl: string): () => Promise<boolean> {
  const databaseAnswers = sqliteAnswers(db)
  return async () => (await databaseAnswers()) && (await answersReady(`${paymentCommandUrl}/readyz`))
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

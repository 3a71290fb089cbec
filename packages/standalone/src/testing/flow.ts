// Helpers that drive a running standalone the way a merchant and a customer would.

import { createMerchantClient, type MerchantClient } from '@chainpay/test-client'
import type { StandaloneProcess } from './standalone-process.js'

/** what the helpers need of a running standalone, in a process of its own or in the test's */
type Standalone = Pick<StandaloneProcess, 'apiUrl' | 'baseUrl' | 'demoMerchant'>

export interface PaymentBody {
  paymentId: string
  status: string
  amount: string
  expectedAmount: string
  receivedAmount: string | null
  generatedAddress: string
  generatedTokenAccount: string | null
  txHash: string | null
  confirmations: number
  confirmedAt: string | null
  feeAmount: string
  netAmount: string
}

export function merchantClientFor(standalone: Standalone): MerchantClient {
  const merchant = standalone.demoMerchant()
  return createMerchantClient({
    baseUrl: standalone.apiUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
}

/** a customer's transfer on the simulated chain */
export async function pay(
  standalone: Standalone,
  network: string,
  transfer: { to: string; amount: string; currency: string },
  /** SIMULATOR_TOKEN, when standalone was given one */
  simulatorToken?: string,
): Promise<string> {
  const response = await fetch(`${standalone.baseUrl}/dev/chains/${network}/transfers`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(simulatorToken === undefined ? {} : { 'x-simulator-token': simulatorToken }),
    },
    body: JSON.stringify(transfer),
  })
  const body = (await response.json()) as { txHash: string }
  if (response.status !== 201) throw new Error(`transfer refused: ${response.status} ${JSON.stringify(body)}`)
  return body.txHash
}

/** polls GET /payments/:id until `predicate` holds */
export async function waitForPayment(
  client: MerchantClient,
  paymentId: string,
  predicate: (payment: PaymentBody) => boolean,
  timeoutMs = 60_000,
): Promise<PaymentBody> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    const response = await client.getPayment(paymentId)
    last = response.body
    if (response.status === 200 && predicate(response.body as PaymentBody))
      return response.body as PaymentBody
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`payment ${paymentId} did not reach the expected state; last seen: ${JSON.stringify(last)}`)
}

/**
 * a payment created and paid in full by a customer (an SPL payment into its token account, as a
 * wallet pays it), once confirmed
 */
export async function confirmedPayment(
  standalone: Standalone,
  request: { network: string; currency: string; amount: string },
): Promise<PaymentBody> {
  const client = merchantClientFor(standalone)
  const payment = (await client.createPayment(request as never)).body as PaymentBody
  const to = payment.generatedTokenAccount ?? payment.generatedAddress
  await pay(standalone, request.network, { to, amount: request.amount, currency: request.currency })
  return waitForPayment(client, payment.paymentId, (seen) => seen.status === 'confirmed')
}

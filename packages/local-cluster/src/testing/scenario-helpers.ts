// What the cross-process scenario tests do the way a merchant, a customer and an operator would: pay
// on the simulated chain, poll a payment through the gateway, scrape a service's /metrics.

import type { ReceivedWebhook } from '@chainpay/service-kit/testing'
import type { MerchantClient } from '@chainpay/test-client'

export interface PaymentBody {
  paymentId: string
  status: string
  network: string
  currency: string
  tokenStandard: string
  amount: string
  expectedAmount: string
  receivedAmount: string | null
  lateFunds: Array<{ txHash: string; amount: string; receivedAt: string }>
  generatedAddress: string
  generatedTokenAccount: string | null
  txHash: string | null
  confirmations: number
  createdAt: string
  confirmedAt: string | null
  expiresAt: string
  metadata: Record<string, unknown>
  feeAmount: string
  netAmount: string
  /** docs/api.md, "Prices in fiat" */
  priceAmount?: string | null
  rate?: { value: string; sources: string[]; at: string } | null
}

/** a customer's transfer, through the chain simulator's dev route; resolves with its tx hash */
export async function pay(
  chainSimulatorUrl: string,
  network: string,
  transfer: { to: string; amount: string; currency: string },
): Promise<string> {
  const response = await fetch(`${chainSimulatorUrl}/dev/chains/${network}/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(transfer),
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`transfer refused: ${response.status} ${text}`)
  return (JSON.parse(text) as { txHash: string }).txHash
}

/** polls `probe` until it returns something other than undefined */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`)
}

/** polls GET /payments/:id through the gateway until `predicate` holds */
export async function waitForPayment(
  client: MerchantClient,
  paymentId: string,
  predicate: (payment: PaymentBody) => boolean,
  timeoutMs = 90_000,
): Promise<PaymentBody> {
  let last: unknown
  try {
    return await eventually(
      `payment ${paymentId} reaching the expected state`,
      async () => {
        const response = await client.getPayment(paymentId)
        last = response.body
        const payment = response.body as PaymentBody
        return response.status === 200 && predicate(payment) ? payment : undefined
      },
      timeoutMs,
    )
  } catch (error) {
    throw new Error(`${(error as Error).message}; last seen: ${JSON.stringify(last)}`)
  }
}

/** the webhooks the receiver acknowledged for one payment, in the order they arrived */
export const acknowledgedFor = (received: readonly ReceivedWebhook[], paymentId: string): ReceivedWebhook[] =>
  received.filter((webhook) => webhook.answeredWith === 200 && webhook.body.payment.id === paymentId)

/** the event kinds delivered for one payment, each once, in the order first delivered */
export const deliveredEvents = (received: readonly ReceivedWebhook[], paymentId: string): string[] => [
  ...new Set(acknowledgedFor(received, paymentId).map((webhook) => webhook.body.event)),
]

export interface MetricsScrape {
  status: number
  contentType: string
  text: string
}

export async function scrapeMetrics(baseUrl: string): Promise<MetricsScrape> {
  const response = await fetch(`${baseUrl}/metrics`)
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  }
}

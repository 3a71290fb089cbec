// The merchant's whole journey on the distributed system: the five services as five processes over
// Kafka and a MongoDB-wire server (FerretDB in the test run). The same scenarios and expected values
// as the standalone's end-to-end tests, so that both shapes answer a merchant identically.

import { randomUUID } from 'node:crypto'
import { devRoutesNode, solanaWallet } from '@chainpay/chain-sim/testing'
import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import {
  openApiProblems,
  parsePrometheusText,
  type ReceivedWebhook,
  type ServedResponse,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@chainpay/service-kit/testing'
import {
  type ApiResponse,
  createMerchantClient,
  type MerchantClient,
  verifyWebhook,
} from '@chainpay/test-client'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CreatedMerchant } from './admin-client.js'
import { SERVICE_NAMES } from './cluster-plan.js'
import {
  acknowledgedFor,
  deliveredEvents,
  type PaymentBody,
  pay,
  scrapeMetrics,
  waitForPayment,
} from './testing/scenario-helpers.js'
import { startTestCluster, type TestCluster } from './testing/test-cluster.js'

const API_BASE = '/api/merchant/v1'
/** a real mainnet address (the receiver of a USDT transfer in mainnet block 69316562, chain-tron's fixtures), paid by nobody in these tests */
const SOMEONE_ELSE_ON_TRON = 'TXVj38D1XR3TPgSHTCZGC8wkLDAGqF1oqx'

let cluster: TestCluster
let merchant: CreatedMerchant
let client: MerchantClient
const receivers: WebhookReceiver[] = []

beforeAll(async () => {
  cluster = await startTestCluster({
    kafkaBrokers: testKafkaBrokers().join(','),
    mongodbUrl: testMongoDbUrl(),
    name: uniqueName('flow'),
    // Nile with a requirement far above the rest, so that a rollback certainly comes before finality
    chains: { networks: ['TRON', 'SOLANA', 'TRON_NILE'], requiredConfirmations: { TRON_NILE: 400 } },
  })
  merchant = await cluster.createMerchant('Distributed flow')
  client = clientOf(merchant)
  openApiDocument = await (await fetch(`${cluster.urls.gateway}${API_BASE}/openapi.json`)).text()
}, 180_000)

// every answer the merchant clients got, checked against the document the gateway serves (read
// at the start: the last test stops the services)
const served: ServedResponse[] = []
let openApiDocument = '{"paths":{}}'

afterAll(async () => {
  const problems = openApiProblems(openApiDocument, served)
  await cluster?.destroy()
  await Promise.all(receivers.map((receiver) => receiver.close()))
  expect(served.length).toBeGreaterThan(0)
  expect(problems).toEqual([])
})

// the services' logs tell what went wrong in which process: shown once, with the first failure
let logsShown = false
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    if (logsShown || !cluster) return
    logsShown = true
    process.stderr.write(`--- the cluster's services logged:\n${cluster.output().slice(-50_000)}\n`)
  })
})

function clientOf(owner: CreatedMerchant): MerchantClient {
  return recording(
    createMerchantClient({
      baseUrl: `${cluster.urls.gateway}${API_BASE}`,
      apiKey: owner.apiKey,
      apiSecret: owner.apiSecret,
    }),
  )
}

/** the client, its every answer kept in `served` */
function recording(client: MerchantClient): MerchantClient {
  const kept = (method: string, path: string) => (response: ApiResponse) => {
    const { body } = response
    served.push({
      method,
      url: `${API_BASE}${path}`,
      statusCode: response.status,
      contentType: response.headers['content-type'],
      body: body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    })
    return response
  }
  return {
    createPayment: (body, options) => client.createPayment(body, options).then(kept('POST', '/payments')),
    getPayment: (id) => client.getPayment(id).then(kept('GET', `/payments/${id}`)),
    cancelPayment: (id, options) =>
      client.cancelPayment(id, options).then(kept('POST', `/payments/${id}/cancel`)),
    request: (method, path, body, headers) =>
      client.request(method, path, body, headers).then(kept(method, path)),
  }
}

/** a webhook endpoint of the test's own, so that concurrent scenarios never see each other's */
async function newReceiver(): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver()
  receivers.push(receiver)
  return receiver
}

async function create(body: Record<string, unknown>): Promise<{ payment: PaymentBody; location: string }> {
  const response = await client.createPayment(body as never)
  if (response.status !== 201)
    throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`)
  return { payment: response.body as PaymentBody, location: response.headers.location ?? '' }
}

const transfer = (network: string, to: string, amount: string, currency: string) =>
  pay(cluster.urls.chainSimulator, network, { to, amount, currency })

async function waitForEvent(receiver: WebhookReceiver, paymentId: string, event: string): Promise<void> {
  await receiver.waitFor((received) => deliveredEvents(received, paymentId).includes(event))
}

function expectSignedByMerchant(webhooks: readonly ReceivedWebhook[]): void {
  expect(webhooks.length).toBeGreaterThan(0)
  for (const webhook of webhooks) {
    const verification = verifyWebhook(
      merchant.webhookSecret,
      {
        rawBody: webhook.rawBody,
        signature: webhook.headers['x-signature'] ?? '',
        timestamp: webhook.headers['x-timestamp'] ?? '',
        eventId: webhook.headers['x-event-id'] ?? '',
      },
      Math.floor(Date.now() / 1000),
    )
    expect(verification).toEqual({ ok: true })
    expect(webhook.headers['content-type']).toMatch(/^application\/json/)
    expect(webhook.headers['x-event-type']).toBe(webhook.body.event)
    expect(webhook.headers['x-timestamp']).toBe(String(webhook.body.timestamp))
    expect(webhook.headers['x-event-id']).toMatch(/\S/)
  }
}

async function submitTransaction(network: string, transaction: object): Promise<string> {
  const response = await fetch(`${cluster.urls.chainSimulator}/dev/chains/${network}/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(transaction),
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`transaction refused: ${response.status} ${text}`)
  return (JSON.parse(text) as { txHash: string }).txHash
}

const errorOf = (body: unknown) => (body as { error: { code: string; message: string } }).error

describe('on five processes over Kafka and FerretDB', () => {
  // a real minute each (expiresInMinutes is at least 1): first, so that the others run meanwhile in
  // the remaining slots (vitest runs at most maxConcurrency, 5, concurrent tests at a time)
  it.concurrent('a pending payment with nothing received expires at expiresAt, the merchant is told, and later funds are reported', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '1',
      currency: 'TRX',
      network: 'TRON',
      expiresInMinutes: 1,
      callbackUrl: receiver.url,
    })
    const expired = await waitForPayment(client, created.paymentId, (p) => p.status === 'expired', 120_000)
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(created.expiresAt))
    expect(expired).toMatchObject({ receivedAmount: null, txHash: null, confirmedAt: null })
    await waitForEvent(receiver, created.paymentId, 'payment.expired')

    const lateTx = await transfer('TRON', created.generatedAddress, '1', 'TRX')
    await waitForEvent(receiver, created.paymentId, 'payment.late_funds')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      'payment.pending',
      'payment.expired',
      'payment.late_funds',
    ])
    const delivered = acknowledgedFor(receiver.received, created.paymentId)
    expectSignedByMerchant(delivered)
    expect(delivered.find((r) => r.body.event === 'payment.late_funds')?.body.payment).toMatchObject({
      status: 'EXPIRED',
      late_funds: { tx_hash: lateTx, amount: '1' },
    })
    const withLateFunds = await waitForPayment(client, created.paymentId, (p) => p.lateFunds.length > 0)
    expect(withLateFunds).toMatchObject({
      status: 'expired',
      lateFunds: [{ txHash: lateTx, amount: '1', receivedAt: expect.any(String) }],
      receivedFeeAmount: null,
    })
    // the history, from payment-command's event store through its command API
    const history = await client.request('GET', `/payments/${created.paymentId}/events`)
    expect(history.status).toBe(200)
    expect((history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.expired',
      'late_funds.received',
    ])
  }, 150_000)

  it.concurrent('an underpaid payment is final at expiresAt: a top-up afterwards is reported as late funds', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '10',
      currency: 'TRX',
      network: 'TRON',
      expiresInMinutes: 1,
      callbackUrl: receiver.url,
    })
    await transfer('TRON', created.generatedAddress, '4', 'TRX')
    await waitForPayment(client, created.paymentId, (p) => p.status === 'underpaid')
    // the top-up's block must be later than expiresAt: wait on the clock the simulator's blocks use
    const afterExpiry = Date.parse(created.expiresAt) + 2_000 - Date.now()
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, afterExpiry)))

    const lateTx = await transfer('TRON', created.generatedAddress, '6', 'TRX')
    await waitForEvent(receiver, created.paymentId, 'payment.late_funds')
    // the shortfall became final at expiresAt (payment.underpaid_final), whichever of that and the
    // late transfer's confirmations came first
    await waitForEvent(receiver, created.paymentId, 'payment.underpaid_final')
    expect(
      deliveredEvents(receiver.received, created.paymentId).filter(
        (event) => event !== 'payment.underpaid_final',
      ),
    ).toEqual(['payment.pending', 'payment.transfer_detected', 'payment.underpaid', 'payment.late_funds'])
    expect(
      acknowledgedFor(receiver.received, created.paymentId).find((r) => r.body.event === 'payment.late_funds')
        ?.body.payment,
    ).toMatchObject({ status: 'UNDERPAID', late_funds: { tx_hash: lateTx, amount: '6' } })
    expect((await client.getPayment(created.paymentId)).body).toMatchObject({
      status: 'underpaid',
      receivedAmount: '4',
    })
  }, 150_000)

  it.concurrent('prices a payment in fiat at the rate payment-command locks, in GET and the webhooks; no rate is 503 RATE_UNAVAILABLE and nothing created', async () => {
    const receiver = await newReceiver()
    // the simulated rates live in payment-command; the gateway forwards /dev/rates to its command API
    const setRate = async (rate: Record<string, string>) => {
      const response = await fetch(`${cluster.urls.gateway}/dev/rates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rate),
      })
      expect(response.status, await response.text()).toBe(200)
    }
    await setRate({ base: 'SOL', quote: 'USD', value: '150' })
    const { payment: created } = await create({
      priceAmount: '10',
      priceCurrency: 'USD',
      currency: 'SOL',
      network: 'SOLANA',
      callbackUrl: receiver.url,
    })
    // 10 / 150 = 0.0666...: rounded up to SOL's 9 decimals
    const priced = {
      amount: '0.066666667',
      expectedAmount: '0.066666667',
      priceAmount: '10',
      priceCurrency: 'USD',
      rate: { value: '150', sources: ['simulated'], at: expect.any(String) },
    }
    expect(created).toMatchObject(priced)
    expect((await client.getPayment(created.paymentId)).body).toMatchObject(priced)
    await waitForEvent(receiver, created.paymentId, 'payment.pending')
    expect(acknowledgedFor(receiver.received, created.paymentId)[0]?.body.payment).toMatchObject({
      amount: 0.066666667,
      price_amount: '10',
      price_currency: 'USD',
      rate: created.rate,
    })

    await setRate({ base: 'SOL', quote: 'EUR', value: '140', failure: 'timeout' })
    const body = {
      priceAmount: '10',
      priceCurrency: 'EUR',
      currency: 'SOL',
      network: 'SOLANA',
      idempotencyKey: `fiat-${randomUUID()}`,
    }
    const refused = await client.createPayment(body as never)
    expect(refused.status).toBe(503)
    expect(errorOf(refused.body).code).toBe('RATE_UNAVAILABLE')
    await setRate({ base: 'SOL', quote: 'EUR', value: '140' })
    // nothing was created: the same key now creates (201), it does not replay (200)
    const later = await client.createPayment(body as never)
    expect(later.status).toBe(201)
    expect(later.body).toMatchObject({ amount: '0.071428572', rate: { value: '140' } })
  }, 60_000)

  it.concurrent('an invoice: created, picked and re-picked on its page, paid; its read model on FerretDB and invoice.paid', async () => {
    const receiver = await newReceiver()
    const created = await client.request(
      'POST',
      '/invoices',
      JSON.stringify({
        priceAmount: '10.00',
        priceCurrency: 'USD',
        accepted: [
          { currency: 'TRX', network: 'TRON' },
          { currency: 'USDT', network: 'TRON' },
        ],
        callbackUrl: receiver.url,
        idempotencyKey: `invoice-${randomUUID()}`,
      }),
      { 'content-type': 'application/json' },
    )
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const invoice = created.body as { invoiceId: string; checkoutUrl: string }
    const invoicePage = `${cluster.urls.gateway}${new URL(invoice.checkoutUrl).pathname}`
    expect(await (await fetch(invoicePage)).text()).toContain('USDT on TRON')
    // the customer's picks, as the page's form sends them: through the gateway and the command API
    const pick = async (asset: string) => {
      const response = await fetch(`${invoicePage}/pick`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'null',
          'sec-fetch-site': 'same-origin',
        },
        body: new URLSearchParams({ asset }).toString(),
      })
      expect(response.status, await response.text()).toBe(303)
    }
    await pick('TRX:TRON')
    await pick('USDT:TRON')
    const read = async () =>
      (await client.request('GET', `/invoices/${invoice.invoiceId}`)).body as {
        status: string
        paidPaymentId: string | null
        payments: Array<{ paymentId: string; currency: string }>
      }
    const picked = await read()
    expect(picked.payments.map((payment) => payment.currency)).toEqual(['TRX', 'USDT'])
    const [first, second] = picked.payments.map((payment) => payment.paymentId) as [string, string]
    expect(((await client.getPayment(first)).body as PaymentBody).status).toBe('canceled')
    const payment = (await client.getPayment(second)).body as PaymentBody & { invoiceId: string }
    expect(payment).toMatchObject({ status: 'pending', amount: '10', invoiceId: invoice.invoiceId })

    await transfer('TRON', payment.generatedAddress, '10', 'USDT')
    await waitForPayment(client, second, (seen) => seen.status === 'confirmed', 60_000)
    await expect.poll(async () => (await read()).status, { timeout: 30_000 }).toBe('paid')
    expect((await read()).paidPaymentId).toBe(second)
    // the projection's read model (FerretDB) lists it, and the notifier announced it
    await expect
      .poll(
        async () => {
          const listed = (await client.request('GET', '/invoices?status=paid')).body as {
            data: Array<{ invoiceId: string }>
          }
          return listed.data.some((listedInvoice) => listedInvoice.invoiceId === invoice.invoiceId)
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    const delivered = await receiver.waitFor(
      (all) => all.some((webhook) => webhook.body.event === 'invoice.paid'),
      30_000,
    )
    const webhook = delivered.find((candidate) => candidate.body.event === 'invoice.paid')
    if (webhook === undefined) throw new Error('no invoice.paid webhook')
    expect((webhook.body as unknown as { invoice: unknown }).invoice).toMatchObject({
      id: invoice.invoiceId,
      status: 'PAID',
      paid_payment_id: second,
    })
  }, 90_000)

  it.concurrent('creates, reads its write at once, confirms after 20 TRON confirmations and delivers signed webhooks in order, retried under one event id', async () => {
    const receiver = await newReceiver()
    // the first two attempts fail: the retries must carry the event id of the first attempt
    receiver.failNext(2)
    const body = {
      amount: '25.50',
      currency: 'USDT',
      network: 'TRON',
      description: 'Order #1001',
      metadata: { orderId: '1001' },
      callbackUrl: receiver.url,
      successRedirectUrl: 'https://shop.example/ok',
      cancelRedirectUrl: 'https://shop.example/cancel',
    }
    const { payment: created, location } = await create(body)
    expect(location).toBe(`${API_BASE}/payments/${created.paymentId}`)
    expect(created).toEqual({
      paymentId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      status: 'pending',
      network: 'TRON',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      amount: '25.50',
      expectedAmount: '25.5',
      receivedAmount: null,
      generatedAddress: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
      generatedTokenAccount: null,
      addressMode: 'PER_PAYMENT',
      merchantUserId: null,
      txHash: null,
      confirmations: 0,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      confirmedAt: null,
      expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      metadata: { orderId: '1001' },
      callbackUrl: receiver.url,
      successRedirectUrl: 'https://shop.example/ok',
      cancelRedirectUrl: 'https://shop.example/cancel',
      feeAmount: '0.255',
      netAmount: '25.245',
      description: 'Order #1001',
      requiredConfirmations: 20,
      lateFunds: [],
      receivedFeeAmount: null,
      receivedNetAmount: null,
      foreignFunds: [],
      checkoutUrl: expect.stringMatching(new RegExp(`^${cluster.urls.gateway}/pay/[A-Za-z0-9_-]{44}$`)),
      priceAmount: null,
      priceCurrency: null,
      rate: null,
      underpaymentTolerancePercent: '0',
      shortfallAmount: null,
      invoiceId: null,
    })
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(30 * 60_000)

    // read your writes: right after the 201, before the projection may have caught up
    const readBack = await client.getPayment(created.paymentId)
    expect(readBack.status).toBe(200)
    const { callbackUrl, successRedirectUrl, cancelRedirectUrl, ...withoutUrls } = created as PaymentBody & {
      callbackUrl: string
      successRedirectUrl: string
      cancelRedirectUrl: string
    }
    expect(readBack.body).toEqual(withoutUrls)

    const txHash = await transfer('TRON', created.generatedAddress, '25.5', 'USDT')
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({
      receivedAmount: '25.5',
      txHash,
      confirmations: 20,
      feeAmount: '0.255',
      netAmount: '25.245',
      receivedFeeAmount: '0.255',
      receivedNetAmount: '25.245',
      metadata: { orderId: '1001' },
    })
    expect(confirmed.confirmedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(confirmed).not.toHaveProperty('callbackUrl')

    // a confirmed payment cannot be canceled
    const cancel = await client.cancelPayment(created.paymentId)
    expect(cancel.status).toBe(409)
    expect(errorOf(cancel.body).code).toBe('PAYMENT_NOT_CANCELABLE')

    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
    const delivered = acknowledgedFor(receiver.received, created.paymentId)
    expectSignedByMerchant(delivered)
    const attempts = receiver.received.filter((r) => r.body.payment.id === created.paymentId)
    const pendingAttempts = attempts.filter((r) => r.body.event === 'payment.pending')
    // at least once: a redelivery after the acknowledgement would be allowed
    expect(pendingAttempts.map((r) => r.answeredWith).slice(0, 3)).toEqual([500, 500, 200])
    expect(new Set(pendingAttempts.map((r) => r.headers['x-event-id'])).size).toBe(1)
    const eventIdOf = (event: string) => delivered.find((r) => r.body.event === event)?.headers['x-event-id']
    expect(eventIdOf('payment.confirmed')).not.toBe(eventIdOf('payment.pending'))

    const pendingHook = delivered.find((r) => r.body.event === 'payment.pending')
    expect(pendingHook?.body.payment).toMatchObject({ status: 'PENDING', tx_hash: null })
    const confirmedHook = delivered.find((r) => r.body.event === 'payment.confirmed')
    expect(confirmedHook?.body.payment).toMatchObject({
      id: created.paymentId,
      status: 'CONFIRMED',
      tx_hash: txHash,
      currency: 'USDT',
      network: 'TRON',
      expected_amount: '25.5',
      received_amount: '25.5',
      confirmations: 20,
      metadata: { orderId: '1001' },
    })
    // the amount is a JSON number with the digits as sent
    expect(confirmedHook?.rawBody).toContain('"amount":25.50,')

    // the customer's page: named in every webhook, served by the gateway from the read model
    const { checkoutUrl } = created as PaymentBody & { checkoutUrl: string }
    expect(confirmedHook?.body.payment.checkout_url).toBe(checkoutUrl)
    const page = await fetch(checkoutUrl)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Paid. Thank you!')
  })

  it.concurrent('settles an SPL payment sent to its address (the owner, as wallets send) after 32 Solana confirmations', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '3',
      currency: 'USDC',
      network: 'SOLANA',
      callbackUrl: receiver.url,
    })
    expect(created).toMatchObject({ tokenStandard: 'SPL', feeAmount: '0.03', netAmount: '2.97' })
    expect(created.generatedTokenAccount).toEqual(expect.any(String))
    expect(created.generatedTokenAccount).not.toBe(created.generatedAddress)
    // a wallet sends to the owner; the tokens land in its associated token account (generatedTokenAccount)
    const txHash = await transfer('SOLANA', created.generatedAddress, '3', 'USDC')
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({ receivedAmount: '3', txHash, confirmations: 32 })
    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
  })

  it.concurrent('underpaid, then a top-up before expiry confirms it', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '10',
      currency: 'TRX',
      network: 'TRON',
      callbackUrl: receiver.url,
    })
    const first = await transfer('TRON', created.generatedAddress, '4', 'TRX')
    const underpaid = await waitForPayment(client, created.paymentId, (p) => p.status === 'underpaid')
    expect(underpaid).toMatchObject({ receivedAmount: '4', txHash: first, confirmations: 20 })
    expect(underpaid.confirmedAt).not.toBeNull()

    const topUp = await transfer('TRON', created.generatedAddress, '6', 'TRX')
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({
      receivedAmount: '10',
      txHash: topUp,
      feeAmount: '0.1',
      netAmount: '9.9',
    })
    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      // each kind once (deliveredEvents): the top-up's payment.transfer_detected is the second of its kind
      'payment.pending',
      'payment.transfer_detected',
      'payment.underpaid',
      'payment.confirmed',
    ])
    const underpaidHook = acknowledgedFor(receiver.received, created.paymentId).find(
      (r) => r.body.event === 'payment.underpaid',
    )
    expect(underpaidHook?.body.payment).toMatchObject({ status: 'UNDERPAID', received_amount: '4' })
  })

  it.concurrent('overpaid when more than expected arrives', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '1.5',
      currency: 'SOL',
      network: 'SOLANA',
      callbackUrl: receiver.url,
    })
    expect(created).toMatchObject({ tokenStandard: 'NATIVE', generatedTokenAccount: null })
    const txHash = await transfer('SOLANA', created.generatedAddress, '1.75', 'SOL')
    const overpaid = await waitForPayment(client, created.paymentId, (p) => p.status === 'overpaid')
    expect(overpaid).toMatchObject({
      receivedAmount: '1.75',
      txHash,
      confirmations: 32,
      expectedAmount: '1.5',
    })
    await waitForEvent(receiver, created.paymentId, 'payment.overpaid')

    // after settlement, further funds are reported and change nothing
    const lateTx = await transfer('SOLANA', created.generatedAddress, '0.25', 'SOL')
    await waitForEvent(receiver, created.paymentId, 'payment.late_funds')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.overpaid',
      'payment.late_funds',
    ])
    expect(
      acknowledgedFor(receiver.received, created.paymentId).find((r) => r.body.event === 'payment.late_funds')
        ?.body.payment,
    ).toMatchObject({ status: 'OVERPAID', late_funds: { tx_hash: lateTx, amount: '0.25' } })
    expect((await client.getPayment(created.paymentId)).body).toMatchObject({
      status: 'overpaid',
      receivedAmount: '1.75',
      txHash,
    })
  })

  it.concurrent('counts USDC a wallet pays to any token account of the owner; SOL and USDT there are foreign funds; the rent of the account it creates is nothing (decisions 19)', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '12.5',
      currency: 'USDC',
      network: 'SOLANA',
      callbackUrl: receiver.url,
    })
    const node = devRoutesNode(cluster.urls.chainSimulator)
    const wallet = await solanaWallet(node, 'SOLANA')
    const other = (await node.simulator.openTokenAccount('SOLANA', {
      owner: created.generatedAddress,
      currency: 'USDC',
    })) as unknown as { address: string }
    await wallet.pay([
      { to: created.generatedAddress, amount: '10', currency: 'USDC' },
      { to: created.generatedAddress, amount: '2.5', currency: 'USDC', tokenAccount: other.address },
      { to: created.generatedAddress, amount: '0.01', currency: 'SOL' },
      { to: created.generatedAddress, amount: '3', currency: 'USDT' },
    ])
    const paid = await waitForPayment(
      client,
      created.paymentId,
      (p) =>
        p.status === 'confirmed' && (p as unknown as { foreignFunds: unknown[] }).foreignFunds.length === 2,
    )
    expect(paid).toMatchObject({ receivedAmount: '12.5' })
    expect(
      (paid as unknown as { foreignFunds: Array<{ currency: string; amount: string }> }).foreignFunds
        .map(({ currency, amount }) => `${amount} ${currency}`)
        .sort(),
    ).toEqual(['0.01 SOL', '3 USDT'])
    // one payment.foreign_funds per currency, none for the new token account's rent
    const foreignWebhooks = (received: readonly ReceivedWebhook[]) =>
      acknowledgedFor(received, created.paymentId).filter(
        (webhook) => webhook.body.event === 'payment.foreign_funds',
      )
    await receiver.waitFor((received) => foreignWebhooks(received).length >= 2)
    expect(
      foreignWebhooks(receiver.received)
        .map(
          (webhook) =>
            (webhook.body.payment as unknown as { foreign_funds: { currency: string } }).foreign_funds
              .currency,
        )
        .sort(),
    ).toEqual(['SOL', 'USDT'])
  })

  it.concurrent('counts each transfer of a multi-transfer transaction and never a failed one', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '7',
      currency: 'USDT',
      network: 'TRON',
      callbackUrl: receiver.url,
    })
    const to = created.generatedAddress
    const reverted = await submitTransaction('TRON', {
      transfers: [{ to, amount: '7', currency: 'USDT' }],
      failure: 'REVERT',
    })
    const outOfEnergy = await submitTransaction('TRON', {
      transfers: [{ to, amount: '7', currency: 'USDT' }],
      failure: 'OUT_OF_ENERGY',
    })
    // a multisend: one TriggerSmartContract, three Transfer logs, two of them to this payment
    const multisend = await submitTransaction('TRON', {
      transfers: [
        { to, amount: '3', currency: 'USDT' },
        { to: SOMEONE_ELSE_ON_TRON, amount: '100', currency: 'USDT' },
        { to, amount: '4', currency: 'USDT' },
      ],
    })
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed).toMatchObject({ receivedAmount: '7', txHash: multisend, confirmations: 20 })
    expect([reverted, outOfEnergy]).not.toContain(confirmed.txHash)
    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
  })

  it.concurrent('a counted transfer a fork pops and the chain includes again counts once: the payment confirms, never fails', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '5',
      currency: 'TRX',
      network: 'TRON_NILE',
      callbackUrl: receiver.url,
    })
    const txHash = await transfer('TRON_NILE', created.generatedAddress, '5', 'TRX')
    const seen = await waitForPayment(client, created.paymentId, (p) => p.txHash === txHash)
    expect(seen).toMatchObject({ status: 'pending', receivedAmount: '5' })

    // popped in a fork before finality, and back in the mempool as java-tron puts it (docs/api.md,
    // "Transfers the chain takes back"): in doubt, then counted again
    const popped = await fetch(
      `${cluster.urls.chainSimulator}/dev/chains/TRON_NILE/transactions/${txHash}/drop`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"requeue":true}' },
    )
    expect(popped.status).toBe(200)
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status !== 'pending')
    expect(confirmed).toMatchObject({ status: 'confirmed', receivedAmount: '5', txHash })
    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
    const events = deliveredEvents(receiver.received, created.paymentId)
    expect(events.slice(0, 2)).toEqual(['payment.pending', 'payment.transfer_detected'])
    expect(events.at(-1)).toBe('payment.confirmed')
    expect(events).not.toContain('payment.failed')
  })

  it.concurrent('cancels a pending payment, reports it, and reports funds that arrive afterwards without changing the status', async () => {
    const receiver = await newReceiver()
    const { payment: created } = await create({
      amount: '5',
      currency: 'USDT',
      network: 'TRON',
      callbackUrl: receiver.url,
    })
    const canceled = await client.cancelPayment(created.paymentId)
    expect(canceled.status).toBe(200)
    expect(canceled.body).toMatchObject({ paymentId: created.paymentId, status: 'canceled' })
    // read your writes after a cancel too
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('canceled')
    const again = await client.cancelPayment(created.paymentId)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(canceled.body)

    const lateTx = await transfer('TRON', created.generatedAddress, '5', 'USDT')
    await waitForEvent(receiver, created.paymentId, 'payment.late_funds')
    expect(deliveredEvents(receiver.received, created.paymentId)).toEqual([
      'payment.pending',
      'payment.canceled',
      'payment.late_funds',
    ])
    const delivered = acknowledgedFor(receiver.received, created.paymentId)
    expectSignedByMerchant(delivered)
    const lateHook = delivered.find((r) => r.body.event === 'payment.late_funds')
    expect(lateHook?.body.payment).toMatchObject({
      status: 'CANCELED',
      late_funds: { tx_hash: lateTx, amount: '5' },
    })
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('canceled')
  })

  it.concurrent("the customer's page through the gateway: shown with its headers, canceled by the customer's form", async () => {
    const receiver = await newReceiver()
    const cancelRedirectUrl = 'https://shop.example/cancel'
    const { payment: created } = await create({
      amount: '7.25',
      currency: 'USDT',
      network: 'TRON',
      callbackUrl: receiver.url,
      cancelRedirectUrl,
    })
    const { checkoutUrl } = created as PaymentBody & { checkoutUrl: string }
    const page = await fetch(checkoutUrl)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'self';/)
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://shop.example;")
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await page.text()).toContain(
      '<span class="mono amount" id="amount">7.25</span> <span class="amount">USDT</span>',
    )

    // as the cancel confirmation's form posts it: same origin, Origin null under no-referrer
    const canceled = await fetch(`${checkoutUrl}/cancel`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        origin: 'null',
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
    })
    expect(canceled.status).toBe(303)
    expect(canceled.headers.get('location')).toBe(cancelRedirectUrl)
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).status).toBe('canceled')
    const history = await client.request('GET', `/payments/${created.paymentId}/events`)
    expect((history.body as { data: Array<{ type: string; data: object }> }).data.at(-1)).toMatchObject({
      type: 'payment.canceled',
      data: { canceledBy: 'customer' },
    })
    await waitForEvent(receiver, created.paymentId, 'payment.canceled')
    expectSignedByMerchant(acknowledgedFor(receiver.received, created.paymentId))
  })

  it.concurrent('20 concurrent duplicates create exactly one payment; the key with another body is refused', async () => {
    const body = {
      amount: '7',
      currency: 'USDT',
      network: 'TRON',
      idempotencyKey: uniqueName('dup'),
    }
    const responses = await Promise.all(Array.from({ length: 20 }, () => client.createPayment(body as never)))
    const ids = new Set(responses.map((r) => (r.body as PaymentBody).paymentId))
    expect(ids.size).toBe(1)
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201])
    const replays = responses.filter((r) => r.status === 200)
    for (const replay of replays) expect(replay.headers['idempotent-replayed']).toBe('true')
    const original = responses.find((r) => r.status === 201)
    for (const replay of replays) expect(replay.body).toEqual(original?.body)

    const reused = await client.createPayment({ ...body, amount: '8' } as never)
    expect(reused.status).toBe(409)
    expect(errorOf(reused.body).code).toBe('IDEMPOTENCY_KEY_REUSED')
  })

  it.concurrent('returns metadata keys such as $where and a.b exactly as sent: create, GET, webhooks', async () => {
    const receiver = await newReceiver()
    const metadata = {
      $where: 'function () { return true }',
      'a.b': 'dotted',
      '$inc.x': 1.5,
      'x.y.z': true,
      plain: null,
      'üñí.$': 'unicode',
    }
    const { payment: created } = await create({
      amount: '2',
      currency: 'TRX',
      network: 'TRON',
      metadata,
      callbackUrl: receiver.url,
    })
    expect(created.metadata).toEqual(metadata)
    expect(((await client.getPayment(created.paymentId)).body as PaymentBody).metadata).toEqual(metadata)

    await transfer('TRON', created.generatedAddress, '2', 'TRX')
    // confirmed comes from the projection's document, not the gateway's write-through at creation
    const confirmed = await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed')
    expect(confirmed.metadata).toEqual(metadata)
    await waitForEvent(receiver, created.paymentId, 'payment.confirmed')
    for (const webhook of acknowledgedFor(receiver.received, created.paymentId)) {
      expect(webhook.body.payment.metadata).toEqual(metadata)
    }
  })

  it.concurrent('answers bad requests with the error codes of docs/api.md, "Errors"', async () => {
    const request = (method: string, path: string, body?: string, headers?: Record<string, string>) =>
      client.request(method, path, body, headers)
    const expectError = (
      response: { status: number; headers: Record<string, string>; body: unknown },
      status: number,
      code: string,
    ) => {
      expect({ status: response.status, code: errorOf(response.body)?.code }).toEqual({ status, code })
      expect(Object.keys(response.body as object)).toEqual(['error'])
      expect(Object.keys(errorOf(response.body)).sort()).toEqual(['code', 'message'])
      expect(response.headers['x-request-id']).toMatch(/\S/)
    }
    const valid = { amount: '1', currency: 'USDT', network: 'TRON' }

    expectError(await client.createPayment({ ...valid, colour: 'red' } as never), 400, 'VALIDATION_ERROR')
    expectError(
      await client.createPayment({ currency: 'USDT', network: 'TRON' } as never),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await client.createPayment({ ...valid, amount: '1.1234567' }), 400, 'VALIDATION_ERROR')
    expectError(await client.createPayment(valid, { rawBody: '{"amount":' }), 400, 'VALIDATION_ERROR')
    expectError(await client.createPayment({ ...valid, currency: 'DOGE' }), 400, 'UNSUPPORTED_ASSET')
    expectError(
      await request('POST', '/payments', JSON.stringify(valid), { 'x-service-signature': '0'.repeat(64) }),
      401,
      'INVALID_SIGNATURE',
    )
    expectError(
      await clientOf({ ...merchant, apiKey: `${merchant.apiKey}x` }).createPayment(valid),
      401,
      'INVALID_API_KEY',
    )
    const unsigned = await fetch(`${cluster.urls.gateway}${API_BASE}/payments/${randomUUID()}`)
    expectError(
      { status: unsigned.status, headers: Object.fromEntries(unsigned.headers), body: await unsigned.json() },
      401,
      'MISSING_AUTH_HEADERS',
    )
    expectError(await client.getPayment(randomUUID()), 404, 'PAYMENT_NOT_FOUND')
    expectError(await client.cancelPayment(randomUUID()), 404, 'PAYMENT_NOT_FOUND')
    expectError(await client.getPayment('not-a-uuid'), 400, 'VALIDATION_ERROR')
    expectError(
      await request('POST', '/payments', JSON.stringify(valid), { 'content-type': 'text/plain' }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    expectError(await request('GET', '/no-such-route'), 404, 'NOT_FOUND')
    expectError(await request('DELETE', `/payments/${randomUUID()}`), 405, 'METHOD_NOT_ALLOWED')
    expectError(
      await client.createPayment({ ...valid, description: 'x'.repeat(70 * 1024) }),
      413,
      'PAYLOAD_TOO_LARGE',
    )
    const skewed = createMerchantClient({
      baseUrl: `${cluster.urls.gateway}${API_BASE}`,
      apiKey: merchant.apiKey,
      apiSecret: merchant.apiSecret,
      now: () => Date.now() - 10 * 60_000,
    })
    expectError(await skewed.createPayment(valid), 401, 'INVALID_TIMESTAMP')

    // another merchant's payment does not exist for this one
    const other = clientOf(await cluster.createMerchant('Another merchant'))
    const theirs = await other.createPayment(valid)
    expect(theirs.status).toBe(201)
    const theirId = (theirs.body as PaymentBody).paymentId
    expectError(await client.getPayment(theirId), 404, 'PAYMENT_NOT_FOUND')
    expectError(await client.cancelPayment(theirId), 404, 'PAYMENT_NOT_FOUND')
    expect(((await other.getPayment(theirId)).body as PaymentBody).status).toBe('pending')
    expectError(await request('GET', `/payments/${theirId}/events`), 404, 'PAYMENT_NOT_FOUND')
    expectError(await request('GET', '/payments?limit=0'), 400, 'VALIDATION_ERROR')
  })

  it.concurrent('a webhook endpoint: signed with its secret, both secrets during a rotation, listed, redelivered to its new URL', async () => {
    // a merchant of its own: an endpoint is sent every payment of its merchant
    const shop = clientOf(await cluster.createMerchant('Webhook endpoints'))
    const [first, second] = [await newReceiver(), await newReceiver()]
    const created = await shop.request('POST', '/webhook-endpoints', JSON.stringify({ url: first.url }))
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const endpoint = created.body as { id: string; secret: string }
    const signedWith = (secret: string, webhook: ReceivedWebhook | undefined, header = 'x-signature') =>
      verifyWebhook(
        secret,
        {
          rawBody: webhook?.rawBody ?? '',
          signature: webhook?.headers[header] ?? '',
          timestamp: webhook?.headers['x-timestamp'] ?? '',
          eventId: webhook?.headers['x-event-id'] ?? '',
        },
        Math.floor(Date.now() / 1000),
      )

    const payment = (await shop.createPayment({ amount: '1', currency: 'TRX', network: 'TRON' }))
      .body as PaymentBody
    await waitForEvent(first, payment.paymentId, 'payment.pending')
    const pending = acknowledgedFor(first.received, payment.paymentId)[0]
    expect(signedWith(endpoint.secret, pending)).toEqual({ ok: true })

    const rotated = await shop.request('POST', `/webhook-endpoints/${endpoint.id}/rotate-secret`, '{}')
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200)
    const newSecret = (rotated.body as { secret: string }).secret
    await transfer('TRON', payment.generatedAddress, '1', 'TRX')
    await waitForEvent(first, payment.paymentId, 'payment.confirmed')
    const confirmed = acknowledgedFor(first.received, payment.paymentId).find(
      (webhook) => webhook.body.event === 'payment.confirmed',
    )
    expect(signedWith(newSecret, confirmed)).toEqual({ ok: true })
    expect(signedWith(endpoint.secret, confirmed, 'x-signature-previous')).toEqual({ ok: true })

    const patched = await shop.request(
      'PATCH',
      `/webhook-endpoints/${endpoint.id}`,
      JSON.stringify({ url: second.url }),
    )
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const listed = await shop.request('GET', `/webhook-deliveries?paymentId=${payment.paymentId}`)
    expect(listed.status, JSON.stringify(listed.body)).toBe(200)
    const deliveries = (listed.body as { data: Array<{ id: string; eventId: string; eventType: string }> })
      .data
    expect(deliveries.map((delivery) => delivery.eventType).sort()).toEqual([
      'payment.confirmed',
      'payment.pending',
      'payment.transfer_detected',
    ])
    expect(deliveries).toEqual(
      deliveries.map(() => expect.objectContaining({ endpointId: endpoint.id, url: second.url })),
    )
    const redelivered = deliveries.find((delivery) => delivery.eventType === 'payment.pending')
    expect(redelivered?.eventId).toBe(pending?.headers['x-event-id'])
    const accepted = await shop.request('POST', `/webhook-deliveries/${redelivered?.id}/redeliver`)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    await waitForEvent(second, payment.paymentId, 'payment.pending')
    const again = acknowledgedFor(second.received, payment.paymentId)
    expect(again.map((webhook) => webhook.headers['x-event-id'])).toEqual([redelivered?.eventId])
    expect(signedWith(newSecret, again[0])).toEqual({ ok: true })

    // a test event: put in line by the gateway, sent by the notifier it wakes over Kafka
    const tested = await shop.request('POST', `/webhook-endpoints/${endpoint.id}/test`, '{}')
    expect(tested.status, JSON.stringify(tested.body)).toBe(202)
    const test = tested.body as { paymentId: string; eventId: string }
    await waitForEvent(second, test.paymentId, 'payment.confirmed')
    const [testWebhook] = acknowledgedFor(second.received, test.paymentId)
    expect(testWebhook?.headers['x-event-id']).toBe(test.eventId)
    expect((testWebhook?.body as { test?: boolean } | undefined)?.test).toBe(true)
    expect(signedWith(newSecret, testWebhook)).toEqual({ ok: true })
  })

  it.concurrent('lists a merchant’s payments from MongoDB a page at a time, newest first, and filters them', async () => {
    const shop = clientOf(await cluster.createMerchant('Reading back'))
    const ids: string[] = []
    for (const amount of ['1', '2', '3']) {
      const response = await shop.createPayment({ amount, currency: 'TRX', network: 'TRON' })
      expect(response.status).toBe(201)
      ids.push((response.body as PaymentBody).paymentId)
    }
    const canceled = ids[1] as string
    expect((await shop.cancelPayment(canceled)).status).toBe(200)
    type Page = { data: PaymentBody[]; nextCursor: string | null }
    const page = async (query: string) => {
      const response = await shop.request('GET', `/payments${query}`)
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return response.body as Page
    }
    // the creates and the cancel are written through to the read model: listed at once
    const first = await page('?limit=2')
    expect(first.data.map((payment) => payment.paymentId)).toEqual([ids[2], ids[1]])
    expect(first.data[1]).toEqual((await shop.getPayment(canceled)).body)
    const second = await page(`?limit=2&cursor=${first.nextCursor}`)
    expect(second).toEqual({ data: [expect.objectContaining({ paymentId: ids[0] })], nextCursor: null })
    expect((await page('?status=canceled')).data.map((payment) => payment.paymentId)).toEqual([canceled])
    expect((await page('?status=pending,canceled&network=SOLANA')).data).toEqual([])
    const history = await shop.request('GET', `/payments/${canceled}/events`)
    expect((history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)).toEqual([
      'payment.created',
      'payment.canceled',
    ])
  })
})

describe('metrics after the flow', () => {
  /** every sample of `name` whose labels include `labels` */
  const samples = (text: string, name: string, labels: Record<string, string> = {}) =>
    parsePrometheusText(text).filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    )
  const total = (text: string, name: string, labels: Record<string, string> = {}) =>
    samples(text, name, labels).reduce((sum, sample) => sum + sample.value, 0)

  it('every service answers /metrics on its METRICS_PORT with Prometheus text showing what it did', async () => {
    const { metricsUrls } = cluster
    const scrapes = Object.fromEntries(
      await Promise.all(
        Object.entries(metricsUrls).map(async ([name, url]) => [name, await scrapeMetrics(url)] as const),
      ),
    )
    for (const [name, scrape] of Object.entries(scrapes)) {
      expect({ name, status: scrape.status }).toEqual({ name, status: 200 })
      expect(scrape.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
      expect(() => parsePrometheusText(scrape.text)).not.toThrow()
    }
    const text = (name: keyof typeof metricsUrls) => scrapes[name]?.text ?? ''

    expect(
      total(text('gateway'), 'chainpay_http_request_duration_seconds_count', {
        method: 'POST',
        status_code: '201',
      }),
    ).toBeGreaterThanOrEqual(10)
    expect(total(text('payment-command'), 'chainpay_relay_events_published_total')).toBeGreaterThan(0)
    expect(
      total(text('notifier'), 'chainpay_webhook_deliveries_total', { outcome: 'delivered' }),
    ).toBeGreaterThan(0)
    expect(
      total(text('notifier'), 'chainpay_webhook_deliveries_total', { outcome: 'retry' }),
    ).toBeGreaterThan(0)
    for (const network of ['TRON', 'SOLANA']) {
      expect(total(text('chain-indexer'), 'chainpay_chain_cursor_height', { network })).toBeGreaterThan(0)
    }
    const lag = Object.keys(scrapes).flatMap((service) =>
      samples(text(service as keyof typeof metricsUrls), 'chainpay_bus_consumer_lag').map((sample) => ({
        service,
        ...sample,
      })),
    )
    expect(lag.length).toBeGreaterThan(0)
    for (const sample of lag) expect(sample.value).toBeGreaterThanOrEqual(0)
  })

  it('serves /metrics on no API or health port: a scraper reaches no API, an API caller no metrics', async () => {
    const apiAndHealthUrls = [cluster.urls.gateway, cluster.urls.admin, ...Object.values(cluster.serviceUrls)]
    const statuses = await Promise.all(
      [...new Set(apiAndHealthUrls)].map(async (url) => {
        const response = await fetch(`${url}/metrics`)
        await response.body?.cancel()
        return [url, response.status] as const
      }),
    )
    expect(statuses.filter(([, status]) => status !== 404)).toEqual([])
  })
})

describe("payment-command's command API", () => {
  it('answers only the gateway’s COMMAND_API_TOKEN, and its port serves no /metrics', async () => {
    const body = JSON.stringify({
      merchantId: merchant.merchant.merchantId,
      request: { amount: '1', currency: 'USDT', network: 'TRON' },
    })
    const post = (headers: Record<string, string>) =>
      fetch(`${cluster.urls.paymentCommand}/internal/v1/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      })
    const anonymous = await post({})
    expect(anonymous.status).toBe(401)
    expect(await anonymous.json()).toMatchObject({ error: { code: 'MISSING_AUTH_HEADERS' } })
    expect((await post({ authorization: `Bearer ${cluster.adminToken}` })).status).toBe(401)
    const metrics = await fetch(`${cluster.urls.paymentCommand}/metrics`)
    await metrics.body?.cancel()
    expect(metrics.status).toBe(404)
  })
})

describe('at the end', () => {
  it('every service stops cleanly on SIGTERM, with exit code 0', async () => {
    const exitCodes = await Promise.all(
      SERVICE_NAMES.map(async (name) => [name, await cluster.service(name).stop()] as const),
    )
    expect(Object.fromEntries(exitCodes)).toEqual({
      'payment-command': 0,
      projection: 0,
      notifier: 0,
      'chain-indexer': 0,
      gateway: 0,
    })
  })
})

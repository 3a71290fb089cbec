// Invoices in standalone, composed in this process on a clock the test drives (docs/api.md,
// "Invoices"): created through the merchant API, picked and re-picked on the invoice's page by form
// POSTs as a browser sends them, paid through the chain simulator, expiring, canceled, and created
// again with the same idempotency key.

import { createManualClock } from '@chainpay/platform'
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@chainpay/service-kit/testing'
import type { MerchantClient } from '@chainpay/test-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const clock = createManualClock(new Date())
let standalone: InProcessStandalone
let client: MerchantClient
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock })
  client = merchantClientFor(standalone)
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await standalone?.stop()
  await receiver?.close()
})

interface InvoiceBody {
  invoiceId: string
  status: string
  checkoutUrl: string
  priceAmount: string
  priceCurrency: string
  accepted: Array<{ currency: string; network: string; tokenStandard: string }>
  paidPaymentId: string | null
  payments: Array<{ paymentId: string; currency: string; network: string }>
}

const createInvoice = (body: Record<string, unknown>) =>
  client.request('POST', '/invoices', JSON.stringify(body), { 'content-type': 'application/json' })

const getInvoice = async (invoiceId: string): Promise<InvoiceBody> => {
  const response = await client.request('GET', `/invoices/${invoiceId}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body as InvoiceBody
}

async function waitForInvoice(invoiceId: string, status: string): Promise<InvoiceBody> {
  const deadline = Date.now() + 30_000
  let last: InvoiceBody | undefined
  while (Date.now() < deadline) {
    last = await getInvoice(invoiceId)
    if (last.status === status) return last
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`invoice ${invoiceId} did not become ${status}; last seen ${JSON.stringify(last)}`)
}

/** the page's path of a checkoutUrl (PUBLIC_URL is standalone's own address) */
const pathOf = (url: string) => new URL(url).pathname

/**
 * the customer's pick as the browser sends the page's form: urlencoded, same-origin, and Origin
 * "null", as browsers send it under the page's Referrer-Policy: no-referrer
 */
const pick = (invoicePath: string, asset: string, headers: Record<string, string> = {}) =>
  fetch(`${standalone.baseUrl}${invoicePath}/pick?lang=en`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'null',
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    body: new URLSearchParams({ asset }).toString(),
  })

const page = async (path: string) => {
  const response = await fetch(`${standalone.baseUrl}${path}`)
  return {
    status: response.status,
    html: await response.text(),
    csp: response.headers.get('content-security-policy'),
  }
}

/** the invoice webhook of this kind for this invoice, once delivered, signed as every webhook */
const invoiceWebhook = async (invoiceId: string, kind: string): Promise<Record<string, unknown>> => {
  const invoiceOf = (webhook: ReceivedWebhook) =>
    (webhook.body as unknown as { invoice?: { id: string } }).invoice
  const matches = (webhook: ReceivedWebhook) =>
    webhook.body.event === kind && invoiceOf(webhook)?.id === invoiceId
  const webhook = (await receiver.waitFor((all) => all.some(matches), 30_000)).find(matches)
  if (webhook === undefined) throw new Error(`no ${kind} webhook for invoice ${invoiceId}`)
  expect(webhook.headers['x-event-type']).toBe(kind)
  expect(webhook.headers['x-signature']).toMatch(/^[0-9a-f]{64}$/)
  return invoiceOf(webhook) as unknown as Record<string, unknown>
}

const paymentIdOfPage = async (path: string) => {
  const { html } = await page(path)
  const reference = /Reference: <span class="mono">([0-9a-f]{8})<\/span>/.exec(html)?.[1]
  expect(reference).toBeDefined()
  return reference as string
}

describe('an invoice picked, re-picked and paid', () => {
  it('creates an open invoice whose page shows the price and the accepted assets, spelled out', async () => {
    const response = await createInvoice({
      priceAmount: '10.00',
      priceCurrency: 'USD',
      accepted: [
        { currency: 'TRX', network: 'TRON' },
        { currency: 'USDT', network: 'TRON' },
      ],
      description: 'Order 1001',
      callbackUrl: receiver.url,
      expiresInMinutes: 60,
      idempotencyKey: 'invoice-paid-1',
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    const invoice = response.body as InvoiceBody
    expect(response.headers.location).toBe(`/api/merchant/v1/invoices/${invoice.invoiceId}`)
    expect(invoice).toMatchObject({
      status: 'open',
      priceAmount: '10.00',
      priceCurrency: 'USD',
      accepted: [
        { currency: 'TRX', network: 'TRON', tokenStandard: 'NATIVE' },
        { currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' },
      ],
      paidPaymentId: null,
      payments: [],
    })
    expect(pathOf(invoice.checkoutUrl)).toMatch(/^\/pay\/invoice\/[A-Za-z0-9_-]{44}$/)

    const shown = await page(pathOf(invoice.checkoutUrl))
    expect(shown.status).toBe(200)
    expect(shown.csp).toContain("default-src 'none'")
    expect(shown.html).toContain('$10.00')
    expect(shown.html).toContain('TRX on TRON')
    expect(shown.html).toContain('the own coin of TRON')
    expect(shown.html).toContain('USDT on TRON')
    expect(shown.html).toContain('TRC-20 token')
    expect(shown.html).toContain('stays fixed until the invoice expires')
    const german = await page(`${pathOf(invoice.checkoutUrl)}?lang=de`)
    expect(german.html).toContain('TRC-20-Token')
    expect(german.html).toContain('10,00')
  })

  it('a pick leads to the payment of the invoice, priced in fiat; another pick cancels it; the payment confirmed pays the invoice', async () => {
    const invoice = (
      await createInvoice({
        priceAmount: '10.00',
        priceCurrency: 'USD',
        accepted: [
          { currency: 'TRX', network: 'TRON' },
          { currency: 'USDT', network: 'TRON' },
        ],
        callbackUrl: receiver.url,
        expiresInMinutes: 60,
        idempotencyKey: 'invoice-paid-2',
      })
    ).body as InvoiceBody
    const invoicePath = pathOf(invoice.checkoutUrl)

    // another site's form, or a request that says it is cross-site, picks nothing
    expect((await pick(invoicePath, 'TRX:TRON', { origin: 'https://evil.example' })).status).toBe(403)
    expect((await pick(invoicePath, 'TRX:TRON', { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect((await getInvoice(invoice.invoiceId)).payments).toEqual([])
    // nothing chosen, or something the invoice does not accept: the page again, with the reason
    const unchosen = await pick(invoicePath, 'SOL:SOLANA')
    expect(unchosen.status).toBe(400)
    expect(await unchosen.text()).toContain('Choose one of the ways to pay.')

    const first = await pick(invoicePath, 'TRX:TRON')
    expect(first.status).toBe(303)
    const firstPage = first.headers.get('location') ?? ''
    expect(firstPage).toMatch(/^\/pay\/[A-Za-z0-9_-]{44}\?lang=en$/)
    const afterFirst = await getInvoice(invoice.invoiceId)
    expect(afterFirst.payments).toHaveLength(1)
    const firstPaymentId = afterFirst.payments[0]?.paymentId as string
    const firstPayment = (await client.getPayment(firstPaymentId)).body as PaymentBody &
      Record<string, unknown>
    // 10 USD at the simulated 0.25 USD per TRX, locked now
    expect(firstPayment).toMatchObject({
      status: 'pending',
      currency: 'TRX',
      amount: '40',
      priceAmount: '10.00',
      priceCurrency: 'USD',
      rate: { value: '0.25', sources: ['simulated'] },
      invoiceId: invoice.invoiceId,
    })
    // the payment's page shows the price beside the amount, and the way back to pick another coin
    const checkout = await page(firstPage)
    expect(checkout.html).toContain('$10.00')
    expect(checkout.html).toContain('Pay with another coin')
    expect(checkout.html).toContain(`href="${invoicePath}?lang=en"`)
    expect(await paymentIdOfPage(firstPage)).toBe(firstPaymentId.slice(0, 8))
    // the invoice's page now names the pick and leads to it
    expect((await page(invoicePath)).html).toContain('You chose to pay in TRX on TRON.')

    const second = await pick(invoicePath, 'USDT:TRON')
    expect(second.status).toBe(303)
    const afterSecond = await getInvoice(invoice.invoiceId)
    expect(afterSecond.payments.map((payment) => payment.currency)).toEqual(['TRX', 'USDT'])
    const secondPaymentId = afterSecond.payments[1]?.paymentId as string
    expect(((await client.getPayment(firstPaymentId)).body as PaymentBody).status).toBe('canceled')
    const secondPayment = (await client.getPayment(secondPaymentId)).body as PaymentBody
    expect(secondPayment).toMatchObject({ status: 'pending', currency: 'USDT', amount: '10' })
    // the same pick again (a form sent twice) is the same payment
    const again = await pick(invoicePath, 'USDT:TRON')
    expect(again.headers.get('location')).toBe(second.headers.get('location'))
    expect((await getInvoice(invoice.invoiceId)).payments).toHaveLength(2)

    await pay(standalone, 'TRON', { to: secondPayment.generatedAddress, amount: '10', currency: 'USDT' })
    await waitForPayment(client, secondPaymentId, (payment) => payment.status === 'confirmed')
    const paid = await waitForInvoice(invoice.invoiceId, 'paid')
    expect(paid.paidPaymentId).toBe(secondPaymentId)
    expect(await invoiceWebhook(invoice.invoiceId, 'invoice.paid')).toMatchObject({
      status: 'PAID',
      price_amount: '10.00',
      price_currency: 'USD',
      paid_payment_id: secondPaymentId,
      payments: [
        { payment_id: firstPaymentId, currency: 'TRX', network: 'TRON' },
        { payment_id: secondPaymentId, currency: 'USDT', network: 'TRON' },
      ],
      checkout_url: invoice.checkoutUrl,
    })
    // and the payments' own webhooks, to the invoice's callbackUrl
    await receiver.waitFor((all) =>
      all.some(
        (webhook) =>
          webhook.body.event === 'payment.confirmed' &&
          webhook.body.payment?.id === secondPaymentId &&
          webhook.body.payment?.invoice_id === invoice.invoiceId,
      ),
    )
    expect((await page(invoicePath)).html).toContain('This invoice is paid.')
    // paid: nothing more can be picked
    expect((await pick(invoicePath, 'TRX:TRON')).status).toBe(409)
    const listed = (await client.request('GET', '/invoices?status=paid')).body as { data: InvoiceBody[] }
    expect(listed.data.map((listedInvoice) => listedInvoice.invoiceId)).toContain(invoice.invoiceId)
  }, 60_000)
})

describe('an invoice expiring', () => {
  it('expires at its expiry, with its open payment, and an invoice nobody picked for expires too', async () => {
    const picked = (
      await createInvoice({
        priceAmount: '5',
        priceCurrency: 'EUR',
        accepted: [{ currency: 'TRX', network: 'TRON' }],
        expiresInMinutes: 1,
        callbackUrl: receiver.url,
        idempotencyKey: 'invoice-expiring-1',
      })
    ).body as InvoiceBody
    const unpicked = (
      await createInvoice({
        priceAmount: '5',
        priceCurrency: 'EUR',
        expiresInMinutes: 1,
        idempotencyKey: 'invoice-expiring-2',
      })
    ).body as InvoiceBody
    expect((await pick(pathOf(picked.checkoutUrl), 'TRX:TRON')).status).toBe(303)
    const paymentId = (await getInvoice(picked.invoiceId)).payments[0]?.paymentId as string
    const payment = (await client.getPayment(paymentId)).body as { expiresAt: string }
    // the payment of the pick expires with the invoice
    expect(payment.expiresAt).toBe((picked as unknown as { expiresAt: string }).expiresAt)

    clock.advance(61_000)
    await waitForPayment(client, paymentId, (seen) => seen.status === 'expired', 30_000)
    const expired = await waitForInvoice(picked.invoiceId, 'expired')
    expect(expired.paidPaymentId).toBeNull()
    await waitForInvoice(unpicked.invoiceId, 'expired')
    expect(await invoiceWebhook(picked.invoiceId, 'invoice.expired')).toMatchObject({ status: 'EXPIRED' })
    expect((await page(pathOf(unpicked.checkoutUrl))).html).toContain('This invoice has expired.')
  }, 60_000)
})

describe('canceling an invoice, and its idempotency', () => {
  it('cancels an open invoice with its open payment; a second cancel is the same answer', async () => {
    const invoice = (
      await createInvoice({
        priceAmount: '3',
        priceCurrency: 'USD',
        accepted: [{ currency: 'USDT', network: 'TRON' }],
        callbackUrl: receiver.url,
        idempotencyKey: 'invoice-cancel-1',
      })
    ).body as InvoiceBody
    expect((await pick(pathOf(invoice.checkoutUrl), 'USDT:TRON')).status).toBe(303)
    const paymentId = (await getInvoice(invoice.invoiceId)).payments[0]?.paymentId as string
    const canceled = await client.request('POST', `/invoices/${invoice.invoiceId}/cancel`)
    expect(canceled.status).toBe(200)
    expect(canceled.body).toMatchObject({ status: 'canceled' })
    expect(((await client.getPayment(paymentId)).body as PaymentBody).status).toBe('canceled')
    expect((await client.request('POST', `/invoices/${invoice.invoiceId}/cancel`)).body).toMatchObject({
      status: 'canceled',
    })
    expect((await page(pathOf(invoice.checkoutUrl))).html).toContain('This invoice was canceled.')
    expect(await invoiceWebhook(invoice.invoiceId, 'invoice.canceled')).toMatchObject({ status: 'CANCELED' })
  })

  it('replays the same request, refuses the key with another one, and names what is wrong', async () => {
    const body = { priceAmount: '7.50', priceCurrency: 'EUR', idempotencyKey: 'invoice-idem-1' }
    const first = await createInvoice(body)
    expect(first.status).toBe(201)
    const replay = await createInvoice(body)
    expect(replay.status).toBe(200)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect((replay.body as InvoiceBody).invoiceId).toBe((first.body as InvoiceBody).invoiceId)
    const reused = await createInvoice({ ...body, priceAmount: '8' })
    expect(reused.status).toBe(409)
    expect(reused.body).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } })
    // every asset the installation serves when none is listed
    expect((first.body as InvoiceBody).accepted.length).toBeGreaterThan(2)

    const refusals: Array<[Record<string, unknown>, number, string, string]> = [
      [{ priceAmount: '1', priceCurrency: 'USD' }, 400, 'VALIDATION_ERROR', 'idempotencyKey: is required'],
      [
        { ...body, idempotencyKey: 'x2', amount: '1' },
        400,
        'VALIDATION_ERROR',
        "body: unknown field 'amount'",
      ],
      [
        { ...body, idempotencyKey: 'x3', priceCurrency: 'JPY' },
        400,
        'VALIDATION_ERROR',
        'priceCurrency: must be one of USD, EUR',
      ],
      [
        { ...body, idempotencyKey: 'x4', accepted: [] },
        400,
        'VALIDATION_ERROR',
        'accepted: must list at least one asset',
      ],
      [
        { ...body, idempotencyKey: 'x5', accepted: [{ currency: 'BTC', network: 'TRON' }] },
        400,
        'UNSUPPORTED_ASSET',
        'unsupported asset BTC on TRON',
      ],
    ]
    for (const [request, status, code, message] of refusals) {
      const response = await createInvoice(request)
      expect(response.status, JSON.stringify(request)).toBe(status)
      expect(response.body).toMatchObject({ error: { code, message: expect.stringContaining(message) } })
    }
    expect(
      (await client.request('GET', '/invoices/00000000-0000-4000-8000-000000000000')).body,
    ).toMatchObject({
      error: { code: 'INVOICE_NOT_FOUND' },
    })
    expect((await client.request('GET', '/invoices?status=unpaid')).body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('status') },
    })
  })
})

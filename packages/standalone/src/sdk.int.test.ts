// @chainpay/sdk against a real standalone: a shop's calls, typed answers and errors, verified
// webhooks, and retries that never make a second payment (a proxy in front of standalone loses
// answers and answers 503, the way a load balancer or a restart would).

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Chainpay, ChainpayApiError, ChainpayConnectionError, verifyWebhook } from '@chainpay/sdk'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let receiver: WebhookReceiver
let chainpay: Chainpay

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
  receiver = await startWebhookReceiver()
  const merchant = standalone.demoMerchant()
  chainpay = new Chainpay({
    baseUrl: standalone.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
})

afterAll(async () => {
  await receiver?.close()
  await standalone?.stop()
})

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('a shop on @chainpay/sdk', () => {
  it('creates a payment, is paid, and verifies the signed webhooks', async () => {
    const created = await chainpay.payments.create({
      amount: '12.50',
      currency: 'USDT',
      network: 'TRON',
      idempotencyKey: `sdk-order-${Date.now()}`,
      callbackUrl: receiver.url,
      metadata: { orderId: 'A-1' },
    })
    expect(created).toMatchObject({
      status: 'pending',
      amount: '12.50',
      expectedAmount: '12.5',
      replayed: false,
    })

    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '12.5', currency: 'USDT' })
    const confirmed = await until(
      () => chainpay.payments.get(created.paymentId),
      (payment) => payment.status === 'confirmed',
    )
    expect(confirmed).toMatchObject({ status: 'confirmed', receivedAmount: '12.5' })

    const webhooks = await receiver.waitFor((all) =>
      all.some((w) => w.body.payment.id === created.paymentId && w.body.event === 'payment.confirmed'),
    )
    const secret = standalone.demoMerchant().webhookSecret
    const mine = webhooks.filter((w) => w.body.payment.id === created.paymentId)
    for (const webhook of mine) {
      const event = await verifyWebhook({ rawBody: webhook.rawBody, headers: webhook.headers, secret })
      expect(event.payment.id).toBe(created.paymentId)
    }
    expect(mine.map((w) => w.body.event)).toContain('payment.confirmed')
  })

  it('creates a payment priced in fiat, confirmed a little short within the tolerance, with price, rate and shortfall in its webhooks', async () => {
    const merchant = standalone.demoMerchant()
    const setTolerance = (percent: string) =>
      fetch(`${standalone.adminUrl}/admin/v1/merchants/${merchant.merchantId}/underpayment-tolerance`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ underpaymentTolerancePercent: percent }),
      })
    expect((await setTolerance('0.5')).status).toBe(200)
    try {
      // the simulated rates of simulated chains: USDT is pegged to 1 USD while the market agrees
      const created = await chainpay.payments.create({
        priceAmount: '19.99',
        priceCurrency: 'USD',
        currency: 'USDT',
        network: 'TRON',
        idempotencyKey: `sdk-fiat-${Date.now()}`,
        callbackUrl: receiver.url,
      })
      expect(created).toMatchObject({
        amount: '19.99',
        priceAmount: '19.99',
        priceCurrency: 'USD',
        rate: { value: '1', sources: ['peg', 'simulated'] },
        underpaymentTolerancePercent: '0.5',
        shortfallAmount: null,
        invoiceId: null,
      })
      // 0.45 % short, within 0.5 %
      await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '19.9', currency: 'USDT' })
      const confirmed = await until(
        () => chainpay.payments.get(created.paymentId),
        (payment) => payment.status === 'confirmed',
      )
      expect(confirmed).toMatchObject({ receivedAmount: '19.9', shortfallAmount: '0.09', rate: created.rate })
      const webhooks = await receiver.waitFor((all) =>
        all.some((w) => w.body.payment.id === created.paymentId && w.body.event === 'payment.confirmed'),
      )
      const delivered = webhooks.find(
        (w) => w.body.payment.id === created.paymentId && w.body.event === 'payment.confirmed',
      )
      const event = await verifyWebhook({
        rawBody: delivered?.rawBody ?? '',
        headers: delivered?.headers ?? {},
        secret: merchant.webhookSecret,
      })
      expect(event.payment).toMatchObject({
        status: 'CONFIRMED',
        price_amount: '19.99',
        price_currency: 'USD',
        rate: created.rate,
        shortfall_amount: '0.09',
      })
    } finally {
      expect((await setTolerance('0')).status).toBe(200)
    }
  })

  it('creates, reads, lists and cancels an invoice (docs/sdk.md, "Invoices")', async () => {
    const params = {
      priceAmount: '19.99',
      priceCurrency: 'EUR',
      accepted: [{ currency: 'USDT', network: 'TRON' }],
      metadata: { orderId: 'sdk-invoice' },
      idempotencyKey: `sdk-invoice-${Date.now()}`,
    }
    const invoice = await chainpay.invoices.create(params)
    expect(invoice).toMatchObject({
      status: 'open',
      priceAmount: '19.99',
      priceCurrency: 'EUR',
      accepted: [{ currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' }],
      payments: [],
      replayed: false,
    })
    expect(invoice.checkoutUrl).toContain('/pay/invoice/')
    expect((await chainpay.invoices.create(params)).replayed).toBe(true)
    expect(await chainpay.invoices.get(invoice.invoiceId)).toMatchObject({ invoiceId: invoice.invoiceId })
    const page = await chainpay.invoices.list({ status: 'open', limit: 100 })
    expect(page.data.map((listed) => listed.invoiceId)).toContain(invoice.invoiceId)
    expect(await chainpay.invoices.cancel(invoice.invoiceId)).toMatchObject({ status: 'canceled' })
    const missing = await chainpay.invoices
      .get('00000000-0000-4000-8000-000000000000')
      .catch((error) => error)
    expect(missing).toBeInstanceOf(ChainpayApiError)
    expect(missing).toMatchObject({ status: 404, code: 'INVOICE_NOT_FOUND' })
  })

  it('answers the original payment for a repeated idempotency key', async () => {
    const params = {
      amount: '3',
      currency: 'TRX',
      network: 'TRON',
      idempotencyKey: `sdk-replay-${Date.now()}`,
    } as const
    const first = await chainpay.payments.create(params)
    const second = await chainpay.payments.create(params)
    expect(second.paymentId).toBe(first.paymentId)
    expect([first.replayed, second.replayed]).toEqual([false, true])
  })

  it('cancels, and throws the API’s errors typed, with their code, status and request id', async () => {
    const created = await chainpay.payments.create({ amount: '1', currency: 'TRX', network: 'TRON' })
    expect((await chainpay.payments.cancel(created.paymentId)).status).toBe('canceled')
    expect((await chainpay.payments.cancel(created.paymentId)).status).toBe('canceled')

    const missing = await chainpay.payments
      .get('00000000-0000-4000-8000-000000000000')
      .catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(ChainpayApiError)
    expect(missing).toMatchObject({ status: 404, code: 'PAYMENT_NOT_FOUND' })
    expect((missing as ChainpayApiError).requestId).toMatch(/.+/)

    const invalid = await chainpay.payments
      .create({ amount: '1.1234567', currency: 'USDT', network: 'TRON' })
      .catch((error: unknown) => error)
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' })
    expect((invalid as ChainpayApiError).message).toContain('amount')

    const merchant = standalone.demoMerchant()
    const wrongSecret = new Chainpay({
      baseUrl: standalone.apiUrl,
      apiKey: merchant.apiKey,
      apiSecret: 'cs_wrong',
    })
    await expect(wrongSecret.payments.get(created.paymentId)).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_SIGNATURE',
    })
  })
})

describe('lists, history, webhook endpoints and deliveries through the SDK', () => {
  it('pages through payments newest first, with filters, and iterates every one', async () => {
    const since = new Date()
    const created = []
    for (const amount of ['1.1', '1.2', '1.3']) {
      created.push(await chainpay.payments.create({ amount, currency: 'TRX', network: 'TRON_NILE' }))
    }
    const first = await chainpay.payments.list({ limit: 2, network: 'TRON_NILE', createdFrom: since })
    expect(first.data.map((p) => p.paymentId)).toEqual([created[2]?.paymentId, created[1]?.paymentId])
    expect(first.nextCursor).not.toBeNull()
    const every = []
    for await (const payment of chainpay.payments.listAll({
      limit: 2,
      network: 'TRON_NILE',
      createdFrom: since,
    })) {
      every.push(payment.paymentId)
    }
    expect(every).toEqual(created.map((p) => p.paymentId).reverse())
    const none = await chainpay.payments.list({
      status: ['confirmed', 'overpaid'],
      network: 'TRON_NILE',
      createdFrom: since,
    })
    expect(none).toEqual({ data: [], nextCursor: null })
    await expect(chainpay.payments.list({ limit: 101 })).rejects.toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
    })
  })

  it('sends a subscribed endpoint its kinds, verifiable through a rotation, and redelivers to its current URL', async () => {
    const endpointReceiver = await startWebhookReceiver()
    const movedReceiver = await startWebhookReceiver()
    try {
      const endpoint = await chainpay.webhookEndpoints.create({
        url: endpointReceiver.url,
        events: ['payment.confirmed'],
        description: 'orders',
      })
      expect(endpoint).toMatchObject({
        url: endpointReceiver.url,
        events: ['payment.confirmed'],
        enabled: true,
      })
      expect((await chainpay.webhookEndpoints.list()).map((e) => e.id)).toContain(endpoint.id)
      expect((await chainpay.webhookEndpoints.get(endpoint.id)).description).toBe('orders')

      const confirmedOn = async (receiver: WebhookReceiver) => {
        const payment = await chainpay.payments.create({ amount: '2', currency: 'TRX', network: 'TRON' })
        await pay(standalone, 'TRON', { to: payment.generatedAddress, amount: '2', currency: 'TRX' })
        const received = await receiver.waitFor((all) =>
          all.some((w) => w.body.payment.id === payment.paymentId),
        )
        return { payment, webhook: received.find((w) => w.body.payment.id === payment.paymentId) }
      }

      const before = await confirmedOn(endpointReceiver)
      expect(before.webhook?.body.event).toBe('payment.confirmed')
      const event = await verifyWebhook({
        rawBody: before.webhook?.rawBody ?? '',
        headers: before.webhook?.headers ?? {},
        secret: endpoint.secret,
      })
      expect(event.payment.id).toBe(before.payment.paymentId)

      const rotated = await chainpay.webhookEndpoints.rotateSecret(endpoint.id, { expiresInHours: 1 })
      expect(rotated.secret).not.toBe(endpoint.secret)
      const during = await confirmedOn(endpointReceiver)
      for (const secret of [rotated.secret, endpoint.secret]) {
        const verified = await verifyWebhook({
          rawBody: during.webhook?.rawBody ?? '',
          headers: during.webhook?.headers ?? {},
          secret,
        })
        expect(verified.payment.id).toBe(during.payment.paymentId)
      }

      const history = await chainpay.payments.events(during.payment.paymentId)
      expect(history.map((e) => e.type)).toEqual(
        expect.arrayContaining(['payment.created', 'transfer.detected', 'payment.confirmed']),
      )
      expect(history[0]?.type).toBe('payment.created')
      const shorter = await chainpay.payments.events(during.payment.paymentId, { confirmations: 'last' })
      expect(shorter.map((e) => e.type)).toEqual(
        history
          .filter((e, index) => {
            const later = history.slice(index + 1)
            return (
              e.type !== 'transfer.confirmations_updated' ||
              !later.some((l) => l.type === e.type && l.data.txHash === e.data.txHash)
            )
          })
          .map((e) => e.type),
      )

      const { data: deliveries } = await chainpay.webhookDeliveries.list({
        paymentId: during.payment.paymentId,
      })
      const toEndpoint = deliveries.find((d) => d.endpointId === endpoint.id)
      expect(toEndpoint).toMatchObject({ status: 'delivered', eventType: 'payment.confirmed' })
      expect(toEndpoint?.attempts[0]).toMatchObject({ statusCode: 200 })

      await chainpay.webhookEndpoints.update(endpoint.id, { url: movedReceiver.url })
      await chainpay.webhookDeliveries.redeliver(toEndpoint?.id ?? '')
      const again = await movedReceiver.waitFor((all) => all.length > 0)
      expect(again[0]?.headers['x-event-id']).toBe(toEndpoint?.eventId)

      // a test event, through standalone's own wake-up of its dispatcher
      const tested = await chainpay.webhookEndpoints.test(endpoint.id, { event: 'payment.late_funds' })
      expect(tested).toMatchObject({ eventType: 'payment.late_funds', status: 'pending', attempts: [] })
      const isTest = (w: { body: { id: string } }) => w.body.id === tested.eventId
      const [testEvent] = (await movedReceiver.waitFor((all) => all.some(isTest))).filter(isTest)
      const verifiedTest = await verifyWebhook({
        rawBody: testEvent?.rawBody ?? '',
        headers: testEvent?.headers ?? {},
        secret: rotated.secret,
      })
      expect(verifiedTest.test).toBe(true)
      expect(verifiedTest.event === 'payment.late_funds' && verifiedTest.payment.late_funds.amount).toBe(
        '10.5',
      )

      await chainpay.webhookEndpoints.delete(endpoint.id)
      await expect(chainpay.webhookEndpoints.get(endpoint.id)).rejects.toMatchObject({
        status: 404,
        code: 'NOT_FOUND',
      })
    } finally {
      await endpointReceiver.close()
      await movedReceiver.close()
    }
  })
})

/** forwards to standalone; `plan` says, per request, whether to answer 503 or lose the answer */
async function startFaultyProxy(
  target: string,
  plan: (index: number) => 'forward' | 'unavailable' | 'lose-answer',
) {
  let index = 0
  const forwarded: string[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', async () => {
      const step = plan(index++)
      if (step === 'unavailable') {
        response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
        response.end('{"error":{"code":"SERVICE_UNAVAILABLE","message":"try again"}}')
        return
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name.startsWith('x-') || name === 'content-type'),
      ) as Record<string, string>
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks)
      const answer = await fetch(`${target}${request.url}`, { method: request.method, headers, body })
      forwarded.push(`${request.method} ${request.url} ${answer.status}`)
      const text = await answer.text()
      if (step === 'lose-answer') {
        request.socket.destroy()
        return
      }
      response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    requests: () => index,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describe('retries', () => {
  const clientThrough = (url: string, options: { maxRetries?: number } = {}) => {
    const merchant = standalone.demoMerchant()
    return new Chainpay({
      baseUrl: url,
      apiKey: merchant.apiKey,
      apiSecret: merchant.apiSecret,
      sleep: async () => {},
      ...options,
    })
  }

  it('sends a create again after a lost answer, with the same idempotency key: one payment', async () => {
    const proxy = await startFaultyProxy(standalone.baseUrl, (index) =>
      index === 0 ? 'lose-answer' : 'forward',
    )
    try {
      const created = await clientThrough(proxy.url).payments.create({
        amount: '4',
        currency: 'TRX',
        network: 'TRON',
      })
      // standalone created it on the first try, and answered the second with the same payment
      expect(proxy.forwarded).toEqual([
        'POST /api/merchant/v1/payments 201',
        'POST /api/merchant/v1/payments 200',
      ])
      expect(created.replayed).toBe(true)
      expect((await chainpay.payments.get(created.paymentId)).status).toBe('pending')
    } finally {
      await proxy.close()
    }
  })

  it('tries a 503 again after Retry-After, and gives up after maxRetries with the API’s error', async () => {
    const flaky = await startFaultyProxy(standalone.baseUrl, (index) =>
      index < 2 ? 'unavailable' : 'forward',
    )
    try {
      const created = await clientThrough(flaky.url).payments.create({
        amount: '5',
        currency: 'TRX',
        network: 'TRON',
      })
      expect(flaky.requests()).toBe(3)
      expect(created.replayed).toBe(false)
    } finally {
      await flaky.close()
    }
    const down = await startFaultyProxy(standalone.baseUrl, () => 'unavailable')
    try {
      const error = await clientThrough(down.url, { maxRetries: 3 })
        .payments.get('00000000-0000-4000-8000-000000000000')
        .catch((e: unknown) => e)
      expect(error).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: 0 })
      expect(down.requests()).toBe(4)
    } finally {
      await down.close()
    }
  })

  it('takes a delete whose answer was lost, then NOT_FOUND on the retry, as done; a plain NOT_FOUND still throws', async () => {
    const endpoint = await chainpay.webhookEndpoints.create({ url: 'http://127.0.0.1:9/hooks' })
    const proxy = await startFaultyProxy(standalone.baseUrl, (index) =>
      index === 0 ? 'lose-answer' : 'forward',
    )
    try {
      await clientThrough(proxy.url).webhookEndpoints.delete(endpoint.id)
      expect(proxy.forwarded).toEqual([
        `DELETE /api/merchant/v1/webhook-endpoints/${endpoint.id} 204`,
        `DELETE /api/merchant/v1/webhook-endpoints/${endpoint.id} 404`,
      ])
    } finally {
      await proxy.close()
    }
    await expect(chainpay.webhookEndpoints.delete(endpoint.id)).rejects.toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    })
  })

  it('does not send again what may have been done when no answer came (a secret rotation)', async () => {
    const proxy = await startFaultyProxy(standalone.baseUrl, () => 'lose-answer')
    try {
      const error = await clientThrough(proxy.url)
        .webhookEndpoints.rotateSecret('00000000-0000-4000-8000-000000000000')
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ChainpayConnectionError)
      expect(proxy.requests()).toBe(1)
    } finally {
      await proxy.close()
    }
  })
})

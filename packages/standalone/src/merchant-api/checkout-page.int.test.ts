// The customer's page over the gateway app (docs/api.md, "The customer's page"): what it shows, its
// headers, its 404, its status for the script and the customer's cancel. The browser tests
// (packages/standalone/src/checkout-page.e2e.test.ts) drive the same pages in Chromium.

import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_PUBLIC_URL,
  FIXTURE_START,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const body = {
  amount: '10.50',
  currency: 'USDT',
  network: 'TRON',
  description: 'Order <#7>',
  successRedirectUrl: 'https://shop.example/ok',
  cancelRedirectUrl: 'https://shop.example/cancel',
}

let fixture: MerchantApiFixture

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})
afterEach(() => fixture.close())

const pathOf = (payment: Record<string, unknown>) => new URL(payment.checkoutUrl as string).pathname

async function created(fields: Record<string, unknown> = {}) {
  const response = await fixture.create({ ...body, ...fields })
  expect(response.statusCode, response.body).toBe(201)
  return json(response)
}

/** what the projection would do: the source of truth's state into the read model */
async function project(paymentId: string) {
  const snapshot = await fixture.handler.getPayment({
    merchantId: fixture.merchant.merchant.merchantId,
    paymentId,
  })
  if (snapshot === null) throw new Error('no such payment')
  await fixture.readModel.save({
    paymentId,
    merchantId: fixture.merchant.merchant.merchantId,
    revision: snapshot.revision,
    state: snapshot.payment,
    updatedAt: FIXTURE_START,
  })
}

async function transfer(payment: Record<string, unknown>, amountUnits: string, confirmations: number) {
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId: payment.paymentId as string,
    txHash: 'ab'.repeat(32),
    transferIndex: 0,
    address: payment.generatedAddress as string,
    amountUnits,
    blockHeight: 100,
    blockTime: FIXTURE_START,
    confirmations,
    status: 'seen',
    dropReason: null,
    observedAt: FIXTURE_START,
  })
  await project(payment.paymentId as string)
}

describe('checkoutUrl', () => {
  it('is on the create, get and cancel answers alike, under PUBLIC_URL', async () => {
    const payment = await created()
    expect(payment.checkoutUrl).toMatch(new RegExp(`^${FIXTURE_PUBLIC_URL}/pay/[A-Za-z0-9_-]{44}$`))
    const read = json(await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}`))
    expect(read.checkoutUrl).toBe(payment.checkoutUrl)
    const canceled = json(await fixture.send('POST', `${PAYMENTS}/${payment.paymentId}/cancel`))
    expect(canceled.checkoutUrl).toBe(payment.checkoutUrl)
  })
})

describe('GET /pay/{token}', () => {
  it('shows the payment: merchant, escaped description, exact amount, network, address, QR and time left', async () => {
    const payment = await created()
    const response = await fixture.app.inject({ method: 'GET', url: pathOf(payment) })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
    const html = response.body
    expect(html).toContain('<h1>Pay Test Shop</h1>')
    expect(html).toContain('Order &lt;#7&gt;')
    expect(html).not.toContain('Order <#7>')
    expect(html).toContain(
      '<span class="mono amount" id="amount">10.5</span> <span class="amount">USDT</span>',
    )
    expect(html).toContain('TRON · TRC20')
    expect(html).toContain('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
    expect(html).toContain('https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
    expect(html).toContain(payment.generatedAddress as string)
    expect(html).toMatch(/<div class="qr" role="img" aria-label="QR code of the payment"><svg /)
    expect(html).toContain('data-seconds="1800"')
    expect(html).toContain('Awaiting payment')
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="10"></noscript>')
    // cancelling is a step of its own (GET .../cancel), never a form on this page
    expect(html).toContain(`<a id="cancel" href="${pathOf(payment)}/cancel?lang=en">Cancel payment</a>`)
    expect(html).not.toContain('<form')
    expect(html).toContain('<link rel="icon" href="/pay/assets/icon.svg" type="image/svg+xml">')
  })

  it('calls the merchant by the display name the operator set, else by its name', async () => {
    const path = pathOf(await created())
    await fixture.merchants.updateMerchant(
      fixture.merchant.merchant.merchantId,
      { displayName: 'Acme & Söhne' },
      FIXTURE_START,
    )
    const html = (await fixture.app.inject({ method: 'GET', url: path })).body
    expect(html).toContain('<h1>Pay Acme &amp; Söhne</h1>')
  })

  it('offers Solana wallets a Solana Pay request to the owner address, with the mint, never the token account', async () => {
    const payment = await created({ amount: '3', currency: 'USDC', network: 'SOLANA' })
    const html = (await fixture.app.inject({ method: 'GET', url: pathOf(payment) })).body
    const link = /<a class="button" href="(solana:[^"]+)">Open in wallet<\/a>/.exec(html)?.[1] ?? ''
    expect(link.replaceAll('&amp;', '&')).toMatch(
      new RegExp(
        `^solana:${payment.generatedAddress}\\?amount=3&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=[1-9A-HJ-NP-Za-km-z]{43,44}&label=Test%20Shop&message=Order%20%3C%237%3E$`,
      ),
    )
    expect(link).not.toContain(payment.generatedTokenAccount as string)
    // the mint, for the customer to check in the wallet
    expect(html).toContain(
      '<dt>USDC token mint</dt><dd><span class="mono" id="token-contract">EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v</span>',
    )
    expect(html).toContain('Send exactly 3 USDC (SPL).')
  })

  it('refuses a bidirectional override in a description, and strips one from a name recorded before the rule', async () => {
    const refused = await fixture.create({ ...body, description: 'Order \u202E7#' })
    expect(refused.statusCode).toBe(400)
    expect(JSON.parse(refused.body).error.message).toMatch(
      /^description: must not contain a bidirectional override/,
    )
    const payment = await created({ amount: '3', currency: 'USDC', network: 'SOLANA' })
    await fixture.merchants.updateMerchant(
      fixture.merchant.merchant.merchantId,
      { displayName: 'Acme\u202E\u0000 Shop' },
      FIXTURE_START,
    )
    const html = (await fixture.app.inject({ method: 'GET', url: pathOf(payment) })).body
    expect(html).toContain('<h1>Pay Acme Shop</h1>')
    const link = /<a class="button" href="(solana:[^"]+)">Open in wallet<\/a>/.exec(html)?.[1] ?? ''
    expect(new URL(link.replaceAll('&amp;', '&')).searchParams.get('label')).toBe('Acme Shop')
    expect(html.includes('\u202E') || html.includes('\u0000')).toBe(false)
  })

  it('draws the QR code of a Solana payment with the longest non-ASCII description, shortened in the request', async () => {
    const description = '€'.repeat(1000)
    const payment = await created({ amount: '3', currency: 'USDC', network: 'SOLANA', description })
    const response = await fixture.app.inject({ method: 'GET', url: pathOf(payment) })
    expect(response.statusCode).toBe(200)
    const html = response.body
    expect(html).toContain(description)
    expect(html).toMatch(/<div class="qr" role="img" aria-label="QR code of the payment"><svg /)
    const link = /<a class="button" href="(solana:[^"]+)">Open in wallet<\/a>/.exec(html)?.[1] ?? ''
    const message = new URL(link.replaceAll('&amp;', '&')).searchParams.get('message')
    expect(message).toBe('€'.repeat(33))
  })

  it("does not wait for the merchant's logo server: the logo route does", async () => {
    // a shop's server that holds every answer until told
    const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0])
    const held: ServerResponse[] = []
    let answered = 0
    const shop = createServer((_request, response) => held.push(response))
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
    const logoUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/logo.png`
    await fixture.merchants.updateMerchant(fixture.merchant.merchant.merchantId, { logoUrl }, FIXTURE_START)
    const path = pathOf(await created())

    const page = await fixture.app.inject({ method: 'GET', url: path })
    expect(page.statusCode).toBe(200)
    expect(answered).toBe(0)
    expect(page.body).toContain(`<img class="logo" src="${path}/logo"`)
    const logo = fixture.app.inject({ method: 'GET', url: `${path}/logo` })
    await expect.poll(() => held.length).toBe(1)
    held[0]?.writeHead(200, { 'content-type': 'image/png' }).end(PNG, () => answered++)
    expect((await logo).rawPayload).toEqual(PNG)
    // fetched once for the page and its logo route
    expect(held).toHaveLength(1)
    await new Promise((resolve) => shop.close(resolve))
  })

  it('answers with a strict CSP, no-store, no-referrer and no framing', async () => {
    const payment = await created()
    const response = await fixture.app.inject({ method: 'GET', url: pathOf(payment) })
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "form-action 'self' https://shop.example; base-uri 'none'; frame-ancestors 'none'",
    )
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers['referrer-policy']).toBe('no-referrer')
    expect(response.headers['x-frame-options']).toBe('DENY')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it('speaks German when asked by ?lang= or Accept-Language, English otherwise', async () => {
    const path = pathOf(await created())
    const german = await fixture.app.inject({ method: 'GET', url: `${path}?lang=de` })
    expect(german.body).toContain('<html lang="de">')
    expect(german.body).toContain('Warten auf Zahlung')
    const accepted = await fixture.app.inject({
      method: 'GET',
      url: path,
      headers: { 'accept-language': 'fr-FR, de;q=0.8, en;q=0.5' },
    })
    expect(accepted.body).toContain('<html lang="de">')
    const fallback = await fixture.app.inject({
      method: 'GET',
      url: path,
      headers: { 'accept-language': 'fr' },
    })
    expect(fallback.body).toContain('<html lang="en">')
  })

  it('answers an HTML 404 that names no payment for an unknown, altered or merchant-API token', async () => {
    const payment = await created()
    const token = pathOf(payment).slice('/pay/'.length)
    const altered = token.slice(0, 40) + (token[40] === 'A' ? 'B' : 'A') + token.slice(41)
    for (const path of [`/pay/${altered}`, `/pay/${payment.paymentId}`, '/pay/x', `/pay/${altered}/status`]) {
      const response = await fixture.app.inject({ method: 'GET', url: path })
      expect(response.statusCode, path).toBe(404)
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(response.body).toContain('There is nothing at this address.')
      expect(response.body).not.toContain(payment.paymentId as string)
    }
  })

  it('shows the confirmations, then the amount still due of an underpayment, then paid with the way back', async () => {
    const payment = await created()
    const path = pathOf(payment)
    const page = async () => (await fixture.app.inject({ method: 'GET', url: path })).body
    await transfer(payment, '4000000', 3)
    expect(await page()).toContain('Payment seen: 3 of 20 confirmations')
    await transfer(payment, '4000000', 20)
    const underpaid = await page()
    expect(underpaid).toContain('Not paid in full: send the remaining 6.5 USDT to the same address.')
    expect(underpaid).toContain(
      '<span class="mono amount" id="amount">6.5</span> <span class="amount">USDT</span>',
    )
    expect(underpaid).not.toContain('id="cancel"')
    // the hash seen so far, linked to the explorer of the network
    expect(underpaid).toContain(`https://tronscan.org/#/transaction/${'ab'.repeat(32)}`)
    const status = json(await fixture.app.inject({ method: 'GET', url: `${path}/status` }))
    expect(status).toMatchObject({ status: 'underpaid' })
    // past expiresAt the rest no longer counts: the page stops asking for it
    fixture.clock.advance(30 * 60 * 1000)
    const closed = await page()
    expect(closed).toContain('Not paid in full, and the time to complete it has passed. Contact the shop.')
    expect(closed).not.toContain('class="qr"')
  })

  it('counts paid as final: back to successRedirectUrl after a few seconds, also without JavaScript', async () => {
    const payment = await created()
    await transfer(payment, '10500000', 20)
    const html = (await fixture.app.inject({ method: 'GET', url: pathOf(payment) })).body
    expect(html).toContain('Paid. Thank you!')
    expect(html).toContain('data-redirect="https://shop.example/ok"')
    expect(html).toContain(
      '<noscript><meta http-equiv="refresh" content="5;url=https://shop.example/ok"></noscript>',
    )
    expect(html).toContain('<a class="button" id="back" href="https://shop.example/ok">Back to the shop</a>')
  })
})

describe('GET /favicon.ico and /pay/assets/icon.svg', () => {
  it("serve chainpay's own icon, cacheable, under the page's headers", async () => {
    const ico = await fixture.app.inject({ method: 'GET', url: '/favicon.ico' })
    expect(ico.statusCode).toBe(200)
    expect(ico.headers['content-type']).toBe('image/x-icon')
    expect(ico.headers['cache-control']).toBe('public, max-age=86400')
    expect(ico.headers['x-content-type-options']).toBe('nosniff')
    // an icon file: reserved 0, type 1, one 32 x 32 image of 32 bits
    const bytes = ico.rawPayload
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 1])
    expect([bytes[6], bytes[7], bytes.readUInt16LE(12)]).toEqual([32, 32, 32])
    expect(bytes.length).toBe(22 + bytes.readUInt32LE(14))
    const svg = await fixture.app.inject({ method: 'GET', url: '/pay/assets/icon.svg' })
    expect(svg.statusCode).toBe(200)
    expect(svg.headers['content-type']).toBe('image/svg+xml; charset=utf-8')
    expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
  })
})

describe('GET /pay/{token}/cancel', () => {
  it('asks the customer to confirm, with the form that cancels; cancels nothing by itself', async () => {
    const payment = await created()
    const path = pathOf(payment)
    const response = await fixture.app.inject({ method: 'GET', url: `${path}/cancel?lang=en` })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('no-store')
    expect(response.headers['content-security-policy']).toContain("form-action 'self' https://shop.example;")
    expect(response.body).toContain('<h1>Cancel this payment?</h1>')
    expect(response.body).toContain(`<form method="post" action="${path}/cancel">`)
    expect(response.body).toContain(`href="${path}?lang=en">No, back to the payment</a>`)
    const read = json(await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}`))
    expect(read.status).toBe('pending')
  })

  it('sends the customer back to the page once there is nothing to cancel', async () => {
    const payment = await created()
    await transfer(payment, '1000000', 1)
    const response = await fixture.app.inject({ method: 'GET', url: `${pathOf(payment)}/cancel` })
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe(pathOf(payment))
  })
})

describe('POST /pay/{token}/cancel', () => {
  it('cancels for the customer, records who canceled, and sends the customer to cancelRedirectUrl', async () => {
    const payment = await created()
    const path = pathOf(payment)
    const response = await fixture.app.inject({
      method: 'POST',
      url: `${path}/cancel`,
      headers: {
        origin: FIXTURE_PUBLIC_URL,
        'sec-fetch-site': 'same-origin',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: '',
    })
    expect(response.statusCode).toBe(303)
    expect(response.headers.location).toBe('https://shop.example/cancel')
    const events = await fixture.eventStore.readStream(`payment-${payment.paymentId}`)
    expect(events.at(-1)).toMatchObject({ type: 'PaymentCanceled', data: { canceledBy: 'customer' } })
    expect((await fixture.app.inject({ method: 'GET', url: path })).body).toContain(
      'This payment was canceled.',
    )
  })

  it('refuses a form from another site, and cancels nothing the merchant could not cancel', async () => {
    const payment = await created({ cancelRedirectUrl: undefined })
    const path = pathOf(payment)
    const foreign = await fixture.app.inject({
      method: 'POST',
      url: `${path}/cancel`,
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    })
    expect(foreign.statusCode).toBe(403)
    await transfer(payment, '1000000', 1)
    const late = await fixture.app.inject({ method: 'POST', url: `${path}/cancel` })
    expect(late.statusCode).toBe(303)
    expect(late.headers.location).toBe(path)
    const read = json(await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}`))
    expect(read.status).toBe('pending')
  })
})

describe('query parameters, the CSP and the logs of the checkout routes', () => {
  const formPost = {
    origin: FIXTURE_PUBLIC_URL,
    'sec-fetch-site': 'same-origin',
    'content-type': 'application/x-www-form-urlencoded',
  }

  it('takes the first of a repeated ?lang= on every checkout route, never a 500', async () => {
    const path = pathOf(await created())
    const page = await fixture.app.inject({ method: 'GET', url: `${path}?lang=de&lang=en` })
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<html lang="de">')
    for (const [method, url] of [
      ['GET', `${path}?lang=a&lang=b`],
      ['GET', `${path}?lang=&lang[]=x&lang=de`],
      ['GET', `${path}/status?lang=a&lang=b`],
      ['GET', `${path}/logo?lang=a&lang=b`],
      ['GET', `/pay/${'A'.repeat(44)}?lang=a&lang=b`],
      ['GET', '/pay/assets/checkout.css?lang=a&lang=b'],
      ['GET', '/favicon.ico?lang=a&lang=b'],
      ['POST', `${path}/cancel?lang=a&lang=b`],
    ] as const) {
      const response = await fixture.app.inject({
        method,
        url,
        ...(method === 'POST' ? { headers: formPost, payload: '' } : {}),
      })
      expect(response.statusCode, url).toBeLessThan(500)
    }
    expect(fixture.logLines().filter((line) => /"level":"(error|fatal)"/.test(line))).toEqual([])
  })

  it('writes only a CSP source of cancelRedirectUrl into form-action, and never a string that splits a directive', async () => {
    const payment = await created({ cancelRedirectUrl: 'https://a;script-src*;x/' })
    const path = pathOf(payment)
    const page = await fixture.app.inject({ method: 'GET', url: path })
    expect(page.statusCode).toBe(200)
    const policy = page.headers['content-security-policy'] as string
    expect(policy).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    )
    expect(policy).not.toContain('script-src*')
    // the browser would refuse the redirect to it (form-action): the page itself says canceled
    const cancel = await fixture.app.inject({
      method: 'POST',
      url: `${path}/cancel`,
      headers: formPost,
      payload: '',
    })
    expect(cancel.statusCode).toBe(303)
    expect(cancel.headers.location).toBe(path)
  })

  it('never logs the checkout token: page views, status polls, logo, cancel and unknown paths under it', async () => {
    const payment = await created()
    const path = pathOf(payment)
    const token = path.slice('/pay/'.length)
    for (const [method, url] of [
      ['GET', path],
      ['GET', `${path}?lang=de`],
      ['GET', `${path}/status`],
      ['GET', `${path}/logo`],
      ['GET', `${path}/status/`],
      ['GET', `${path}/nothing`],
      ['POST', `${path}/cancel`],
    ] as const) {
      await fixture.app.inject({
        method,
        url,
        ...(method === 'POST' ? { headers: formPost, payload: '' } : {}),
      })
    }
    const lines = fixture.logLines()
    const requestLines = lines.filter((line) => line.includes('"request completed"'))
    expect(requestLines.filter((line) => line.includes('/pay/[redacted]'))).toHaveLength(7)
    expect(requestLines.join('\n')).toContain('"url":"/pay/[redacted]/status"')
    expect(lines.filter((line) => line.includes(token))).toEqual([])
    // nor any part of it long enough to open the page
    expect(lines.filter((line) => line.includes(token.slice(22)))).toEqual([])
  })
})

describe("the customer's page in the OpenAPI document", () => {
  it('documents every checkout route as served: each answers a documented status and content type', async () => {
    const document = json<{ paths: Record<string, Record<string, unknown>> }>(
      await fixture.app.inject({ method: 'GET', url: '/api/merchant/v1/openapi.json' }),
    )
    const path = pathOf(await created())
    const operations = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item)
        .filter(([method]) => ['get', 'post'].includes(method))
        .map(([method, operation]) => ({ template, method, operation: operation as Record<string, unknown> }))
        .filter(({ operation }) => (operation.tags as string[]).includes('checkout')),
    )
    expect(operations).toHaveLength(9)
    // the cancel last: it ends what the others show
    operations.sort((a, b) => Number(a.method === 'post') - Number(b.method === 'post'))
    for (const { template, method, operation } of operations) {
      const url = template.replace('/pay/{token}', path)
      const response = await fixture.app.inject({
        method: method.toUpperCase() as 'GET' | 'POST',
        url,
        ...(method === 'post'
          ? {
              headers: {
                origin: FIXTURE_PUBLIC_URL,
                'sec-fetch-site': 'same-origin',
                'content-type': 'application/x-www-form-urlencoded',
              },
              payload: '',
            }
          : {}),
      })
      const documented = (operation.responses as Record<string, { content?: Record<string, unknown> }>)[
        String(response.statusCode)
      ]
      expect(documented, `${method} ${url} ${response.statusCode}`).toBeDefined()
      const types = Object.keys(documented?.content ?? {})
      const type = (response.headers['content-type'] as string | undefined)?.split(';')[0] ?? ''
      if (types.length > 0) {
        expect(
          types.some(
            (documentedType) => documentedType === type || documentedType === `${type.split('/')[0]}/*`,
          ),
          `${method} ${url}: ${type}`,
        ).toBe(true)
      }
    }
  })
})

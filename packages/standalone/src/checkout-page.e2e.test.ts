// The customer's page in a real browser (docs/api.md, "The customer's page"): Debian's Chromium
// driven by playwright-core, against standalone composed in this process on a clock the test drives
// (so that expiry needs no real minutes). One browser, one context per scenario, at 360 x 740 px.
// Each state is saved as a screenshot under .cache/checkout-screenshots/, and every page is checked
// with axe-core: no serious or critical violation.

import { mkdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createManualClock } from '@chainpay/platform'
import type { MerchantClient } from '@chainpay/test-client'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmedPayment, merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const CHROMIUM = '/usr/bin/chromium'
const SCREENSHOTS = fileURLToPath(new URL('../../../.cache/checkout-screenshots/', import.meta.url))
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** a 1×1 PNG: the merchant's logo, served by the shop and shown by the page from its own origin */
const LOGO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
)
const clock = createManualClock(new Date())
let standalone: InProcessStandalone
let client: MerchantClient
let browser: Browser
let shop: Server
let shopOrigin: string

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  // the merchant's shop, where the page sends the customer back
  shop = createServer((request, response) => {
    if (request.url === '/logo.png')
      return void response.writeHead(200, { 'content-type': 'image/png' }).end(LOGO)
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(`<!doctype html><html lang="en"><title>Shop</title><h1>Shop ${request.url}</h1></html>`)
  })
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve))
  shopOrigin = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`
  ;[standalone, browser] = await Promise.all([
    startInProcessStandalone({ clock }),
    chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // a fresh temporary profile per launch; nothing in the background talks to the network
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    }),
  ])
  client = merchantClientFor(standalone)
  // the operator names the merchant and its logo for the page (admin API)
  const merchantUrl = `${standalone.adminUrl}/admin/v1/merchants/${standalone.demoMerchant().merchantId}`
  for (const [path, body] of [
    ['display-name', { displayName: 'Acme Store' }],
    ['logo-url', { logoUrl: `${shopOrigin}/logo.png` }],
  ] as const) {
    const response = await fetch(`${merchantUrl}/${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status).toBe(200)
  }
})

afterAll(async () => {
  await browser?.close()
  await standalone?.stop()
  await new Promise((resolve) => shop?.close(resolve))
})

interface Created extends PaymentBody {
  checkoutUrl: string
}

async function create(body: Record<string, unknown> = {}): Promise<Created> {
  const response = await client.createPayment({
    amount: '10',
    currency: 'USDT',
    network: 'TRON',
    description: 'Order #1042',
    // long enough that the expiry scenario's clock jump leaves these payments open
    expiresInMinutes: 600,
    successRedirectUrl: `${shopOrigin}/thanks`,
    cancelRedirectUrl: `${shopOrigin}/cart`,
    ...body,
  } as never)
  expect(response.status).toBe(201)
  return response.body as Created
}

interface Visit {
  context: BrowserContext
  page: Page
  /** every URL the page asked for, in order */
  requests: string[]
}

async function visit(url: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, ...options })
  const page = await context.newPage()
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))
  await page.goto(url)
  return { context, page, requests }
}

/**
 * nothing but the page's own origin was asked for, up to now; `navigations` are the pages the
 * checkout announces it leaves for (successRedirectUrl after REDIRECT_SECONDS), which a slow run
 * may already have reached
 */
function expectSameOrigin(visit: Visit, origin: string, navigations: string[] = []) {
  expect(visit.requests.length).toBeGreaterThan(0)
  // what the merchant's page asks for once the customer is there is not the checkout's doing
  const left = visit.requests.findIndex((url) => navigations.includes(url))
  const ours = left === -1 ? visit.requests : visit.requests.slice(0, left)
  expect(ours.filter((url) => new URL(url).origin !== origin)).toEqual([])
}

async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated over the DevTools protocol, which the page's CSP does not govern
  await page.evaluate(axeSource)
  const violations = await page.evaluate<{ id: string; impact: string }[]>(
    'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
  )
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)
}

const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true })

const statusText = (page: Page) => page.locator('#status')

describe.concurrent("the customer's page in Chromium", () => {
  it('shows what the payment says at 360 px, accessible, copyable, and asks nothing of another origin', async () => {
    const payment = await create()
    const origin = new URL(payment.checkoutUrl).origin
    const light = await visit(payment.checkoutUrl)
    const { page } = light
    await expect.poll(() => statusText(page).textContent()).toBe('Awaiting payment')
    expect(await page.locator('h1').textContent()).toBe('Pay Acme Store')
    // the logo, fetched by the gateway and served from the page's own origin
    expect(await page.locator('img.logo').getAttribute('src')).toBe(
      `${new URL(payment.checkoutUrl).pathname}/logo`,
    )
    await expect.poll(() => page.evaluate("document.querySelector('img.logo').naturalWidth")).toBe(1)
    expect(await page.locator('#amount').textContent()).toBe('10')
    expect(await page.locator('#address').textContent()).toBe(payment.generatedAddress)
    expect(await page.locator('.qr svg').isVisible()).toBe(true)
    // at 360 x 740 the amount, the network and its warning are on the first screen, above the QR code
    const bottomOf = async (selector: string) => {
      const box = await page.locator(selector).boundingBox()
      return box === null ? Number.POSITIVE_INFINITY : box.y + box.height
    }
    expect(await bottomOf('#amount')).toBeLessThan(await bottomOf('.qr'))
    expect(await bottomOf('#network-warning')).toBeLessThanOrEqual(740)
    expect(await page.locator('#network-warning').textContent()).toBe(
      'Send only on TRON (TRC20). Funds sent on another network are lost.',
    )
    // TRON's QR code is the address: the note beside it names the token and the amount, Trust Wallet's
    // link carries both, and the token's contract is there to check
    expect(await page.locator('#qr-note').textContent()).toBe(
      'The QR code holds the address only: in your wallet, choose USDT (TRC20) and enter 10.',
    )
    expect(await page.getByRole('link', { name: 'Open in Trust Wallet' }).getAttribute('href')).toBe(
      `https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&address=${payment.generatedAddress}&amount=10`,
    )
    expect(await page.locator('#token-contract').textContent()).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
    // the page's icon, from its own origin
    expect((await page.request.get(`${origin}/favicon.ico`)).status()).toBe(200)
    // no horizontal scrolling at 360 px
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360)
    await light.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin })
    await page.getByRole('button', { name: 'Copy: Address' }).click()
    await expect.poll(() => page.locator('#announce').textContent()).toBe('Copied')
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payment.generatedAddress)
    expect(await page.evaluate("document.activeElement.getAttribute('aria-label')")).toBe('Copy: Address')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'awaiting-light')
    // a few polls of the live status
    await page.waitForTimeout(2_500)
    expectSameOrigin(light, origin)

    const dark = await visit(`${payment.checkoutUrl}?lang=de`, { colorScheme: 'dark' })
    expect(await statusText(dark.page).textContent()).toBe('Warten auf Zahlung')
    expect(await seriousViolations(dark.page)).toEqual([])
    await screenshot(dark.page, 'awaiting-dark-de')
    expectSameOrigin(dark, origin)
    await Promise.all([light.context.close(), dark.context.close()])
  })

  it('shows the price in fiat beside the amount, with the locked rate, in English and German, accessible', async () => {
    // the simulated rates of standalone: USDT is 0.93 EUR (docs/api.md, "Prices in fiat")
    const payment = await create({ amount: undefined, priceAmount: '9.30', priceCurrency: 'EUR' })
    const english = await visit(payment.checkoutUrl)
    expect(await english.page.locator('#amount').textContent()).toBe('10')
    expect(await english.page.locator('#price').textContent()).toBe('€9.30')
    expect(await english.page.locator('#rate').textContent()).toBe(
      'At 1 USDT = €0.93, fixed until the payment expires.',
    )
    expect(await english.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      360,
    )
    expect(await seriousViolations(english.page)).toEqual([])
    const german = await visit(`${payment.checkoutUrl}?lang=de`, { colorScheme: 'dark' })
    expect(await german.page.locator('#price').textContent()).toBe('9,30\u00a0€')
    expect(await seriousViolations(german.page)).toEqual([])
    await screenshot(german.page, 'priced-in-fiat-de')
    await Promise.all([english.context.close(), german.context.close()])
  })

  it('moves live to paid when the customer pays, then on to successRedirectUrl', async () => {
    const payment = await create()
    const origin = new URL(payment.checkoutUrl).origin
    const { page, context, requests } = await visit(payment.checkoutUrl)
    await page.evaluate('window.loadedOnce = true')
    const txHash = await pay(standalone, 'TRON', {
      to: payment.generatedAddress,
      amount: '10',
      currency: 'USDT',
    })
    await page.locator('#status', { hasText: 'Paid. Thank you!' }).waitFor({ timeout: 20_000 })
    // updated in place, not reloaded
    expect(await page.evaluate('window.loadedOnce')).toBe(true)
    expect(await page.locator('#back').getAttribute('href')).toBe(`${shopOrigin}/thanks`)
    // the receipt: the transaction's hash, linked to the network's explorer
    expect(await page.locator('.tx-hash').textContent()).toBe(txHash)
    expect(await page.getByRole('link', { name: 'View on Tronscan' }).getAttribute('href')).toBe(
      `https://tronscan.org/#/transaction/${txHash}`,
    )
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'paid')
    expectSameOrigin({ context, page, requests }, origin, [`${shopOrigin}/thanks`])
    await page.waitForURL(`${shopOrigin}/thanks`, { timeout: 10_000 })
    await context.close()
  })

  it('shows the amount still due of an underpayment, and a top-up completes it', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl)
    await pay(standalone, 'TRON', { to: payment.generatedAddress, amount: '4', currency: 'USDT' })
    await page.locator('#status', { hasText: 'Not paid in full' }).waitFor({ timeout: 20_000 })
    expect(await statusText(page).textContent()).toBe(
      'Not paid in full: send the remaining 6 USDT to the same address.',
    )
    expect(await page.locator('#amount').textContent()).toBe('6')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'underpaid')
    await pay(standalone, 'TRON', { to: payment.generatedAddress, amount: '6', currency: 'USDT' })
    await page.locator('#status', { hasText: 'Paid. Thank you!' }).waitFor({ timeout: 20_000 })
    await context.close()
  })

  it('says so when the payment expires, with the way back to the shop', async () => {
    const payment = await create({ expiresInMinutes: 1 })
    const { page, context } = await visit(payment.checkoutUrl)
    clock.advance(61_000)
    await waitForPayment(client, payment.paymentId, (p) => p.status === 'expired', 20_000)
    await page.locator('#status', { hasText: 'expired' }).waitFor({ timeout: 10_000 })
    expect(await page.locator('#back').getAttribute('href')).toBe(`${shopOrigin}/cart`)
    expect(await page.locator('.qr').count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'expired')
    // paid a little too late: the page says the money arrived and what to do, with the hash
    const txHash = await pay(standalone, 'TRON', {
      to: payment.generatedAddress,
      amount: '10',
      currency: 'USDT',
    })
    await waitForPayment(
      client,
      payment.paymentId,
      (p) => (p as unknown as { lateFunds: unknown[] }).lateFunds.length > 0,
      20_000,
    )
    // the page of an expired payment still asks now and then (CLOSED_POLL_MS, 10 s)
    await page.locator('#status', { hasText: 'arrived after' }).waitFor({ timeout: 15_000 })
    expect(await statusText(page).textContent()).toBe(
      'Your funds arrived after this payment had expired: 10 USDT received.',
    )
    expect(await page.locator('#help').textContent()).toContain('Contact Acme Store with the reference')
    expect(await page.locator('.tx-hash').textContent()).toBe(txHash)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'expired-late-funds')
    await context.close()
  })

  it('says how much an overpayment received and whom to contact, and stays on the page', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl)
    const txHash = await pay(standalone, 'TRON', {
      to: payment.generatedAddress,
      amount: '12',
      currency: 'USDT',
    })
    await page.locator('#status', { hasText: 'more than the amount' }).waitFor({ timeout: 20_000 })
    expect(await statusText(page).textContent()).toBe(
      'Paid, with more than the amount: 12 USDT received, 2 USDT too much.',
    )
    expect(await page.locator('#help').textContent()).toBe(
      'Contact Acme Store with the reference and the transaction below to get the difference back.',
    )
    expect(await page.locator('.tx-hash').textContent()).toBe(txHash)
    expect(await page.locator('#back').getAttribute('href')).toBe(`${shopOrigin}/thanks`)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'overpaid')
    // no redirect by itself: the page is still there after the paid page's delay
    await page.waitForTimeout(6_000)
    expect(page.url()).toBe(payment.checkoutUrl)
    await context.close()
  })

  it('lets the customer cancel after confirming, and lands on cancelRedirectUrl', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl)
    // the cancel link sits at the foot, far below the copy buttons
    const copyBottom = await page.getByRole('button', { name: 'Copy: Address' }).boundingBox()
    const cancelTop = await page.getByRole('link', { name: 'Cancel payment' }).boundingBox()
    expect(cancelTop && copyBottom && cancelTop.y - (copyBottom.y + copyBottom.height)).toBeGreaterThan(100)
    await page.getByRole('link', { name: 'Cancel payment' }).click()
    await page.waitForURL(`${payment.checkoutUrl}/cancel?lang=en`)
    expect(await page.locator('h1').textContent()).toBe('Cancel this payment?')
    expect((await client.getPayment(payment.paymentId)).body).toMatchObject({ status: 'pending' })
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'cancel-confirm')
    await page.getByRole('button', { name: 'Yes, cancel the payment' }).click()
    await page.waitForURL(`${shopOrigin}/cart`)
    const canceled = await waitForPayment(client, payment.paymentId, (p) => p.status === 'canceled', 5_000)
    expect(canceled.status).toBe('canceled')
    await page.goto(payment.checkoutUrl)
    expect(await statusText(page).textContent()).toContain('This payment was canceled.')
    await screenshot(page, 'canceled')
    await context.close()
  })

  it('still shows the status with JavaScript off, refreshes itself, and cancels through the confirmation', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl, { javaScriptEnabled: false })
    expect(await statusText(page).textContent()).toBe('Awaiting payment')
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('10')
    // copying needs the script: the buttons stay hidden rather than doing nothing
    expect(await page.getByRole('button', { name: 'Copy: Address' }).count()).toBe(0)
    await screenshot(page, 'no-script')
    await page.getByRole('link', { name: 'Cancel payment' }).click()
    await page.getByRole('button', { name: 'Yes, cancel the payment' }).click()
    await page.waitForURL(`${shopOrigin}/cart`)
    await waitForPayment(client, payment.paymentId, (p) => p.status === 'canceled', 5_000)
    await context.close()
  })

  // the refund claim page (docs/api.md, "The refund claim page"), in the same browser and standalone
  it('takes a refund address by keyboard: refused beside the field, shown back, then given', async () => {
    const payment = await confirmedPayment(standalone, { network: 'TRON', currency: 'USDT', amount: '10' })
    const created = await client.request(
      'POST',
      `/payments/${payment.paymentId}/refunds`,
      JSON.stringify({ amount: '4', reason: 'Order #1042 returned', idempotencyKey: payment.paymentId }),
    )
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const refund = created.body as { refundId: string; claimUrl: string }
    const claim = await visit(refund.claimUrl)
    const { page } = claim
    const focused = () =>
      page.evaluate<string>('document.activeElement?.id || document.activeElement?.textContent')
    expect(await page.locator('h1').textContent()).toBe('Refund from Acme Store')
    expect(await page.locator('#amount').textContent()).toBe('4')
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360)
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'refund-claim-form')

    // the field is the keyboard's first stop; Enter sends the form
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('address')
    await page.keyboard.type('0x52908400098527886E0F7030069857D2E4169EE7')
    await page.keyboard.press('Enter')
    await page.locator('#address-error').waitFor()
    // refused: the focus is back on the field, which names the error for screen readers
    expect(await page.title()).toBe('Error: Refund from Acme Store')
    expect(await focused()).toBe('address')
    expect(await page.locator('#address').getAttribute('aria-invalid')).toBe('true')
    expect(await page.locator('#address').getAttribute('aria-describedby')).toContain('address-error')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'refund-claim-refused')

    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.type('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')
    await page.keyboard.press('Enter')
    await page.locator('#confirm-address').waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'refund-claim-confirm')
    expect((await client.request('GET', `/refunds/${refund.refundId}`)).body).toMatchObject({
      status: 'awaiting_address',
    })
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('Yes, send the refund to this address')
    await page.keyboard.press('Enter')
    await page.locator('#given-address').waitFor()
    expect(await statusText(page).textContent()).toBe('Your refund is on its way: it will be sent soon.')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'refund-claim-ready')
    expect((await client.request('GET', `/refunds/${refund.refundId}`)).body).toMatchObject({
      status: 'ready',
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    })
    expectSameOrigin(claim, new URL(refund.claimUrl).origin)
    await claim.context.close()
  })

  it('answers an unknown token with a 404 page that names no payment', async () => {
    const { page, context } = await visit(`${standalone.baseUrl}/pay/${'A'.repeat(44)}`)
    expect(await page.locator('h1').textContent()).toBe('Page not found')
    expect(await seriousViolations(page)).toEqual([])
    await screenshot(page, 'not-found')
    await context.close()
  })

  it('blocks an injected inline script by its CSP', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl)
    const violation = page.evaluate<string>(`new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective))
      const script = document.createElement('script')
      script.textContent = 'window.injected = true'
      document.head.append(script)
    })`)
    expect(await violation).toBe('script-src-elem')
    expect(await page.evaluate('window.injected')).toBeUndefined()
    await context.close()
  })
})

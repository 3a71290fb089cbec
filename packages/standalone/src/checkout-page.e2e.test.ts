// The customer's page in a real browser (docs/api.md, "The customer's page"): Debian's Chromium
// driven by playwright-core, against standalone composed in this process on a clock the test drives
// (so that expiry needs no real minutes). One browser, one context per scenario, at 360 px wide.
// Each state is saved as a screenshot under .cache/checkout-screenshots/, and every page is checked
// with axe-core: no serious or critical violation.

import { mkdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { MerchantClient } from '@chainpay/client'
import { createManualClock } from '@chainpay/platform'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
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
  const context = await browser.newContext({ viewport: { width: 360, height: 780 }, ...options })
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

  it('moves live to paid when the customer pays, then on to successRedirectUrl', async () => {
    const payment = await create()
    const origin = new URL(payment.checkoutUrl).origin
    const { page, context, requests } = await visit(payment.checkoutUrl)
    await page.evaluate('window.loadedOnce = true')
    await pay(standalone, 'TRON', { to: payment.generatedAddress, amount: '10', currency: 'USDT' })
    await page.locator('#status', { hasText: 'Paid. Thank you!' }).waitFor({ timeout: 20_000 })
    // updated in place, not reloaded
    expect(await page.evaluate('window.loadedOnce')).toBe(true)
    expect(await page.locator('#back').getAttribute('href')).toBe(`${shopOrigin}/thanks`)
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
    await context.close()
  })

  it('lets the customer cancel, and lands on cancelRedirectUrl', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl)
    await page.getByRole('button', { name: 'Cancel payment' }).click()
    await page.waitForURL(`${shopOrigin}/cart`)
    const canceled = await waitForPayment(client, payment.paymentId, (p) => p.status === 'canceled', 5_000)
    expect(canceled.status).toBe('canceled')
    await page.goto(payment.checkoutUrl)
    expect(await statusText(page).textContent()).toContain('This payment was canceled.')
    await screenshot(page, 'canceled')
    await context.close()
  })

  it('still shows the status with JavaScript off, and refreshes itself', async () => {
    const payment = await create()
    const { page, context } = await visit(payment.checkoutUrl, { javaScriptEnabled: false })
    expect(await statusText(page).textContent()).toBe('Awaiting payment')
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('10')
    // copying needs the script: the buttons stay hidden rather than doing nothing
    expect(await page.getByRole('button', { name: 'Copy: Address' }).count()).toBe(0)
    await screenshot(page, 'no-script')
    await context.close()
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

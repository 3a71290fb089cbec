// The invoice's page in a real browser (docs/api.md, "The invoice's page"): Debian's Chromium driven
// by playwright-core at 360 x 740 px against standalone composed in this process. A customer picks
// an asset by keyboard alone, reaches the payment's page with the fiat price beside the amount, and
// pays through the chain simulator; both pages are checked with axe-core (no serious or critical
// violation) and ask nothing of another origin.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createManualClock } from '@chainpay/platform'
import { chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const CHROMIUM = '/usr/bin/chromium'
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

let standalone: InProcessStandalone
let browser: Awaited<ReturnType<typeof chromium.launch>>

beforeAll(async () => {
  ;[standalone, browser] = await Promise.all([
    startInProcessStandalone({ clock: createManualClock(new Date()) }),
    chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    }),
  ])
})

afterAll(async () => {
  await browser?.close()
  await standalone?.stop()
})

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource)
  const violations = await page.evaluate<{ id: string; impact: string }[]>(
    'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
  )
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)
}

describe("the invoice's page in Chromium", () => {
  it('a customer picks an asset by keyboard at 360 px, reaches the payment with the fiat price, and pays it', async () => {
    const client = merchantClientFor(standalone)
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
        description: 'Order #2001',
        expiresInMinutes: 60,
        idempotencyKey: 'invoice-browser-1',
      }),
      { 'content-type': 'application/json' },
    )
    expect(created.status).toBe(201)
    const invoice = created.body as { invoiceId: string; checkoutUrl: string }
    const origin = new URL(invoice.checkoutUrl).origin
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
    const page = await context.newPage()
    const requests: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    await page.goto(invoice.checkoutUrl)

    expect(await page.locator('#price').textContent()).toBe('$10.00')
    expect(await page.getByRole('radio', { name: /USDT on TRON/ }).isVisible()).toBe(true)
    expect(await page.locator('#expiry').textContent()).toMatch(/^Pay within 60 minutes/)
    expect(await page.locator('#rate-lock').textContent()).toContain('set when you choose')
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360)
    expect(await seriousViolations(page)).toEqual([])

    // by keyboard alone: into the radio group, down to the second asset, on to the button, Enter
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press('Tab')
      if (await page.evaluate<boolean>("document.activeElement?.getAttribute('type') === 'radio'")) break
    }
    await page.keyboard.press('ArrowDown')
    expect(await page.getByRole('radio', { name: /USDT on TRON/ }).isChecked()).toBe(true)
    await page.keyboard.press('Tab')
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('pay')
    await Promise.all([page.waitForURL(/\/pay\/[A-Za-z0-9_-]{44}\?lang=en$/), page.keyboard.press('Enter')])

    // the payment's page: the amount at the rate locked now, the fiat price beside it
    expect(await page.locator('#amount').textContent()).toBe('10')
    expect(await page.locator('#price').textContent()).toBe('$10.00')
    expect(await page.getByRole('link', { name: 'Pay with another coin' }).isVisible()).toBe(true)
    expect(await seriousViolations(page)).toEqual([])
    const address = (await page.locator('#address').textContent()) as string

    await pay(standalone, 'TRON', { to: address, amount: '10', currency: 'USDT' })
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 15_000 })
      .toBe('Paid. Thank you!')
    await expect
      .poll(
        async () =>
          ((await client.request('GET', `/invoices/${invoice.invoiceId}`)).body as { status: string }).status,
        {
          timeout: 15_000,
        },
      )
      .toBe('paid')
    expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([])
    await context.close()
  }, 40_000)
})

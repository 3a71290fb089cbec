// The merchant's dashboard in a real browser (docs/dashboard.md): Debian's Chromium driven by
// playwright-core against standalone composed in this process, at 360 px wide. The operator adds an
// owner through the admin API; the owner opens the setup link, sets a password, enrols TOTP from the
// key the page shows (the test's authenticator is otpauth), signs in with a code, and looks up a
// paid payment by its transaction hash, as support does when a customer quotes it. Every page is
// checked with axe-core (no serious or critical violation; the payment's page in light and dark)
// and asks nothing of another origin. The owner then refunds part of the payment from its page
// (the customer gives the address by claim link). Then the payment's webhook deliveries, one
// redelivered, and the CSV export downloaded (its bytes checked). Screenshots under
// .cache/dashboard-screenshots/.

import { mkdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { systemClock } from '@chainpay/platform'
import { Secret, TOTP } from 'otpauth'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { launchChromium, seriousViolations } from './testing/dashboard-browser.js'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const PASSWORD = 'a long passphrase for the owner'
const SCREENSHOTS = fileURLToPath(new URL('../../../.cache/dashboard-screenshots/', import.meta.url))

let standalone: InProcessStandalone
let browser: Browser
/** the merchant's webhook receiver: answers 200, so that a delivery is delivered and redeliverable */
let receiver: Server

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  ;[standalone, browser] = await Promise.all([
    startInProcessStandalone({ clock: systemClock }),
    launchChromium(),
  ])
})

afterAll(async () => {
  if (receiver) await new Promise((resolve) => receiver.close(resolve))
  await browser?.close()
  await standalone?.stop()
})

/** a payment paid through the chain simulator, confirmed; the transfer's hash */
async function paidPayment(): Promise<{ paymentId: string; txHash: string }> {
  const client = merchantClientFor(standalone)
  const payment = (await client.createPayment({ amount: '10', currency: 'USDT', network: 'TRON' } as never))
    .body as PaymentBody
  const txHash = await pay(standalone, 'TRON', {
    to: payment.generatedAddress,
    amount: '10',
    currency: 'USDT',
  })
  await waitForPayment(client, payment.paymentId, (seen) => seen.status === 'confirmed')
  return { paymentId: payment.paymentId, txHash }
}

it('an owner sets up TOTP, signs in with a code and finds a payment by its tx hash; axe clean', async () => {
  receiver = createServer((_request, response) => response.writeHead(200).end())
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const setUrl = await fetch(
    `${standalone.adminUrl}/admin/v1/merchants/${standalone.demoMerchant().merchantId}/webhook-url`,
    {
      method: 'PUT',
      headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      }),
    },
  )
  expect(setUrl.status, await setUrl.text()).toBe(200)
  const paid = paidPayment()
  const added = await fetch(
    `${standalone.adminUrl}/admin/v1/merchants/${standalone.demoMerchant().merchantId}/users`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@shop.example', role: 'owner' }),
    },
  )
  expect(added.status).toBe(201)
  const { setupUrl } = (await added.json()) as { setupUrl: string }
  const origin = new URL(setupUrl).origin

  const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
  const page = await context.newPage()
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))

  // the setup: a password, and the authenticator app given the key the page shows
  await page.goto(setupUrl)
  expect(await seriousViolations(page)).toEqual([])
  const secret = (await page.locator('#totp-secret').textContent())?.trim() as string
  const codeAt = (offsetMs: number) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs })
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Password again').fill(PASSWORD)
  await page.getByLabel('Code from your authenticator app').fill(codeAt(0))
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await expect.poll(() => page.locator('[role=status]').textContent()).toContain('Your account is ready')
  expect(await seriousViolations(page)).toEqual([])

  // sign-in: the setup's code is used, the next step's is accepted (one step of drift either side)
  await page.getByLabel('Email').fill('owner@shop.example')
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Code from your authenticator app').fill(codeAt(30_000))
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Payments' }).waitFor()
  await page.screenshot({ path: `${SCREENSHOTS}payments.png`, fullPage: true })
  // the owner's pages, by keyboard-reachable links of the navigation
  await page.getByRole('link', { name: 'Users' }).click()
  await page.getByRole('heading', { name: 'Users' }).waitFor()
  expect(await seriousViolations(page)).toEqual([])
  await page.getByRole('link', { name: 'Audit log' }).click()
  await page.getByRole('heading', { name: 'Audit log' }).waitFor()
  expect(await page.locator('main').textContent()).toContain('session.signed_in')
  expect(await seriousViolations(page)).toEqual([])
  await page.getByRole('link', { name: 'Payments' }).click()
  const cookies = await context.cookies()
  // PUBLIC_URL is http on loopback here: no Secure, no __Host- prefix (docs/dashboard.md)
  expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
    { name: 'chainpay_session', httpOnly: true, sameSite: 'Strict', path: '/dashboard' },
  ])

  // support's lookup: the hash the customer quotes
  const { paymentId, txHash } = await paid
  await page.getByLabel('Payment id, address or transaction hash').fill(txHash)
  await page.getByRole('button', { name: 'Search' }).click()
  await page.getByRole('link', { name: paymentId }).click()
  await page.getByRole('heading', { name: 'History' }).waitFor()
  expect(await page.locator('main').textContent()).toContain(txHash)
  expect(await page.locator('main').textContent()).toContain('payment.confirmed')
  expect(await seriousViolations(page)).toEqual([])
  await page.screenshot({ path: `${SCREENSHOTS}payment-light.png`, fullPage: true })
  // dark, as prefers-color-scheme asks: its contrast checked too
  await page.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(page)).toEqual([])
  await page.screenshot({ path: `${SCREENSHOTS}payment-dark.png`, fullPage: true })
  await page.emulateMedia({ colorScheme: 'light' })

  // the payment's webhook deliveries (the notifier records them as it goes), one redelivered
  await page.getByRole('link', { name: 'Deliveries' }).click()
  await page.getByRole('heading', { name: `Deliveries of payment ${paymentId}` }).waitFor()
  // sent to the receiver: none pending any more (a pending one is in line already: 429)
  await expect
    .poll(async () => {
      await page.reload()
      const pending = await page.locator('td.status-pending').count()
      return pending === 0 && (await page.locator('td.status-delivered').count()) >= 2
    })
    .toBe(true)
  expect(await seriousViolations(page)).toEqual([])
  await page.getByRole('button', { name: 'Redeliver' }).first().click()
  await expect
    .poll(() => page.locator('main .message').first().textContent({ timeout: 5_000 }))
    .toContain('in line again')

  // the CSV export, as the accountant downloads it: UTF-8 with a BOM, the payment's row exact
  await page.getByRole('link', { name: 'Payments' }).click()
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export as CSV' }).click(),
  ])
  const bytes = readFileSync((await download.path()) as string)
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
  const csv = bytes.toString('utf8')
  expect(csv).toContain('paymentId,status,createdAt,network,currency,tokenStandard,amount,')
  expect(csv).toMatch(new RegExp(`\r\n${paymentId},confirmed,[^\r]*,TRON,USDT,TRC20,10,10,10,`))

  // the Volume page's chart and table, and the Webhooks page: axe clean
  await page.getByRole('link', { name: 'Volume' }).click()
  await page.getByRole('heading', { name: 'USDT · TRON' }).waitFor()
  expect(await seriousViolations(page)).toEqual([])
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByRole('heading', { name: 'Webhook endpoints' }).waitFor()
  expect(await seriousViolations(page)).toEqual([])

  // the customer asks for money back: a refund from the payment's page, the address by claim link
  await page.emulateMedia({ colorScheme: 'light' })
  await page.getByRole('link', { name: 'Payments' }).click()
  await page.getByRole('link', { name: paymentId }).click()
  await page.getByRole('link', { name: 'Refund this payment' }).click()
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel('Amount').fill('1.5')
  await page.getByLabel('Reason').fill('customer changed their mind')
  await page.getByRole('button', { name: 'Create refund' }).click()
  await page.getByRole('heading', { name: 'Refunds and payouts' }).waitFor()
  expect(await page.locator('[role=status]').first().textContent()).toContain('created')
  expect(await page.locator('#claim-link').textContent()).toContain(`${origin}/refund/`)
  expect(await page.locator('main').textContent()).toContain('awaiting_address')
  expect(await seriousViolations(page)).toEqual([])
  await page.screenshot({ path: `${SCREENSHOTS}refunds.png`, fullPage: true })

  expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([])
  await context.close()
})

// The dashboard's limits in a real browser (docs/dashboard.md, "Users", "Sessions and forms"):
// Debian's Chromium driven by playwright-core against standalone composed in this process, on a
// clock the test moves. An owner (TOTP), a developer and a viewer set up and sign in, each in a
// browser of their own. The viewer sees no refund, redelivery or API key action, and the forms the
// test forges in the viewer's page, with the viewer's own valid CSRF token, are refused (403) and
// change nothing, read back through the merchant and admin APIs; the developer redelivers but may
// not refund. In the owner's page a form without the token, with another session's, and one posted
// by a page of another local origin are refused. The owner signs the viewer out everywhere from the
// Users page, and after 12 idle hours the developer's next form gets the sign-in form. dashboard.e2e covers
// the owner's own work (lookup by tx hash, refund, redelivery, CSV).

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SESSION_IDLE_MS } from '@chainpay/dashboard'
import type { Clock } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { createMerchantClient, type MerchantClient } from '@chainpay/test-client'
import { Secret, TOTP } from 'otpauth'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import {
  addDashboardUser,
  launchChromium,
  seriousViolations,
  setUpInBrowser,
  signInInBrowser,
} from './testing/dashboard-browser.js'
import { type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const PASSWORD = 'a long passphrase for the shop'
/** the real time, moved on by the test: a session's 12 idle hours pass at once */
let skewMs = 0
const clock: Clock = { now: () => new Date(Date.now() + skewMs) }

let standalone: InProcessStandalone
let browser: Browser
let receiver: WebhookReceiver
/** another origin on this machine (another port of 127.0.0.1: same site, so the cookie goes along) */
let otherSite: Server
let client: MerchantClient
const contexts: BrowserContext[] = []
const pages = {} as Record<'owner' | 'developer' | 'viewer', Page>
let paymentId: string

beforeAll(async () => {
  ;[standalone, browser, receiver] = await Promise.all([
    startInProcessStandalone({ clock }),
    launchChromium(),
    startWebhookReceiver(),
  ])
  const merchant = standalone.demoMerchant()
  client = createMerchantClient({
    baseUrl: standalone.apiUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
    now: () => clock.now().getTime(),
  })
  const paid = paidPayment()
  const admin = { adminUrl: standalone.adminUrl, adminToken: standalone.adminToken() }
  const signInUrl = `${standalone.baseUrl}/dashboard/sign-in`
  const codeAt = (secret: string, offsetMs: number) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() + offsetMs })
  await Promise.all(
    (['owner', 'developer', 'viewer'] as const).map(async (role) => {
      const email = `${role}@shop.example`
      const setupUrl = await addDashboardUser(admin, merchant.merchantId, { email, role })
      const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
      contexts.push(context)
      const page = await context.newPage()
      pages[role] = page
      const secret = await setUpInBrowser(
        page,
        setupUrl,
        PASSWORD,
        role === 'owner' ? (key) => codeAt(key, 0) : undefined,
      )
      // the setup's code is used: the sign-in takes the next step's
      await signInInBrowser(page, signInUrl, {
        email,
        password: PASSWORD,
        ...(secret === null ? {} : { code: codeAt(secret, 30_000) }),
      })
    }),
  )
  paymentId = (await paid).paymentId
  // its webhooks delivered, so that a redelivery would be accepted at once
  await receiver.waitFor((all) => all.some((hook) => hook.body.event === 'payment.confirmed'))
  await vi.waitFor(async () => expect((await deliveries()).map((d) => d.status)).not.toContain('pending'), {
    timeout: 10_000,
    interval: 100,
  })
  otherSite = createServer((request, response) => {
    const action = new URL(request.url ?? '/', 'http://x').searchParams.get('action') ?? ''
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
      `<!doctype html><title>A prize for you</title><form method="post" action="${action}">
<input type="hidden" name="amount" value="10"><input type="hidden" name="reason" value="prize">
<input type="hidden" name="idempotencyKey" value="prize-1"><input type="hidden" name="csrf" value="${csrfOf.owner}">
<button type="submit">Claim</button></form>`,
    )
  })
  await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve))
}, 60_000)

afterAll(async () => {
  if (otherSite) await new Promise((resolve) => otherSite.close(resolve))
  for (const context of contexts) await context.close()
  await browser?.close()
  await receiver?.close()
  await standalone?.stop()
})

/** a payment paid through the chain simulator and confirmed, its webhooks sent to the receiver */
async function paidPayment(): Promise<{ paymentId: string; txHash: string }> {
  const created = (
    await client.createPayment({
      amount: '10',
      currency: 'USDT',
      network: 'TRON',
      callbackUrl: receiver.url,
    } as never)
  ).body as PaymentBody
  const txHash = await pay(standalone, 'TRON', {
    to: created.generatedAddress,
    amount: '10',
    currency: 'USDT',
  })
  await waitForPayment(client, created.paymentId, (seen) => seen.status === 'confirmed')
  return { paymentId: created.paymentId, txHash }
}

type Delivery = { id: string; status: string; attempts: unknown[]; nextAttemptAt: string | null }
const deliveries = async () =>
  ((await client.request('GET', `/webhook-deliveries?paymentId=${paymentId}`)).body as { data: Delivery[] })
    .data
const refunds = async () =>
  ((await client.request('GET', '/refunds')).body as { data: { paymentId: string }[] }).data
const apiKeys = async () => {
  const merchant = await fetch(
    `${standalone.adminUrl}/admin/v1/merchants/${standalone.demoMerchant().merchantId}`,
    {
      headers: { authorization: `Bearer ${standalone.adminToken()}` },
    },
  )
  return ((await merchant.json()) as { apiKeys: unknown[] }).apiKeys
}

/** each signed-in page's own CSRF token, as its forms carry it */
const csrfOf = {} as Record<'owner' | 'developer' | 'viewer', string>
const tokenIn = async (page: Page) =>
  (await page.locator('input[name=csrf]').first().getAttribute('value')) as string

/**
 * A form the test forges in the page (as a script injected there would): posted from the page's own
 * origin, its fields as given; the status of the answer, whose page the browser then shows.
 */
async function forgedPost(page: Page, action: string, fields: Record<string, string>): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === action),
    // a string: evaluated in the page, whose DOM this file's types do not know
    page.evaluate(`(() => {
      const form = document.createElement('form')
      form.method = 'post'
      form.action = ${JSON.stringify(action)}
      for (const [name, value] of Object.entries(${JSON.stringify(fields)})) {
        const input = document.createElement('input')
        input.type = 'hidden'
        input.name = name
        input.value = value
        form.append(input)
      }
      document.body.append(form)
      // after this evaluation has returned: the navigation ends its context
      setTimeout(() => form.submit())
    })()`),
    // the answer's page loaded, so that the next step starts from it
    page.waitForEvent('load'),
  ])
  return response.status()
}

const refundFields = (csrf?: string) => ({
  amount: '1',
  reason: 'forged',
  idempotencyKey: `forged-${Math.random()}`,
  ...(csrf === undefined ? {} : { csrf }),
})

it('a viewer sees no refund, redelivery or key action, and its forged posts change nothing', async () => {
  const page = pages.viewer
  csrfOf.viewer = await tokenIn(page)
  const nav = page.getByRole('navigation')
  for (const link of ['Users', 'Audit log', 'API keys']) {
    expect(await nav.getByRole('link', { name: link }).count(), link).toBe(0)
  }
  await page.goto(`${standalone.baseUrl}/dashboard/payments/${paymentId}`)
  await page.getByRole('heading', { name: 'History' }).waitFor()
  expect(await page.getByRole('link', { name: 'Refund this payment' }).count()).toBe(0)
  await page.getByRole('link', { name: 'Deliveries' }).click()
  await page.getByRole('heading', { name: `Deliveries of payment ${paymentId}` }).waitFor()
  expect(await page.locator('td.status-delivered').count()).toBeGreaterThan(0)
  expect(await page.getByRole('button', { name: 'Redeliver' }).count()).toBe(0)
  expect(await seriousViolations(page)).toEqual([])
  const keysPage = await page.goto(`${standalone.baseUrl}/dashboard/api-keys`)
  expect(keysPage?.status()).toBe(403)
  expect(await page.locator('main').textContent()).toContain('Your role does not allow this.')

  const [deliveriesBefore, keysBefore] = [await deliveries(), await apiKeys()]
  const [delivery] = deliveriesBefore
  expect(
    await forgedPost(page, `/dashboard/payments/${paymentId}/refunds`, refundFields(csrfOf.viewer)),
  ).toBe(403)
  expect(await page.locator('main').textContent()).toContain('Your role does not allow this.')
  expect(
    await forgedPost(page, `/dashboard/webhooks/deliveries/${delivery?.id}/redeliver`, {
      csrf: csrfOf.viewer,
    }),
  ).toBe(403)
  expect(await forgedPost(page, '/dashboard/api-keys', { csrf: csrfOf.viewer })).toBe(403)
  expect(
    await forgedPost(page, '/dashboard/users', {
      email: 'mole@shop.example',
      role: 'owner',
      csrf: csrfOf.viewer,
    }),
  ).toBe(403)
  // nothing happened: no refund, the deliveries as they were, no new key, no new user
  expect(await refunds()).toEqual([])
  expect(await deliveries()).toEqual(deliveriesBefore)
  expect(await apiKeys()).toEqual(keysBefore)
  await pages.owner.goto(`${standalone.baseUrl}/dashboard/users`)
  expect(await pages.owner.locator('main').textContent()).toContain('viewer@shop.example')
  expect(await pages.owner.locator('main').textContent()).not.toContain('mole@shop.example')
})

it('a developer redelivers but sees no refund or key action, and its forged refund changes nothing', async () => {
  const page = pages.developer
  csrfOf.developer = await tokenIn(page)
  const nav = page.getByRole('navigation')
  for (const link of ['Users', 'Audit log', 'API keys']) {
    expect(await nav.getByRole('link', { name: link }).count(), link).toBe(0)
  }
  await page.goto(`${standalone.baseUrl}/dashboard/payments/${paymentId}`)
  await page.getByRole('heading', { name: 'History' }).waitFor()
  expect(await page.getByRole('link', { name: 'Refund this payment' }).count()).toBe(0)
  const keysBefore = await apiKeys()
  expect(
    await forgedPost(page, `/dashboard/payments/${paymentId}/refunds`, refundFields(csrfOf.developer)),
  ).toBe(403)
  expect(await forgedPost(page, '/dashboard/api-keys', { csrf: csrfOf.developer })).toBe(403)
  expect(await refunds()).toEqual([])
  expect(await apiKeys()).toEqual(keysBefore)

  // what a developer may: a redelivery, sent to the receiver again
  const before = receiver.received.length
  await page.goto(`${standalone.baseUrl}/dashboard/webhooks/deliveries?paymentId=${paymentId}`)
  await page.getByRole('button', { name: 'Redeliver' }).first().click()
  await expect.poll(() => page.locator('main .message').first().textContent()).toContain('in line again')
  await receiver.waitFor((all) => all.length > before)
})

it("refuses the owner's forms without the CSRF token, with another session's, and from another origin", async () => {
  const page = pages.owner
  csrfOf.owner = await tokenIn(page)
  const action = `/dashboard/payments/${paymentId}/refunds`
  expect(await forgedPost(page, action, refundFields())).toBe(403)
  expect(await page.locator('main').textContent()).toContain('This form could not be accepted.')
  expect(await forgedPost(page, action, refundFields(csrfOf.viewer))).toBe(403)

  // a page of another origin posts the owner's refund form, the right token and all (as if it had
  // stolen it): the browser sends the cookie (same site), Origin and Sec-Fetch-Site tell it apart
  const other = `http://127.0.0.1:${(otherSite.address() as AddressInfo).port}`
  await page.goto(`${other}/?action=${encodeURIComponent(`${standalone.baseUrl}${action}`)}`)
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === action),
    page.getByRole('button', { name: 'Claim' }).click(),
  ])
  expect(answer.status()).toBe(403)
  expect(await answer.request().headerValue('origin')).toBe(other)
  expect(await refunds()).toEqual([])

  // the owner's session is untouched by all this: the owner's own form still works
  await page.goto(`${standalone.baseUrl}/dashboard/payments/${paymentId}/refund`)
  await page.getByLabel('Amount').fill('1')
  await page.getByRole('button', { name: 'Create refund' }).click()
  await page.getByRole('heading', { name: 'Refunds and payouts' }).waitFor()
  expect((await refunds()).map((refund) => refund.paymentId)).toEqual([paymentId])
})

it("an owner signs the viewer out everywhere: the viewer's next page is the sign-in", async () => {
  const owner = pages.owner
  await owner.goto(`${standalone.baseUrl}/dashboard/users`)
  await owner.getByRole('button', { name: 'Sign out everywhere: viewer@shop.example' }).click()
  await owner.getByRole('heading', { name: 'Users' }).waitFor()
  expect(await seriousViolations(owner)).toEqual([])

  const viewer = pages.viewer
  await viewer.goto(`${standalone.baseUrl}/dashboard/payments`)
  await viewer.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect(await viewer.locator('main').textContent()).toContain('Your session has ended.')
  await owner.getByRole('link', { name: 'Audit log' }).click()
  expect(await owner.locator('main').textContent()).toContain('user.signed_out')
})

it("after 12 idle hours the developer's next form gets the sign-in, and signing in there goes on", async () => {
  // the developer left the deliveries page open; a click 12 hours later
  const page = pages.developer
  skewMs += SESSION_IDLE_MS
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Redeliver' }).first().click(),
  ])
  expect(answer.status()).toBe(403)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect(await page.locator('main').textContent()).toContain('Your session has ended.')
  // the cookie is gone with it
  expect(await page.context().cookies()).toEqual([])
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel('Email').fill('developer@shop.example')
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Payments' }).waitFor()
})

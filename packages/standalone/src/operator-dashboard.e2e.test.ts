// The operator's views in a real browser (docs/operations.md, "The operator's views"): Debian's
// Chromium driven by playwright-core against standalone composed in this process, on the admin
// listener, at 360 px wide. The operator types the admin token once, reads the merchants, opens the
// demo merchant, adds a dashboard user (the setup link shown once) and visits balances, refunds and
// payouts, sessions and the audit log by keyboard-reachable links. Every page is checked with
// axe-core (no serious or critical violation; the merchant's page in light and dark) and asks nothing
// of another origin; the session cookie is HttpOnly, SameSite=Strict and scoped to the pages.

import { systemClock } from '@chainpay/platform'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { launchChromium, seriousViolations } from './testing/dashboard-browser.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let browser: Browser

beforeAll(async () => {
  ;[standalone, browser] = await Promise.all([
    startInProcessStandalone({ clock: systemClock }),
    launchChromium(),
  ])
})

afterAll(async () => {
  await browser?.close()
  await standalone?.stop()
})

it('the operator signs in with the admin token, reads merchants and adds a dashboard user; axe clean', async () => {
  const demo = standalone.demoMerchant()
  expect(demo).not.toBeNull()
  const origin = standalone.adminUrl
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } })
  const page = await context.newPage()
  const requests: string[] = []
  page.on('request', (request) => requests.push(request.url()))

  await page.goto(`${origin}/admin/dashboard/`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel('Admin token').fill(standalone.adminToken())
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Merchants' }).waitFor()
  expect(await seriousViolations(page)).toEqual([])

  await page.locator(`main a[href^="/admin/dashboard/merchants/${demo?.merchantId}"]`).click()
  await page.getByRole('heading', { name: 'Dashboard users' }).waitFor()
  expect(await page.locator('main').textContent()).toContain(demo?.apiKey)
  expect(await seriousViolations(page)).toEqual([])
  await page.getByLabel('Email').fill('support@shop.example')
  await page.getByLabel('Role').selectOption('viewer')
  await page.getByRole('button', { name: 'Add', exact: true }).click()
  await expect
    .poll(() => page.locator('[role=status]').textContent())
    .toContain('Send this setup link to support@shop.example')
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: 'dark' })
  expect(await seriousViolations(page)).toEqual([])
  await page.emulateMedia({ colorScheme: 'light' })

  for (const [link, heading] of [
    ['Balances', 'Balances'],
    ['Refunds and payouts', 'Refunds and payouts'],
    ['Sessions', 'Sessions'],
    ['Audit log', 'Audit log'],
  ] as const) {
    await page.getByRole('link', { name: link }).click()
    await page.getByRole('heading', { name: heading, exact: true }).waitFor()
    expect(await seriousViolations(page), link).toEqual([])
  }
  expect(await page.locator('main').textContent()).toContain('user.created')

  const cookies = await context.cookies()
  expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
    { name: 'chainpay_operator_session', httpOnly: true, sameSite: 'Strict', path: '/admin/dashboard' },
  ])
  expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([])
  await context.close()
})

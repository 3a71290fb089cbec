// scripts/screenshots: the dashboard's main pages as PNGs in docs/images/ (README.md and
// docs/dashboard.md show them). Standalone's build runs in a process of its own on a fresh data
// directory, with demo payments paid on the simulated chains; the merchant's owner sets up through the
// setup link (password, TOTP) and signs in, the operator signs in with the admin token; Debian's
// Chromium (playwright-core) takes each page on a desktop in light and on a 360 px phone in dark.

import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { confirmedPayment, merchantClientFor, pay } from '../../packages/standalone/dist/testing/flow.js'
import { startStandalone } from '../../packages/standalone/dist/testing/standalone-process.js'

// playwright-core and otpauth are the standalone package's (its e2e tests use them)
const requireFromStandalone = createRequire(
  new URL('../../packages/standalone/package.json', import.meta.url),
)
const { chromium } = requireFromStandalone('playwright-core')
const { Secret, TOTP } = requireFromStandalone('otpauth')

const OUT = fileURLToPath(new URL('../../docs/images/', import.meta.url))
const PASSWORD = 'a long passphrase for the screenshots'
const VIEWPORTS = { mobile: { width: 360, height: 760 }, desktop: { width: 1100, height: 720 } }

const hasConvert = (() => {
  try {
    execFileSync('convert', ['-version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
})()

const standalone = await startStandalone()
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
})
try {
  mkdirSync(OUT, { recursive: true })
  const client = merchantClientFor(standalone)
  // what a shop's list looks like: confirmed, underpaid and pending payments on both chains
  const shown = await confirmedPayment(standalone, { network: 'TRON', currency: 'USDT', amount: '25.00' })
  await confirmedPayment(standalone, { network: 'SOLANA', currency: 'USDC', amount: '49.90' })
  const short = (
    await client.createPayment({
      amount: '120',
      currency: 'USDT',
      network: 'TRON',
      description: 'Order A-1003',
      metadata: { orderId: 'A-1003' },
    })
  ).body
  await pay(standalone, 'TRON', { to: short.generatedAddress, amount: '100', currency: 'USDT' })
  for (const [amount, currency, network, order] of [
    ['300', 'TRX', 'TRON', 'A-1004'],
    ['0.5', 'SOL', 'SOLANA', 'A-1005'],
    ['18.50', 'USDT', 'TRON', 'A-1006'],
  ]) {
    await client.createPayment({
      amount,
      currency,
      network,
      description: `Order ${order}`,
      metadata: { orderId: order },
    })
  }

  // the owner: the setup link the operator's API gives, a password and the authenticator's key
  const admin = (path, body) =>
    fetch(`${standalone.adminUrl}/admin/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${standalone.adminToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((response) => response.json())
  const merchantId = standalone.demoMerchant().merchantId
  for (const name of ['Nordlicht Coffee', 'Pixel Forge Games']) await admin('/merchants', { name })
  const { setupUrl } = await admin(`/merchants/${merchantId}/users`, {
    email: 'owner@shop.example',
    role: 'owner',
  })
  await admin(`/merchants/${merchantId}/users`, { email: 'support@shop.example', role: 'viewer' })

  const context = await browser.newContext({ viewport: VIEWPORTS.desktop })
  const page = await context.newPage()
  await page.goto(setupUrl)
  const secret = (await page.locator('#totp-secret').textContent()).trim()
  const codeAt = (offsetMs) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetMs })
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Password again').fill(PASSWORD)
  await page.getByLabel('Code from your authenticator app').fill(codeAt(0))
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await page.locator('[role=status]').waitFor()
  await page.getByLabel('Email').fill('owner@shop.example')
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Code from your authenticator app').fill(codeAt(30_000))
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Payments' }).waitFor()
  const origin = new URL(setupUrl).origin
  await shoot(page, `${origin}/dashboard/payments`, 'dashboard-payments')
  await shoot(page, `${origin}/dashboard/payments/${shown.paymentId}`, 'dashboard-payment')

  // the operator, on the admin listener
  await page.goto(`${standalone.adminUrl}/admin/dashboard/sign-in`)
  await page.getByLabel('Admin token').fill(standalone.adminToken())
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Merchants' }).waitFor()
  await shoot(page, `${standalone.adminUrl}/admin/dashboard/merchants`, 'operator-merchants')
  await shoot(page, `${standalone.adminUrl}/admin/dashboard/merchants/${merchantId}`, 'operator-merchant')
  await context.close()
} finally {
  await browser.close()
  await standalone.stop()
  rmSync(standalone.dataDir, { recursive: true, force: true })
}

/**
 * the page on a desktop in light and on a 360 px phone in dark (both schemes and both widths shown,
 * in two images per page, so that the repository stays small): docs/images/<name>-<width>-<scheme>.png
 */
async function shoot(page, url, name) {
  for (const [width, scheme] of [
    ['desktop', 'light'],
    ['mobile', 'dark'],
  ]) {
    await page.setViewportSize(VIEWPORTS[width])
    await page.emulateMedia({ colorScheme: scheme })
    await page.goto(url)
    const file = `${OUT}${name}-${width}-${scheme}.png`
    await page.screenshot({ path: file })
    // a palette of 32 colours: the pages are text and flat colour, and stay legible
    if (hasConvert) execFileSync('convert', [file, '-strip', '-colors', '32', `PNG8:${file}`])
    console.log(`${file.slice(OUT.length)}: ${Math.round(statSync(file).size / 1024)} KB`)
  }
}

// The dashboard's Chromium tests' common steps (docs/dashboard.md): Debian's Chromium launched by
// playwright-core, axe-core's serious and critical violations of a page, a user added by the operator
// through the admin API, and the setup and sign-in a person does in the browser.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { type Browser, chromium, type Page } from 'playwright-core'

const CHROMIUM = '/usr/bin/chromium'
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}

/** the ids of axe-core's serious and critical violations on the page as it is now */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated over the DevTools protocol, which the page's CSP does not govern
  await page.evaluate(axeSource)
  const violations = await page.evaluate<{ id: string; impact: string }[]>(
    'axe.run().then((result) => result.violations.map(({ id, impact }) => ({ id, impact })))',
  )
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)
}

/** the operator adds a dashboard user (`POST /admin/v1/merchants/{id}/users`): the one-time setup link */
export async function addDashboardUser(
  admin: { adminUrl: string; adminToken: string },
  merchantId: string,
  user: { email: string; role: 'owner' | 'developer' | 'viewer' },
): Promise<string> {
  const added = await fetch(`${admin.adminUrl}/admin/v1/merchants/${merchantId}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(user),
  })
  if (added.status !== 201) throw new Error(`user not added: ${added.status} ${await added.text()}`)
  return ((await added.json()) as { setupUrl: string }).setupUrl
}

/**
 * The setup link opened, the password typed twice and, for an owner, the key the page shows given
 * to the authenticator (`codeOf`: the code of that key now); the TOTP key, or null for another role.
 */
export async function setUpInBrowser(
  page: Page,
  setupUrl: string,
  password: string,
  codeOf?: (secret: string) => string,
): Promise<string | null> {
  await page.goto(setupUrl)
  const secret = codeOf ? ((await page.locator('#totp-secret').textContent())?.trim() as string) : null
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Password again').fill(password)
  if (codeOf && secret !== null)
    await page.getByLabel('Code from your authenticator app').fill(codeOf(secret))
  await page.getByRole('button', { name: 'Save and continue' }).click()
  await page.getByText('Your account is ready').waitFor()
  return secret
}

/** email, password and (an owner's) code typed on the sign-in page; waits for the payments list */
export async function signInInBrowser(
  page: Page,
  signInUrl: string,
  credentials: { email: string; password: string; code?: string },
): Promise<void> {
  if (!page.url().startsWith(signInUrl)) await page.goto(signInUrl)
  await page.getByLabel('Email').fill(credentials.email)
  await page.getByLabel('Password', { exact: true }).fill(credentials.password)
  if (credentials.code) await page.getByLabel('Code from your authenticator app').fill(credentials.code)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Payments' }).waitFor()
}

// The operator's views over the admin app (docs/operations.md, "The operator's views"): never on the
// public listener; the admin token typed once and exchanged for a session cookie; merchants with
// their API key ids (never a secret), users and balances; a dashboard user added with a setup link
// that the merchant's dashboard then accepts; forged posts (no CSRF token, another origin) refused;
// sessions revoked and ended by 12 idle hours; every change in the operator's audit log. The
// browser's view is operator-dashboard.e2e.test.ts's.

import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import { buildCommandApi } from '@chainpay/payment-command'
import { createRootLogger } from '@chainpay/platform'
import type { LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

/** what a form of the operator's pages sends: same origin, Origin null under no-referrer */
const FORM = {
  origin: 'null',
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
}
const BASE = '/admin/dashboard'

let fixture: MerchantApiFixture

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})
const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  await fixture.close()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const merchantId = () => fixture.merchant.merchant.merchantId
const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fixture.adminApp.inject({
    method: 'POST',
    url,
    headers: { ...FORM, ...headers },
    payload: new URLSearchParams(fields).toString(),
  })
const get = (url: string, cookie?: string) =>
  fixture.adminApp.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} })
const cookieOf = (response: LightMyRequestResponse) =>
  String(response.headers['set-cookie']).split(';')[0] as string
const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string

async function signIn(userAgent = 'test browser'): Promise<{ cookie: string; csrf: string }> {
  const response = await post(`${BASE}/sign-in`, { token: FIXTURE_ADMIN_TOKEN }, { 'user-agent': userAgent })
  expect(response.statusCode, response.body).toBe(303)
  const cookie = cookieOf(response)
  const page = await get(`${BASE}/merchants`, cookie)
  expect(page.statusCode).toBe(200)
  return { cookie, csrf: csrfOf(page.body) }
}

it('is not served on the public listener, and asks for sign-in on the admin listener', async () => {
  for (const path of ['/', '/sign-in', '/merchants', '/assets/dashboard.css']) {
    const response = await fixture.app.inject({ method: 'GET', url: `${BASE}${path}` })
    expect(response.statusCode, path).toBe(404)
  }
  const signInPost = await fixture.app.inject({
    method: 'POST',
    url: `${BASE}/sign-in`,
    headers: FORM,
    payload: `token=${FIXTURE_ADMIN_TOKEN}`,
  })
  expect(signInPost.statusCode).toBe(404)

  const away = await get(`${BASE}/merchants`)
  expect(away.statusCode).toBe(303)
  expect(away.headers.location).toBe(`${BASE}/sign-in?lang=en`)
  const form = await get(`${BASE}/sign-in`)
  expect(form.statusCode).toBe(200)
  expect(form.headers['content-security-policy']).toContain("default-src 'none'")
  expect(form.body).toContain('name="token"')
  // the admin API's bearer token still guards /admin/v1 as before
  expect((await get('/admin/v1/merchants')).statusCode).toBe(401)
})

it('exchanges the admin token for a session cookie and shows merchants with key ids, never secrets', async () => {
  const wrong = await post(`${BASE}/sign-in`, { token: 'not-the-admin-token' })
  expect(wrong.statusCode).toBe(401)
  expect(wrong.headers['set-cookie']).toBeUndefined()

  const response = await post(`${BASE}/sign-in`, { token: FIXTURE_ADMIN_TOKEN })
  expect(response.statusCode).toBe(303)
  expect(String(response.headers['set-cookie'])).toMatch(
    /^chainpay_operator_session=[\w-]{43}; Path=\/admin\/dashboard; HttpOnly; SameSite=Strict$/,
  )
  const cookie = cookieOf(response)
  // a name is the operator's text, shown as text
  const created = await fixture.adminApp.inject({
    method: 'POST',
    url: '/admin/v1/merchants',
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: '<script>alert(1)</script> & Co' }),
  })
  expect(created.statusCode).toBe(201)
  const list = await get(`${BASE}/merchants`, cookie)
  expect(list.statusCode).toBe(200)
  expect(list.body).toContain('Test Shop')
  expect(list.body).toContain('Other Shop')
  expect(list.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co')
  expect(list.body).not.toContain('<script>')

  const detail = await get(`${BASE}/merchants/${merchantId()}`, cookie)
  expect(detail.statusCode).toBe(200)
  expect(detail.body).toContain(fixture.merchant.apiKey)
  expect(detail.body).not.toContain(fixture.merchant.apiSecret)
  expect(detail.body).not.toContain(fixture.merchant.webhookSecret)
  expect(detail.body).toContain('The operator&#39;s wallet')
  expect((await get(`${BASE}/merchants/mer_unknown`, cookie)).statusCode).toBe(404)

  for (const area of ['balances', 'outgoing', 'sessions', 'audit']) {
    const page = await get(`${BASE}/${area}?lang=de`, cookie)
    expect(page.statusCode, area).toBe(200)
    expect(page.body, area).toContain('<html lang="de">')
  }
  const audit = await get(`${BASE}/audit`, cookie)
  expect(audit.body).toContain('session.sign_in_failed')
  expect(audit.body).toContain('session.signed_in')
})

it('adds a dashboard user with a setup link the dashboard accepts; forged posts change nothing', async () => {
  const { cookie, csrf } = await signIn()
  const users = `${BASE}/merchants/${merchantId()}/users`

  // no CSRF token, a wrong one, another origin, another site's fetch: refused, nobody added
  const forged = [
    await post(users, { email: 'a@shop.example', role: 'owner' }, { cookie }),
    await post(users, { email: 'a@shop.example', role: 'owner', csrf: `${csrf}x` }, { cookie }),
    await post(
      users,
      { email: 'a@shop.example', role: 'owner', csrf },
      { cookie, origin: 'https://evil.example' },
    ),
    await post(
      users,
      { email: 'a@shop.example', role: 'owner', csrf },
      { cookie, 'sec-fetch-site': 'cross-site' },
    ),
  ]
  expect(forged.map((response) => response.statusCode)).toEqual([403, 403, 403, 403])
  expect(await fixture.dashboardAccounts.listUsers(merchantId())).toEqual([])
  // without a session: refused as well
  expect((await post(users, { email: 'a@shop.example', role: 'owner', csrf })).statusCode).toBe(403)

  const added = await post(users, { email: 'Owner@Shop.example', role: 'owner', csrf }, { cookie })
  expect(added.statusCode, added.body).toBe(201)
  const setupUrl = /(https?:\/\/[^<\s]+\/dashboard\/setup\/[\w-]+)/.exec(added.body)?.[1] as string
  expect(setupUrl).toBeDefined()
  // the merchant's dashboard, on the public listener, opens the link
  const setupPage = await fixture.app.inject({ method: 'GET', url: new URL(setupUrl).pathname })
  expect(setupPage.statusCode).toBe(200)
  expect(setupPage.body).toContain('owner@shop.example')
  const listed = await fixture.dashboardAccounts.listUsers(merchantId())
  expect(listed.map(({ email, role }) => ({ email, role }))).toEqual([
    { email: 'owner@shop.example', role: 'owner' },
  ])

  // a bad address: a clear error on the page, nothing added
  const bad = await post(users, { email: 'not an address', role: 'viewer', csrf }, { cookie })
  expect(bad.statusCode).toBe(400)
  expect(bad.body).toContain('email: must be an email address')

  // a new setup link: the old one stops working
  const reset = await post(`${users}/reset`, { email: 'owner@shop.example', csrf }, { cookie })
  expect(reset.statusCode).toBe(200)
  const newUrl = /(https?:\/\/[^<\s]+\/dashboard\/setup\/[\w-]+)/.exec(reset.body)?.[1] as string
  expect(newUrl).not.toBe(setupUrl)
  expect((await post(`${users}/reset`, { email: 'nobody@shop.example', csrf }, { cookie })).statusCode).toBe(
    404,
  )

  // the operator's log and the merchant's own both record it
  const audit = await get(`${BASE}/audit`, cookie)
  expect(audit.body).toContain('user.created')
  expect(audit.body).toContain(`${merchantId()}: owner@shop.example (owner)`)
  expect(audit.body).toContain('user.reset')
  const merchantLog = await fixture.dashboardAccounts.listAudit(merchantId(), 10)
  // one instant on the test's clock: the order between the two is the entry ids'
  expect(merchantLog.map(({ actor, action }) => `${actor} ${action}`).sort()).toEqual([
    'operator user.created',
    'operator user.reset',
  ])
})

it('ends sessions when revoked, signed out, or idle 12 h', async () => {
  const first = await signIn('first browser')
  const second = await signIn('second browser')
  const sessions = await get(`${BASE}/sessions`, second.cookie)
  expect(sessions.body).toContain('first browser')
  const hashOfFirst = /sessions\/([0-9a-f]{64})\/revoke/.exec(sessions.body)?.[1] as string
  const revoked = await post(
    `${BASE}/sessions/${hashOfFirst}/revoke`,
    { csrf: second.csrf },
    {
      cookie: second.cookie,
    },
  )
  expect(revoked.statusCode).toBe(303)
  const gone = await get(`${BASE}/merchants`, first.cookie)
  expect(gone.statusCode).toBe(303)
  expect(gone.headers.location).toBe(`${BASE}/sign-in?ended=1&lang=en`)
  // a form sent with the ended session is not taken: the answer is the sign-in form
  const refused = await post(`${BASE}/sign-out`, { csrf: first.csrf }, { cookie: first.cookie })
  expect(refused.statusCode).toBe(403)
  expect(refused.body).toContain(`action="${BASE}/sign-in?lang=en"`)

  // idle for 12 hours: over
  fixture.clock.advance(12 * 60 * 60 * 1000)
  expect((await get(`${BASE}/merchants`, second.cookie)).statusCode).toBe(303)

  const third = await signIn()
  const out = await post(`${BASE}/sign-out`, { csrf: third.csrf }, { cookie: third.cookie })
  expect(out.statusCode).toBe(303)
  expect((await get(`${BASE}/merchants`, third.cookie)).statusCode).toBe(303)
  const fourth = await signIn()
  const audit = await get(`${BASE}/audit`, fourth.cookie)
  expect(audit.body).toContain('session.revoked')
  expect(audit.body).toContain('session.signed_out')
})

it('locks sign-in for the address after five wrong tokens', async () => {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    expect((await post(`${BASE}/sign-in`, { token: `wrong-${attempt}` })).statusCode).toBe(401)
  }
  // even the right token waits until the window has passed
  const locked = await post(`${BASE}/sign-in`, { token: FIXTURE_ADMIN_TOKEN })
  expect(locked.statusCode).toBe(429)
  fixture.clock.advance(15 * 60 * 1000)
  expect((await post(`${BASE}/sign-in`, { token: FIXTURE_ADMIN_TOKEN })).statusCode).toBe(303)
})

/** a USDT payment on TRON paid in full and final, projected as the read model's projection does */
async function paidPayment(amount: string, paidUnits: string): Promise<string> {
  const created = json(await fixture.create({ amount, currency: 'USDT', network: 'TRON' }))
  const paymentId = created.paymentId as string
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash: `tx-${paymentId}`,
    transferIndex: 0,
    address: created.generatedAddress as string,
    amountUnits: paidUnits,
    blockHeight: 100,
    blockTime: '2030-01-15T12:05:00.000Z',
    confirmations: 20,
    status: 'seen',
    dropReason: null,
    observedAt: '2030-01-15T12:05:03.000Z',
  })
  const history = await fixture.handler.getPaymentHistory({ merchantId: merchantId(), paymentId })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) await fixture.readModel.save(folded)
  return paymentId
}

it("shows a merchant's balance per asset and a payout waiting for the offline procedure", async () => {
  await showsBalanceAndWaitingPayout()
})

it('reads balances and waiting payouts through the command API, as the distributed shape does', async () => {
  await fixture.close()
  const calls: string[] = []
  let client: HttpPaymentCommands | undefined
  fixture = await openMerchantApiFixture({
    outgoing: async (outgoing, handler) => {
      const commandApi = buildCommandApi({
        handler,
        outgoing,
        logger: createRootLogger({ service: 'command-api', level: 'silent' }),
      })
      commandApi.addHook('onRequest', async (request) => void calls.push(request.url))
      await commandApi.listen({ host: '127.0.0.1', port: 0 })
      const { port } = commandApi.server.address() as AddressInfo
      client = createHttpPaymentCommands({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5_000 })
      cleanups.push(async () => {
        await client?.close()
        await commandApi.close()
      })
      return client
    },
    commands: () => client as HttpPaymentCommands,
  })
  calls.length = 0
  await showsBalanceAndWaitingPayout()
  // the pages asked payment-command over HTTP, not a store of their own
  expect(calls).toContain('/internal/v1/outgoing/listOperatorOutgoing')
  // the merchant API's GET /balances once, the operator's pages for each merchant and the detail
  expect(calls.filter((url) => url === '/internal/v1/outgoing/getBalances').length).toBeGreaterThan(1)
})

async function showsBalanceAndWaitingPayout() {
  await paidPayment('100', '100000000')
  const payout = await fixture.send('POST', '/api/merchant/v1/payouts', {
    body: JSON.stringify({
      network: 'TRON',
      currency: 'USDT',
      amount: '40',
      address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      idempotencyKey: 'payout-1',
    }),
  })
  expect(payout.statusCode, payout.body).toBe(201)
  const { payoutId } = json<{ payoutId: string }>(payout)
  const { cookie } = await signIn()

  const balances = await get(`${BASE}/balances`, cookie)
  expect(balances.statusCode).toBe(200)
  // the merchant API's own figures (GET /balances): net of the 1 % fee, less the payout reserved
  const own = json<{ data: { availableAmount: string; receivedNetAmount: string }[] }>(
    await fixture.send('GET', '/api/merchant/v1/balances'),
  ).data[0]
  expect(own?.availableAmount).toBe('59')
  expect(balances.body).toContain(`<span class="num mono">${own?.receivedNetAmount}</span>`)
  expect(balances.body).toContain(`<span class="num mono">${own?.availableAmount}</span>`)
  const detail = await get(`${BASE}/merchants/${merchantId()}`, cookie)
  expect(detail.body).toContain(`<span class="num mono">${own?.availableAmount}</span>`)

  const outgoing = await get(`${BASE}/outgoing`, cookie)
  expect(outgoing.statusCode).toBe(200)
  expect(outgoing.body).toContain('TRON: waiting for the offline procedure')
  expect(outgoing.body).toContain(payoutId)
  expect(outgoing.body).toContain('40 USDT')
  expect(outgoing.body).toContain('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf')
}

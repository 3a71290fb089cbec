// The merchant's dashboard over the gateway app (docs/dashboard.md): the operator adds an owner
// through the admin API, the owner sets a password and enrols TOTP through the setup link, signs in
// with a code, finds a payment by its tx hash and reads its history; an owner adds a viewer, whose
// forged posts are refused; forms without the session's CSRF token or from another origin are
// refused; sessions end after 12 idle hours and when revoked; sign-in locks after five failures.
// The browser's view is dashboard.e2e.test.ts's.

import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import { buildCommandApi } from '@chainpay/payment-command'
import { createRootLogger } from '@chainpay/platform'
import type { LightMyRequestResponse } from 'fastify'
import { Secret, TOTP } from 'otpauth'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  FIXTURE_PUBLIC_URL,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

/** what a form of the dashboard sends: same origin, Origin null under its no-referrer policy */
const FORM = {
  origin: 'null',
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
}
const PASSWORD = 'a long passphrase for tests'

let fixture: MerchantApiFixture
const cleanups: Array<() => Promise<void>> = []

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})
afterEach(async () => {
  await fixture.close()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const merchantId = () => fixture.merchant.merchant.merchantId

async function addUserAsOperator(email: string, role: string) {
  const response = await fixture.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${merchantId()}/users`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role }),
  })
  expect(response.statusCode, response.body).toBe(201)
  return json<{ setupUrl: string; userId: string }>(response)
}

const pathOf = (url: string) => new URL(url).pathname
const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fixture.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, ...headers },
    payload: new URLSearchParams(fields).toString(),
  })
const get = (url: string, cookie?: string) =>
  fixture.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} })
const codeAt = (secret: string, offsetMs = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: fixture.clock.now().getTime() + offsetMs })
const cookieOf = (response: LightMyRequestResponse) =>
  String(response.headers['set-cookie']).split(';')[0] as string
const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string

/** an owner set up through the link: the TOTP secret the setup page showed */
async function setUpOwner(email = 'owner@shop.example') {
  const { setupUrl } = await addUserAsOperator(email, 'owner')
  const page = await get(pathOf(setupUrl))
  expect(page.statusCode).toBe(200)
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1] as string
  expect(page.body).toContain(`otpauth://totp/chainpay:${encodeURIComponent(email)}?`)
  const done = await post(pathOf(setupUrl), {
    password: PASSWORD,
    confirmation: PASSWORD,
    totpSecret: secret,
    code: codeAt(secret),
  })
  expect(done.statusCode, done.body).toBe(303)
  // the setup's code is used: a sign-in takes the next one
  fixture.clock.advance(30_000)
  return { email, secret, setupUrl }
}

async function signIn(email: string, code?: string) {
  const response = await post('/dashboard/sign-in', { email, password: PASSWORD, ...(code ? { code } : {}) })
  expect(response.statusCode, response.body).toBe(303)
  return cookieOf(response)
}

/** a paid payment in the read model, as the projection would leave it */
async function paidPayment(txHash: string) {
  const created = await fixture.create({
    amount: '10.5',
    currency: 'USDT',
    network: 'TRON',
    idempotencyKey: txHash,
  })
  const { paymentId } = json<{ paymentId: string }>(created)
  const payment = await fixture.handler.getPayment({ merchantId: merchantId(), paymentId })
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash,
    transferIndex: 0,
    address: payment?.payment.created.address as string,
    amountUnits: '10500000',
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

describe('the dashboard', () => {
  it('an owner set up by the operator signs in with TOTP and finds a payment by its tx hash', async () => {
    const { email, secret, setupUrl } = await setUpOwner()
    // the link is used once
    expect((await get(pathOf(setupUrl))).statusCode).toBe(404)
    // its token is no log line's
    const token = pathOf(setupUrl).split('/').at(-1) as string
    expect(fixture.logLines().some((line) => line.includes('/dashboard/setup/'))).toBe(true)
    expect(fixture.logLines().filter((line) => line.includes(token))).toEqual([])
    // an owner without the code, or with a wrong one, is refused like a wrong password
    expect((await post('/dashboard/sign-in', { email, password: PASSWORD })).statusCode).toBe(401)
    expect((await post('/dashboard/sign-in', { email, password: PASSWORD, code: '000000' })).statusCode).toBe(
      401,
    )
    fixture.clock.advance(30_000)
    const signedIn = await post('/dashboard/sign-in', { email, password: PASSWORD, code: codeAt(secret) })
    expect(signedIn.statusCode).toBe(303)
    expect(String(signedIn.headers['set-cookie'])).toMatch(
      /^__Host-chainpay_session=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict$/,
    )
    const cookie = cookieOf(signedIn)

    const txHash = `${'c0ffee'.repeat(10)}abcd`
    const paymentId = await paidPayment(txHash)
    await fixture.create({ amount: '1', currency: 'USDT', network: 'TRON' }, fixture.otherMerchant)
    const list = await get('/dashboard/payments', cookie)
    expect(list.statusCode).toBe(200)
    expect(list.headers['content-security-policy']).toContain("default-src 'none'")
    expect(list.headers['cache-control']).toBe('no-store')
    expect(list.body).toContain(paymentId)
    expect(list.body.match(/href="\/dashboard\/payments\/[0-9a-f-]{36}"/g)).toHaveLength(1)
    const found = await get(`/dashboard/payments?q=${txHash}`, cookie)
    expect(found.body).toContain(`/dashboard/payments/${paymentId}`)
    expect((await get('/dashboard/payments?q=deadbeef', cookie)).body).not.toContain(paymentId)
    const detail = await get(`/dashboard/payments/${paymentId}`, cookie)
    expect(detail.statusCode).toBe(200)
    expect(detail.body).toContain('payment.created')
    expect(detail.body).toContain('transfer.detected')
    expect(detail.body).toContain(txHash)
    // another merchant's payment is not found
    const other = json<{ paymentId: string }>(
      await fixture.create({ amount: '2', currency: 'USDT', network: 'TRON' }, fixture.otherMerchant),
    )
    expect((await get(`/dashboard/payments/${other.paymentId}`, cookie)).statusCode).toBe(404)
    // German on request
    expect((await get('/dashboard/payments?lang=de', cookie)).body).toContain('Zahlungen')
  })

  it("refuses a viewer's forged post, a form without the session's token and one from another site", async () => {
    const { email, secret } = await setUpOwner()
    const owner = await signIn(email, codeAt(secret))
    const usersPage = await get('/dashboard/users', owner)
    const csrf = csrfOf(usersPage.body)
    // without the token, with another session's, and from another origin: nothing changes
    expect(
      (await post('/dashboard/users', { email: 'v@shop.example', role: 'viewer' }, { cookie: owner }))
        .statusCode,
    ).toBe(403)
    expect(
      (
        await post(
          '/dashboard/users',
          { email: 'v@shop.example', role: 'viewer', csrf: `${csrf.slice(1)}A` },
          { cookie: owner },
        )
      ).statusCode,
    ).toBe(403)
    expect(
      (
        await post(
          '/dashboard/users',
          { email: 'v@shop.example', role: 'viewer', csrf },
          { cookie: owner, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
        )
      ).statusCode,
    ).toBe(403)
    expect(await fixture.dashboardAccounts.listUsers(merchantId())).toHaveLength(1)

    const added = await post(
      '/dashboard/users',
      { email: 'viewer@shop.example', role: 'viewer', csrf },
      { cookie: owner },
    )
    expect(added.statusCode).toBe(201)
    const setupUrl = /id="setup-link">([^<]+)</.exec(added.body)?.[1] as string
    expect(setupUrl.startsWith(`${FIXTURE_PUBLIC_URL}/dashboard/setup/`)).toBe(true)
    // a viewer sets a password only: no TOTP asked
    const setupPage = await get(pathOf(setupUrl))
    expect(setupPage.body).not.toContain('totp-secret')
    expect((await post(pathOf(setupUrl), { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(
      303,
    )
    const viewer = await signIn('viewer@shop.example')

    // the viewer reads, with a valid token of its own session, and still changes nothing
    const viewerCsrf = csrfOf((await get('/dashboard/payments', viewer)).body)
    const forged = await post(
      '/dashboard/users',
      { email: 'x@shop.example', role: 'owner', csrf: viewerCsrf },
      { cookie: viewer },
    )
    expect(forged.statusCode).toBe(403)
    expect((await get('/dashboard/audit', viewer)).statusCode).toBe(403)
    expect(await fixture.dashboardAccounts.listUsers(merchantId())).toHaveLength(2)

    // the owner's audit log has every change
    const audit = await get('/dashboard/audit', owner)
    for (const action of ['user.created', 'user.setup', 'session.signed_in'])
      expect(audit.body).toContain(action)
    expect(audit.body).toContain('operator')
  })

  it('an owner changes a role and disables a user, whose sessions end; the last owner stays', async () => {
    const { email, secret } = await setUpOwner()
    const owner = await signIn(email, codeAt(secret))
    const { setupUrl, userId } = await addUserAsOperator('dev@shop.example', 'developer')
    await post(pathOf(setupUrl), { password: PASSWORD, confirmation: PASSWORD })
    const developer = await signIn('dev@shop.example')
    const csrf = csrfOf((await get('/dashboard/users', owner)).body)

    // a developer manages no users, whatever it posts
    const developerCsrf = csrfOf((await get('/dashboard/payments', developer)).body)
    expect(
      (
        await post(
          `/dashboard/users/${userId}/role`,
          { role: 'owner', csrf: developerCsrf },
          { cookie: developer },
        )
      ).statusCode,
    ).toBe(403)

    expect(
      (await post(`/dashboard/users/${userId}/role`, { role: 'viewer', csrf }, { cookie: owner })).statusCode,
    ).toBe(303)
    expect(
      (await fixture.dashboardAccounts.listUsers(merchantId())).find((user) => user.userId === userId)?.role,
    ).toBe('viewer')
    expect((await post(`/dashboard/users/${userId}/disable`, { csrf }, { cookie: owner })).statusCode).toBe(
      303,
    )
    expect((await get('/dashboard/payments', developer)).statusCode).toBe(303)
    expect(
      (await post('/dashboard/sign-in', { email: 'dev@shop.example', password: PASSWORD })).statusCode,
    ).toBe(401)

    // the merchant's only owner cannot disable or demote itself; another merchant's user is unknown
    const ownerId = (await fixture.dashboardAccounts.listUsers(merchantId())).find(
      (user) => user.role === 'owner',
    )?.userId
    expect((await post(`/dashboard/users/${ownerId}/disable`, { csrf }, { cookie: owner })).statusCode).toBe(
      409,
    )
    expect(
      (await post(`/dashboard/users/${ownerId}/role`, { role: 'viewer', csrf }, { cookie: owner }))
        .statusCode,
    ).toBe(409)
    expect((await post('/dashboard/users/usr_unknown/disable', { csrf }, { cookie: owner })).statusCode).toBe(
      404,
    )

    // a new setup link: the old password no longer signs in, the new link sets a new one
    const reset = await post(`/dashboard/users/${userId}/reset`, { csrf }, { cookie: owner })
    expect(reset.statusCode).toBe(200)
    const newLink = /id="setup-link">([^<]+)</.exec(reset.body)?.[1] as string
    await post(`/dashboard/users/${userId}/enable`, { csrf }, { cookie: owner })
    expect(
      (await post('/dashboard/sign-in', { email: 'dev@shop.example', password: PASSWORD })).statusCode,
    ).toBe(401)
    const fresh = 'another long passphrase'
    expect((await post(pathOf(newLink), { password: fresh, confirmation: fresh })).statusCode).toBe(303)
    expect(
      (await post('/dashboard/sign-in', { email: 'dev@shop.example', password: fresh })).statusCode,
    ).toBe(303)

    const audit = (await get('/dashboard/audit', owner)).body
    expect(audit).toContain('user.role_changed')
    expect(audit).toContain('dev@shop.example: developer → viewer')
    expect(audit).toContain('user.disabled')
    expect(audit).toContain('user.reset')
  })

  it('only the newest setup link works, a TOTP code signs in once, and a user set up without TOTP becomes owner only after a reset', async () => {
    const { email, secret } = await setUpOwner()
    // one code, two sign-ins at once (a phished code replayed): one session
    const code = codeAt(secret)
    const both = await Promise.all([
      post('/dashboard/sign-in', { email, password: PASSWORD, code }),
      post('/dashboard/sign-in', { email, password: PASSWORD, code }),
    ])
    expect(both.filter((response) => response.statusCode === 303)).toHaveLength(1)
    // guesses sent at once are tried one at a time per account: the rest wait (429), uncounted
    const guesses = await Promise.all(
      Array.from({ length: 6 }, () => post('/dashboard/sign-in', { email, password: 'wrong guess', code })),
    )
    expect(guesses.map((response) => response.statusCode).sort()).toEqual([401, 429, 429, 429, 429, 429])
    fixture.clock.advance(30_000)
    const owner = await signIn(email, codeAt(secret))
    const csrf = csrfOf((await get('/dashboard/users', owner)).body)

    // the operator's first link, left in a ticket, stops working once a reset issued another
    const { setupUrl: firstLink, userId } = await addUserAsOperator('dev@shop.example', 'developer')
    const reset = await post(`/dashboard/users/${userId}/reset`, { csrf }, { cookie: owner })
    const secondLink = /id="setup-link">([^<]+)</.exec(reset.body)?.[1] as string
    expect((await get(pathOf(firstLink))).statusCode).not.toBe(200)
    expect(
      (await post(pathOf(firstLink), { password: PASSWORD, confirmation: PASSWORD })).statusCode,
    ).not.toBe(303)
    expect((await post(pathOf(secondLink), { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(
      303,
    )

    // set up as a developer, without TOTP: not made owner until reset, whose link enrols it
    const promote = () => post(`/dashboard/users/${userId}/role`, { role: 'owner', csrf }, { cookie: owner })
    const refused = await promote()
    expect(refused.statusCode).toBe(409)
    expect(refused.body).toContain('reset this user first')
    await post(`/dashboard/users/${userId}/reset`, { csrf }, { cookie: owner })
    expect((await promote()).statusCode).toBe(303)
  })

  it('ends a session after 12 idle hours, and when revoked or signed out', async () => {
    const { email, secret } = await setUpOwner()
    const first = await signIn(email, codeAt(secret))
    fixture.clock.advance(11 * 3600_000)
    expect((await get('/dashboard/payments', first)).statusCode).toBe(200)
    fixture.clock.advance(11 * 3600_000)
    // seen 11 h ago: still held; then 12 h without a request
    expect((await get('/dashboard/payments', first)).statusCode).toBe(200)
    fixture.clock.advance(12 * 3600_000)
    const expired = await get('/dashboard/payments', first)
    expect(expired.statusCode).toBe(303)
    expect(expired.headers.location).toBe('/dashboard/sign-in?lang=en&ended=1')

    const second = await signIn(email, codeAt(secret))
    fixture.clock.advance(30_000)
    const third = await signIn(email, codeAt(secret))
    const sessions = await get('/dashboard/sessions', third)
    const revokeAction = /action="(\/dashboard\/sessions\/[0-9a-f]{64}\/revoke)"/.exec(
      sessions.body,
    )?.[1] as string
    const revoked = await post(revokeAction, { csrf: csrfOf(sessions.body) }, { cookie: third })
    expect(revoked.statusCode).toBe(303)
    expect((await get('/dashboard/payments', second)).statusCode).toBe(303)
    // a form sent with the ended session is not taken: the answer is the sign-in form
    const refused = await post('/dashboard/users', { csrf: csrfOf(sessions.body) }, { cookie: second })
    expect(refused.statusCode).toBe(403)
    expect(refused.body).toContain('action="/dashboard/sign-in?lang=en"')
    expect(refused.body).toContain('Your session has ended.')
    expect((await get('/dashboard/payments', third)).statusCode).toBe(200)

    const signOut = await post('/dashboard/sign-out', { csrf: csrfOf(sessions.body) }, { cookie: third })
    expect(signOut.statusCode).toBe(303)
    expect((await get('/dashboard/payments', third)).statusCode).toBe(303)
  })

  it("an owner signs another user out everywhere: the user's sessions end, the user stays enabled", async () => {
    const { email, secret } = await setUpOwner()
    const owner = await signIn(email, codeAt(secret))
    const { setupUrl, userId } = await addUserAsOperator('dev@shop.example', 'developer')
    await post(pathOf(setupUrl), { password: PASSWORD, confirmation: PASSWORD })
    const [laptop, phone] = [await signIn('dev@shop.example'), await signIn('dev@shop.example')]
    const users = (await get('/dashboard/users', owner)).body
    expect(users).toContain(`action="/dashboard/users/${userId}/sign-out"`)
    // not offered on one's own row: the Sessions page and sign-out do that
    expect(users.match(/\/sign-out"/g)).toHaveLength(2) // the developer's row and the header's sign-out

    // a developer signs nobody out, whatever it posts
    const developerCsrf = csrfOf((await get('/dashboard/payments', laptop)).body)
    const ownerId = (await fixture.dashboardAccounts.listUsers(merchantId())).find(
      (user) => user.role === 'owner',
    )?.userId
    expect(
      (await post(`/dashboard/users/${ownerId}/sign-out`, { csrf: developerCsrf }, { cookie: laptop }))
        .statusCode,
    ).toBe(403)
    expect((await get('/dashboard/payments', owner)).statusCode).toBe(200)

    const csrf = csrfOf(users)
    expect((await post(`/dashboard/users/${userId}/sign-out`, { csrf }, { cookie: owner })).statusCode).toBe(
      303,
    )
    for (const session of [laptop, phone]) {
      const ended = await get('/dashboard/payments', session)
      expect(ended.headers.location).toBe('/dashboard/sign-in?lang=en&ended=1')
    }
    expect((await get('/dashboard/payments', owner)).statusCode).toBe(200)
    // still enabled: signs in again
    expect((await get('/dashboard/payments', await signIn('dev@shop.example'))).statusCode).toBe(200)
    expect((await get('/dashboard/audit', owner)).body).toContain('user.signed_out')
    expect(
      (await post('/dashboard/users/usr_unknown/sign-out', { csrf }, { cookie: owner })).statusCode,
    ).toBe(404)
  })

  it('locks an account after five failed sign-ins for 15 minutes, the right password included', async () => {
    await addUserAsOperator('dev@shop.example', 'developer').then(async ({ setupUrl }) => {
      expect((await post(pathOf(setupUrl), { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(
        303,
      )
    })
    for (let attempt = 0; attempt < 5; attempt++) {
      const failed = await post('/dashboard/sign-in', {
        email: 'dev@shop.example',
        password: 'wrong password!',
      })
      expect(failed.statusCode).toBe(401)
    }
    const locked = await post('/dashboard/sign-in', { email: 'dev@shop.example', password: PASSWORD })
    expect(locked.statusCode).toBe(429)
    expect(locked.body).toContain('Too many failed sign-ins')
    fixture.clock.advance(15 * 60_000)
    await signIn('dev@shop.example')
  })

  it('refuses a sign-in posted from another site, and an unknown setup link', async () => {
    const crossSite = await post(
      '/dashboard/sign-in',
      { email: 'a@shop.example', password: PASSWORD },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    )
    expect(crossSite.statusCode).toBe(403)
    expect((await get('/dashboard/setup/unknown-token')).statusCode).toBe(404)
    expect((await get('/dashboard/payments')).headers.location).toBe('/dashboard/sign-in?lang=en')
  })

  it('the admin API refuses an unknown merchant, a second user of one email and a bad role', async () => {
    await addUserAsOperator('a@shop.example', 'viewer')
    const add = (id: string, body: unknown) =>
      fixture.adminApp.inject({
        method: 'POST',
        url: `/admin/v1/merchants/${id}/users`,
        headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      })
    expect((await add('mer_unknown', { email: 'b@shop.example', role: 'viewer' })).statusCode).toBe(404)
    const twice = await add(merchantId(), { email: 'A@shop.example', role: 'owner' })
    expect(twice.statusCode).toBe(409)
    expect(json(twice)).toMatchObject({ error: { code: 'USER_EXISTS' } })
    expect((await add(merchantId(), { email: 'c@shop.example', role: 'admin' })).statusCode).toBe(400)
    const noToken = await fixture.adminApp.inject({
      method: 'POST',
      url: `/admin/v1/merchants/${merchantId()}/users`,
    })
    expect(noToken.statusCode).toBe(401)
  })

  it("reads a payment's history and refunds through the command API, as the distributed shape's gateway does", async () => {
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
    const { email, secret } = await setUpOwner()
    const cookie = await signIn(email, codeAt(secret))
    const paymentId = await paidPayment('feed'.repeat(16))
    calls.length = 0
    const detail = await get(`/dashboard/payments/${paymentId}`, cookie)
    expect(detail.statusCode).toBe(200)
    expect(detail.body).toContain('transfer.detected')
    expect(calls).toEqual([
      `/internal/v1/payments/${paymentId}/events?merchantId=${merchantId()}`,
      '/internal/v1/outgoing/getRefundHistory',
    ])
  })
})

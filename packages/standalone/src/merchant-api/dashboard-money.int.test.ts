// Refunds, payouts and balances on the merchant's dashboard (docs/dashboard.md, "Refunds and
// payouts") over the gateway app on the standalone shape's SQLite adapters: an owner refunds from a
// payment's page (once, however often the form is sent), to an address or through a claim link,
// creates a payout and cancels it, and sees the balance GET /balances gives; every change is in the
// audit log; a developer's and a viewer's forged posts are refused and move nothing.

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

const FORM = {
  origin: 'null',
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
}
const PASSWORD = 'a long passphrase for tests'
const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
const PAYEE = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
const API = '/api/merchant/v1'

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
const pathOf = (url: string) => new URL(url).pathname
const post = (url: string, fields: Record<string, string>, cookie: string) =>
  fixture.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, cookie },
    payload: new URLSearchParams(fields).toString(),
  })
const get = (url: string, cookie: string) => fixture.app.inject({ method: 'GET', url, headers: { cookie } })
const cookieOf = (response: LightMyRequestResponse) =>
  String(response.headers['set-cookie']).split(';')[0] as string
const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string
const keyOf = (page: string) => /name="idempotencyKey" value="([^"]+)"/.exec(page)?.[1] as string

/** a user added by the operator, set up through the link and signed in: its session cookie */
async function signedIn(email: string, role: 'owner' | 'developer' | 'viewer'): Promise<string> {
  const added = await fixture.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${merchantId()}/users`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role }),
  })
  expect(added.statusCode, added.body).toBe(201)
  const setup = pathOf(json<{ setupUrl: string }>(added).setupUrl)
  const page = await fixture.app.inject({ method: 'GET', url: setup })
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.body)?.[1]
  const code = () =>
    TOTP.generate({ secret: Secret.fromBase32(secret as string), timestamp: fixture.clock.now().getTime() })
  const fields: Record<string, string> = secret ? { totpSecret: secret, code: code() } : {}
  const done = await post(setup, { password: PASSWORD, confirmation: PASSWORD, ...fields }, '')
  expect(done.statusCode, done.body).toBe(303)
  fixture.clock.advance(30_000)
  const response = await post(
    '/dashboard/sign-in',
    { email, password: PASSWORD, ...(secret ? { code: code() } : {}) },
    '',
  )
  expect(response.statusCode, response.body).toBe(303)
  return cookieOf(response)
}

/** a USDT payment on TRON of 10, paid 12.5 and final, in the read model as the projection leaves it */
async function paidPayment(): Promise<string> {
  const created = json<{ paymentId: string; generatedAddress: string }>(
    await fixture.create({ amount: '10', currency: 'USDT', network: 'TRON' }),
  )
  const { paymentId } = created
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash: `tx-${paymentId}`,
    transferIndex: 0,
    address: created.generatedAddress,
    amountUnits: '12500000',
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

const refundsOf = async () =>
  json<{ data: { refundId: string; status: string; amount: string; claimUrl: string | null }[] }>(
    await fixture.send('GET', `${API}/refunds`),
  ).data

describe("the dashboard's refunds and payouts", () => {
  it("an owner refunds from the payment's page once, however often the form is sent, and the audit log has it", async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    const paymentId = await paidPayment()
    const detail = await get(`/dashboard/payments/${paymentId}`, owner)
    const formHref = `/dashboard/payments/${paymentId}/refund?lang=en`
    expect(detail.body).toContain(`href="${formHref}"`)
    const form = await get(formHref, owner)
    expect(form.statusCode).toBe(200)
    const fields = {
      csrf: csrfOf(form.body),
      idempotencyKey: keyOf(form.body),
      amount: '2.5',
      address: CUSTOMER,
      reason: 'overpaid',
    }
    const created = await post(`/dashboard/payments/${paymentId}/refunds`, fields, owner)
    expect(created.statusCode, created.body).toBe(201)
    // the same form sent again (a double click, a reload): the same refund, not a second
    const again = await post(`/dashboard/payments/${paymentId}/refunds`, fields, owner)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.body).toContain('already created')
    const refunds = await refundsOf()
    expect(refunds.map(({ amount, status }) => ({ amount, status }))).toEqual([
      { amount: '2.5', status: 'ready' },
    ])
    // the list shows it at once, and the balance GET /balances gives
    const page = await get('/dashboard/refunds', owner)
    expect(page.body).toContain(refunds[0]?.refundId)
    const balances = json<{ data: { availableAmount: string }[] }>(
      await fixture.send('GET', `${API}/balances`),
    ).data
    expect(balances).toHaveLength(1)
    expect(page.body).toContain(`>${balances[0]?.availableAmount}<`)
    // more than is refundable: refused with the domain's words, nothing created
    const tooMuch = await post(
      `/dashboard/payments/${paymentId}/refunds`,
      { ...fields, idempotencyKey: 'second', amount: '100' },
      owner,
    )
    expect(tooMuch.statusCode).toBe(400)
    expect(tooMuch.body).toContain('role="alert"')
    expect(await refundsOf()).toHaveLength(1)
    // the form shown again keeps its key: corrected, it creates the refund a refused one did not
    expect(keyOf(tooMuch.body)).toBe('second')
    const corrected = await post(
      `/dashboard/payments/${paymentId}/refunds`,
      { ...fields, idempotencyKey: 'second', amount: '1' },
      owner,
    )
    expect(corrected.statusCode, corrected.body).toBe(201)
    expect(await refundsOf()).toHaveLength(2)

    const audit = await get('/dashboard/audit', owner)
    expect(audit.body.match(/refund\.created/g)).toHaveLength(2)
  })

  it('a refund without an address carries its claim link; an owner cancels it', async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    const paymentId = await paidPayment()
    const form = await get(`/dashboard/payments/${paymentId}/refund`, owner)
    const created = await post(
      `/dashboard/payments/${paymentId}/refunds`,
      { csrf: csrfOf(form.body), idempotencyKey: keyOf(form.body), amount: '1', address: '' },
      owner,
    )
    expect(created.statusCode, created.body).toBe(201)
    const [refund] = await refundsOf()
    expect(refund?.status).toBe('awaiting_address')
    expect(refund?.claimUrl?.startsWith(`${FIXTURE_PUBLIC_URL}/refund/`)).toBe(true)
    expect(created.body).toContain(`id="claim-link" href="${refund?.claimUrl}"`)

    const canceled = await post(
      `/dashboard/refunds/${refund?.refundId}/cancel`,
      { csrf: csrfOf(created.body) },
      owner,
    )
    expect(canceled.statusCode, canceled.body).toBe(303)
    expect((await refundsOf())[0]?.status).toBe('canceled')
    const list = await get('/dashboard/refunds?status=canceled', owner)
    expect(list.body).toContain(refund?.refundId)
    expect((await get('/dashboard/refunds?status=ready', owner)).body).not.toContain(refund?.refundId)
    expect((await get('/dashboard/audit', owner)).body).toContain('refund.canceled')
  })

  it('an owner creates a payout within the balance, once; more than the balance is refused', async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    await paidPayment()
    const page = await get('/dashboard/refunds', owner)
    const fields = {
      csrf: csrfOf(page.body),
      idempotencyKey: keyOf(page.body),
      network: 'TRON',
      currency: 'usdt',
      amount: '3',
      address: PAYEE,
    }
    const created = await post('/dashboard/payouts', fields, owner)
    expect(created.statusCode, created.body).toBe(201)
    expect((await post('/dashboard/payouts', fields, owner)).statusCode).toBe(200)
    const payouts = json<{ data: { payoutId: string; amount: string }[] }>(
      await fixture.send('GET', `${API}/payouts`),
    ).data
    expect(payouts.map(({ amount }) => amount)).toEqual(['3'])
    const tooMuch = await post(
      '/dashboard/payouts',
      { ...fields, idempotencyKey: 'other', amount: '1000' },
      owner,
    )
    expect(tooMuch.statusCode).toBe(409)
    expect(tooMuch.body).toContain('role="alert"')
    expect((await get('/dashboard/audit', owner)).body).toContain('payout.created')
  })

  it('pages the payouts, 25 a page, newest first, to the oldest', async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    await paidPayment()
    for (let index = 0; index < 26; index++) {
      const created = await fixture.send('POST', `${API}/payouts`, {
        body: JSON.stringify({
          network: 'TRON',
          currency: 'USDT',
          amount: '0.1',
          address: PAYEE,
          idempotencyKey: `payout-${index}`,
        }),
      })
      expect(created.statusCode, created.body).toBe(201)
    }
    const all = json<{ data: { payoutId: string }[] }>(
      await fixture.send('GET', `${API}/payouts?limit=100`),
    ).data
    const oldest = all.at(-1)?.payoutId as string
    const first = await get('/dashboard/refunds', owner)
    expect(first.body.match(/<td class="mono">[0-9a-f-]{36}<\/td>/g)).toHaveLength(25)
    expect(first.body).not.toContain(oldest)
    const older = /href="([^"]+payoutsAfter=[^"]+)"/.exec(first.body)?.[1]?.replaceAll('&amp;', '&') as string
    const second = await get(older, owner)
    expect(second.statusCode).toBe(200)
    expect(second.body).toContain(oldest)
    expect(second.body).not.toContain('payoutsAfter=')
  })

  it("refuses a developer's and a viewer's forged posts: no refund, no payout, no cancel", async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    const paymentId = await paidPayment()
    const form = await get(`/dashboard/payments/${paymentId}/refund`, owner)
    await post(
      `/dashboard/payments/${paymentId}/refunds`,
      { csrf: csrfOf(form.body), idempotencyKey: 'by-owner', amount: '1', address: CUSTOMER },
      owner,
    )
    const [refund] = await refundsOf()
    for (const [email, role] of [
      ['dev@shop.example', 'developer'],
      ['viewer@shop.example', 'viewer'],
    ] as const) {
      const cookie = await signedIn(email, role)
      // they read the list, without the forms that move money
      const list = await get('/dashboard/refunds', cookie)
      expect(list.statusCode).toBe(200)
      expect(list.body).toContain(refund?.refundId)
      expect(list.body).not.toContain('/dashboard/payouts?')
      expect(list.body).not.toContain('/cancel')
      expect((await get(`/dashboard/payments/${paymentId}`, cookie)).body).not.toContain('/refund?')
      expect((await get(`/dashboard/payments/${paymentId}/refund`, cookie)).statusCode).toBe(403)
      // with a valid token of their own session, still refused
      const csrf = csrfOf(list.body)
      const forged = [
        post(
          `/dashboard/payments/${paymentId}/refunds`,
          { csrf, idempotencyKey: `${role}-r`, amount: '1', address: CUSTOMER },
          cookie,
        ),
        post(
          '/dashboard/payouts',
          {
            csrf,
            idempotencyKey: `${role}-p`,
            network: 'TRON',
            currency: 'USDT',
            amount: '1',
            address: PAYEE,
          },
          cookie,
        ),
        post(`/dashboard/refunds/${refund?.refundId}/cancel`, { csrf }, cookie),
      ]
      for (const response of await Promise.all(forged)) expect(response.statusCode).toBe(403)
    }
    expect((await refundsOf()).map(({ status }) => status)).toEqual(['ready'])
    const payouts = json<{ data: unknown[] }>(await fixture.send('GET', `${API}/payouts`)).data
    expect(payouts).toEqual([])
  })
})

describe("the dashboard's refunds in the distributed shape", () => {
  it('creates a refund and reads the balance through the command API, as the distributed gateway does', async () => {
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
    const owner = await signedIn('owner@shop.example', 'owner')
    const paymentId = await paidPayment()
    const form = await get(`/dashboard/payments/${paymentId}/refund`, owner)
    calls.length = 0
    const created = await post(
      `/dashboard/payments/${paymentId}/refunds`,
      { csrf: csrfOf(form.body), idempotencyKey: keyOf(form.body), amount: '2', address: CUSTOMER },
      owner,
    )
    expect(created.statusCode, created.body).toBe(201)
    expect(calls).toContain('/internal/v1/outgoing/createRefund')
    expect(calls).toContain('/internal/v1/outgoing/getBalances')
    expect(await refundsOf()).toHaveLength(1)
  })
})

describe("the dashboard's API keys", () => {
  it('an owner creates a key (its secret shown once), rolls it with an overlap and revokes it; a developer may not', async () => {
    const owner = await signedIn('owner@shop.example', 'owner')
    const list = await get('/dashboard/api-keys', owner)
    expect(list.statusCode).toBe(200)
    const firstKey = fixture.merchant.apiKey
    expect(list.body).toContain(firstKey)

    const created = await post('/dashboard/api-keys', { csrf: csrfOf(list.body) }, owner)
    expect(created.statusCode, created.body).toBe(201)
    const apiKey = /id="new-key">([^<]+)</.exec(created.body)?.[1] as string
    const apiSecret = /id="new-secret">([^<]+)</.exec(created.body)?.[1] as string
    expect(apiSecret.length).toBeGreaterThan(20)
    // shown this once: the list has the key, never its secret
    const after = await get('/dashboard/api-keys', owner)
    expect(after.body).toContain(apiKey)
    expect(after.body).not.toContain(apiSecret)

    const rolled = await post(
      `/dashboard/api-keys/${apiKey}/roll`,
      { csrf: csrfOf(after.body), overlapHours: '2' },
      owner,
    )
    expect(rolled.statusCode, rolled.body).toBe(201)
    const newKey = /id="new-key">([^<]+)</.exec(rolled.body)?.[1] as string
    const until = new Date(fixture.clock.now().getTime() + 2 * 3_600_000).toISOString()
    expect(rolled.body).toContain(until.replace('T', ' ').slice(0, 19))
    const revoked = await post(`/dashboard/api-keys/${newKey}/revoke`, { csrf: csrfOf(rolled.body) }, owner)
    expect(revoked.statusCode).toBe(303)
    const keys = json<{ apiKeys: { apiKey: string; status: string }[] }>(
      await fixture.adminApp.inject({
        method: 'GET',
        url: `/admin/v1/merchants/${merchantId()}`,
        headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
      }),
    ).apiKeys
    // one instant: the store's order among them is its own
    expect(Object.fromEntries(keys.map(({ apiKey: key, status }) => [key, status]))).toEqual({
      [firstKey]: 'active',
      [apiKey]: 'expiring',
      [newKey]: 'revoked',
    })
    // another merchant's key is no key of this one's
    const foreign = await post(
      `/dashboard/api-keys/${fixture.otherMerchant.apiKey}/revoke`,
      { csrf: csrfOf(rolled.body) },
      owner,
    )
    expect(foreign.statusCode).toBe(404)
    const audit = (await get('/dashboard/audit', owner)).body
    for (const action of ['api_key.created', 'api_key.rolled', 'api_key.revoked'])
      expect(audit).toContain(action)

    const developer = await signedIn('dev@shop.example', 'developer')
    expect((await get('/dashboard/api-keys', developer)).statusCode).toBe(403)
    const csrf = csrfOf((await get('/dashboard/payments', developer)).body)
    expect((await post('/dashboard/api-keys', { csrf }, developer)).statusCode).toBe(403)
    expect((await post(`/dashboard/api-keys/${firstKey}/revoke`, { csrf }, developer)).statusCode).toBe(403)
    const count = json<{ apiKeys: unknown[] }>(
      await fixture.adminApp.inject({
        method: 'GET',
        url: `/admin/v1/merchants/${merchantId()}`,
        headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
      }),
    ).apiKeys
    expect(count).toHaveLength(3)
  })
})

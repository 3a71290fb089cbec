// The dashboard's webhook pages and payments export over the gateway app (docs/dashboard.md,
// "Webhooks", "Exporting payments"): a developer adds an endpoint (its secret shown once), disables
// it and rotates its secret; reads a failed delivery's attempts and redelivers it, at most once a
// minute; a viewer reads the same pages without their forms and a forged post changes nothing;
// every change is in the audit log; the CSV export applies the list's filters.

import type { LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
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

let fixture: MerchantApiFixture
let woken: string[][]
beforeEach(async () => {
  woken = []
  fixture = await openMerchantApiFixture({ wakeDeliveries: (ids) => woken.push(ids) })
})
afterEach(async () => {
  await fixture.close()
})

const merchantId = () => fixture.merchant.merchant.merchantId
const cookieOf = (response: LightMyRequestResponse) =>
  String(response.headers['set-cookie']).split(';')[0] as string
const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string
const get = (url: string, cookie: string) => fixture.app.inject({ method: 'GET', url, headers: { cookie } })
const post = (url: string, fields: Record<string, string>, cookie?: string) =>
  fixture.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, ...(cookie ? { cookie } : {}) },
    payload: new URLSearchParams(fields).toString(),
  })

/** a developer or viewer (no TOTP) set up through the operator's link and signed in: cookie, csrf */
async function signedIn(email: string, role: 'developer' | 'viewer') {
  const added = await fixture.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${merchantId()}/users`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role }),
  })
  const setupPath = new URL(json<{ setupUrl: string }>(added).setupUrl).pathname
  expect((await post(setupPath, { password: PASSWORD, confirmation: PASSWORD })).statusCode).toBe(303)
  const cookie = cookieOf(await post('/dashboard/sign-in', { email, password: PASSWORD }))
  const page = await get('/dashboard/webhooks', cookie)
  expect(page.statusCode, page.body).toBe(200)
  return { cookie, csrf: csrfOf(page.body) }
}

/** a delivery of a payment's event whose one attempt got a 500, failed for good */
async function failedDelivery(endpointId: string) {
  const created = await fixture.create({ amount: '10.5', currency: 'USDT', network: 'TRON' })
  const { paymentId } = json<{ paymentId: string }>(created)
  const at = fixture.clock.now().toISOString()
  const deliveryId = `${paymentId}-evt.${endpointId}`
  await fixture.deliveries.enqueue({
    deliveryId,
    eventId: `${paymentId}-evt`,
    endpointId,
    paymentId,
    merchantId: merchantId(),
    eventType: 'payment.pending',
    sequence: 0,
    payload: { event: 'payment.pending' },
    targetUrl: 'https://hooks.shop.example/chainpay',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at,
    createdAt: at,
    deliveredAt: null,
    lastError: null,
  })
  await fixture.deliveries.recordAttempt(
    { deliveryId, attempt: 1, at, statusCode: 500, durationMs: 42, error: 'HTTP 500' },
    { status: 'failed' },
  )
  return { deliveryId, paymentId }
}

describe('the dashboard: webhooks', () => {
  it('a developer adds an endpoint, disables it, rotates its secret and redelivers; all audited', async () => {
    const { cookie, csrf } = await signedIn('dev@shop.example', 'developer')

    const added = await post(
      '/dashboard/webhooks/endpoints',
      { csrf, url: 'https://hooks.shop.example/chainpay', description: 'orders' },
      cookie,
    )
    expect(added.statusCode, added.body).toBe(201)
    const secret = /id="endpoint-secret">(whsec_[^<]+)</.exec(added.body)?.[1] as string
    expect(secret).toBeDefined()
    const [endpoint] = await fixture.webhookEndpoints.list(merchantId())
    expect(endpoint).toMatchObject({ url: 'https://hooks.shop.example/chainpay', description: 'orders' })
    const endpointId = endpoint?.endpointId as string
    // shown once: the list does not show it again
    expect((await get('/dashboard/webhooks', cookie)).body).not.toContain(secret)

    expect(
      (await post(`/dashboard/webhooks/endpoints/${endpointId}/disable`, { csrf }, cookie)).statusCode,
    ).toBe(303)
    expect((await fixture.webhookEndpoints.get(merchantId(), endpointId))?.enabled).toBe(false)

    const rotated = await post(`/dashboard/webhooks/endpoints/${endpointId}/rotate`, { csrf }, cookie)
    expect(rotated.statusCode, rotated.body).toBe(200)
    const newSecret = /id="endpoint-secret">(whsec_[^<]+)</.exec(rotated.body)?.[1]
    expect(newSecret).toMatch(/^whsec_/)
    expect(newSecret).not.toBe(secret)
    // the old one keeps signing for the API's default overlap
    expect((await fixture.webhookEndpoints.get(merchantId(), endpointId))?.previousSecretExpiresAt).toBe(
      new Date(fixture.clock.now().getTime() + 24 * 3_600_000).toISOString(),
    )

    const { deliveryId, paymentId } = await failedDelivery(endpointId)
    const deliveries = await get(`/dashboard/webhooks/deliveries?paymentId=${paymentId}`, cookie)
    expect(deliveries.statusCode).toBe(200)
    expect(deliveries.body).toContain('payment.pending')
    expect(deliveries.body).toContain('500 · 42 ms')
    expect(deliveries.body).toContain('HTTP 500')
    const redelivered = await post(`/dashboard/webhooks/deliveries/${deliveryId}/redeliver`, { csrf }, cookie)
    expect(redelivered.statusCode, redelivered.body).toBe(303)
    expect(await fixture.deliveries.get(deliveryId)).toMatchObject({ status: 'pending', attempts: 0 })
    expect(woken).toEqual([[deliveryId]])
    // in line already: once a minute at most, as the API bounds it
    const again = await post(`/dashboard/webhooks/deliveries/${deliveryId}/redeliver`, { csrf }, cookie)
    expect(again.statusCode).toBe(429)
    expect(again.headers['retry-after']).toBe('60')
    expect(woken).toHaveLength(1)

    const audit = await fixture.dashboardAccounts.listAudit(merchantId(), 20)
    expect(audit.map((entry) => entry.action)).toEqual(
      expect.arrayContaining([
        'webhook_endpoint.created',
        'webhook_endpoint.disabled',
        'webhook_endpoint.secret_rotated',
        'webhook_delivery.redelivered',
      ]),
    )
    expect(audit.every((entry) => !entry.subject.includes('whsec_'))).toBe(true)
  })

  it("a viewer reads endpoints and deliveries without their forms; a viewer's forged posts change nothing", async () => {
    const developer = await signedIn('dev@shop.example', 'developer')
    await post(
      '/dashboard/webhooks/endpoints',
      { csrf: developer.csrf, url: 'https://hooks.shop.example/a' },
      developer.cookie,
    )
    const endpointId = (await fixture.webhookEndpoints.list(merchantId()))[0]?.endpointId as string
    const { deliveryId } = await failedDelivery(endpointId)

    const { cookie, csrf } = await signedIn('viewer@shop.example', 'viewer')
    const endpoints = await get('/dashboard/webhooks', cookie)
    expect(endpoints.body).toContain('https://hooks.shop.example/a')
    expect(endpoints.body).not.toContain('/rotate')
    const deliveries = await get('/dashboard/webhooks/deliveries', cookie)
    expect(deliveries.body).toContain('HTTP 500')
    expect(deliveries.body).not.toContain('/redeliver')

    for (const [url, fields] of [
      [`/dashboard/webhooks/deliveries/${deliveryId}/redeliver`, {}],
      [`/dashboard/webhooks/endpoints/${endpointId}/disable`, {}],
      [`/dashboard/webhooks/endpoints/${endpointId}/rotate`, {}],
      ['/dashboard/webhooks/endpoints', { url: 'https://hooks.shop.example/b' }],
    ] as const) {
      expect((await post(url, { csrf, ...fields }, cookie)).statusCode).toBe(403)
    }
    expect((await fixture.deliveries.get(deliveryId))?.status).toBe('failed')
    const [endpoint, ...others] = await fixture.webhookEndpoints.list(merchantId())
    expect(endpoint?.enabled).toBe(true)
    expect(endpoint?.previousSecret).toBeNull()
    expect(others).toEqual([])
    expect(woken).toEqual([])
  })

  it("refuses another merchant's delivery and a form without the session's token", async () => {
    const { cookie, csrf } = await signedIn('dev@shop.example', 'developer')
    expect((await post('/dashboard/webhooks/deliveries/nope/redeliver', { csrf }, cookie)).statusCode).toBe(
      404,
    )
    const forged = await post(
      '/dashboard/webhooks/endpoints',
      { url: 'https://hooks.shop.example/x' },
      cookie,
    )
    expect(forged.statusCode).toBe(403)
    expect(await fixture.webhookEndpoints.list(merchantId())).toEqual([])
  })
})

describe('the dashboard: payments export', () => {
  it('streams the filtered payments as CSV, amounts as the API shows them, to a viewer too', async () => {
    for (const [amount, network, currency] of [
      ['10.5', 'TRON', 'USDT'],
      ['0.000001', 'TRON', 'USDT'],
      ['2.25', 'SOLANA', 'USDC'],
    ]) {
      const created = await fixture.create({ amount, network, currency, metadata: { orderId: '=1+1' } })
      expect(created.statusCode, created.body).toBe(201)
    }
    const { cookie } = await signedIn('viewer@shop.example', 'viewer')
    const exported = await get('/dashboard/payments.csv?network=TRON&status=pending', cookie)
    expect(exported.statusCode).toBe(200)
    expect(exported.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(exported.headers['content-disposition']).toMatch(
      /^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    const lines = exported.body.split('\r\n').filter((line) => line !== '')
    expect(lines[0]).toMatch(/^\uFEFFpaymentId,status,createdAt,network,currency,tokenStandard,amount,/)
    expect(lines).toHaveLength(3)
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[6])
        .sort(),
    ).toEqual(['0.000001', '10.5'])
    expect(exported.body).toContain('"{""orderId"":""=1+1""}"')
    const bad = await get('/dashboard/payments.csv?status=nope', cookie)
    expect(bad.statusCode).toBe(400)
  })
})

describe('the dashboard: live updates', () => {
  it("a pending payment's page follows its revision with the same-origin script; a settled one stops", async () => {
    const created = await fixture.create({ amount: '10.5', currency: 'USDT', network: 'TRON' })
    const { paymentId } = json<{ paymentId: string }>(created)
    const { cookie } = await signedIn('viewer@shop.example', 'viewer')

    const page = await get(`/dashboard/payments/${paymentId}`, cookie)
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-security-policy']).toContain("script-src 'self'; connect-src 'self'")
    expect(page.body).toContain('<script src="/dashboard/assets/live.js" defer></script>')
    const document = await fixture.readModel.get(paymentId)
    expect(page.body).toContain(
      `data-status-url="/dashboard/payments/${paymentId}/status" data-revision="${document?.revision}"`,
    )
    const script = await get('/dashboard/assets/live.js', cookie)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(script.body).toContain('data-status-url')

    const status = async () =>
      json<{ revision: number; settled: boolean }>(
        await get(`/dashboard/payments/${paymentId}/status`, cookie),
      )
    expect(await status()).toEqual({ revision: document?.revision, status: 'pending', settled: false })
    // the projection moves it on: the status answers the new revision, and the page stops following
    if (document === null) throw new Error('the payment is in the read model')
    await fixture.readModel.save({
      ...document,
      revision: document.revision + 1,
      state: { ...document.state, status: 'expired' },
    })
    expect(await status()).toEqual({ revision: document.revision + 1, status: 'expired', settled: true })
    expect((await get(`/dashboard/payments/${paymentId}`, cookie)).body).not.toContain('live.js')
    // another merchant's, or none: nothing said about it
    expect((await get('/dashboard/payments/pay_unknown/status', cookie)).statusCode).toBe(404)
    expect((await get(`/dashboard/payments/${paymentId}/status`, 'chainpay_session=nope')).statusCode).toBe(
      303,
    )
  })
})

describe('the dashboard: volume', () => {
  it("draws each asset's settled volume as an SVG with a table of the exact amounts", async () => {
    const created = await fixture.create({ amount: '10.5', currency: 'USDT', network: 'TRON' })
    const { paymentId } = json<{ paymentId: string }>(created)
    const document = await fixture.readModel.get(paymentId)
    if (document === null) throw new Error('the payment is in the read model')
    // settled as the projection would leave it, created today (the fixture's clock)
    await fixture.readModel.save({
      ...document,
      revision: document.revision + 1,
      state: {
        ...document.state,
        status: 'confirmed',
        receivedUnits: '10500001',
        created: { ...document.state.created, createdAt: new Date().toISOString() },
      },
    })
    const { cookie } = await signedIn('viewer@shop.example', 'viewer')
    const page = await get('/dashboard/volume', cookie)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('<h2 id="volume-0">USDT · TRON</h2>')
    expect(page.body).toMatch(/<svg class="chart"[^>]*aria-hidden="true"/)
    expect(page.body).toContain('<td class="num">10.500001</td>')
    expect(page.body).not.toContain('<script')
  })
})

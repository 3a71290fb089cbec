// The refund claim page over the gateway app (docs/api.md, "The refund claim page"): a refund the
// merchant created without an address, claimed through the page's forms (refused, shown back, given
// once), the page of every later state as the admin API's steps move the refund on, the 404 of
// every other token, forms from elsewhere and garbage, the rate limit, the languages; and the same
// claim with the gateway reaching the refunds through the command API, as in the distributed shape.
// The markup is refund-claim-page.unit.test.ts's; the browser, refund-claim-page.e2e.test.ts's.

import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import { buildCommandApi } from '@chainpay/payment-command'
import { createRootLogger } from '@chainpay/platform'
import type { LightMyRequestResponse } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  FIXTURE_PUBLIC_URL,
  json,
  type MerchantApiFixture,
  type MerchantApiFixtureOptions,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const API = '/api/merchant/v1'
const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
const OTHER = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
const ETHEREUM = '0x52908400098527886E0F7030069857D2E4169EE7'
/** what a form of the page sends: same origin, Origin null under its no-referrer policy */
const FORM = {
  origin: 'null',
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
}

let fixture: MerchantApiFixture
const cleanups: Array<() => Promise<void>> = []

async function open(options: MerchantApiFixtureOptions = {}) {
  fixture = await openMerchantApiFixture(options)
  cleanups.push(() => fixture.close())
}
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const merchantId = () => fixture.merchant.merchant.merchantId

/** a USDT payment on TRON of 10, paid in full and final, in the read model as the projection puts it */
async function paidPayment(): Promise<string> {
  const created = json(await fixture.create({ amount: '10', currency: 'USDT', network: 'TRON' }))
  const paymentId = created.paymentId as string
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash: `tx-${paymentId}`,
    transferIndex: 0,
    address: created.generatedAddress as string,
    amountUnits: '10000000',
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

/** a refund of `amount` USDT the merchant creates without an address: its id and its page's path */
async function claimableRefund(amount = '4', key = 'claim-1', reason: string | null = 'Order #7 returned') {
  const paymentId = await paidPayment()
  const response = await fixture.send('POST', `${API}/payments/${paymentId}/refunds`, {
    body: JSON.stringify({ amount, idempotencyKey: key, ...(reason === null ? {} : { reason }) }),
  })
  expect(response.statusCode, response.body).toBe(201)
  const refund = json(response)
  return {
    refundId: refund.refundId as string,
    path: new URL(refund.claimUrl as string).pathname,
    claimUrl: refund.claimUrl as string,
  }
}

const page = (url: string, headers: Record<string, string> = {}) =>
  fixture.app.inject({ method: 'GET', url, headers })

const postForm = (url: string, body: string, headers: Record<string, string> = FORM) =>
  fixture.app.inject({ method: 'POST', url, headers, payload: body })

const refundOf = async (refundId: string) => json(await fixture.send('GET', `${API}/refunds/${refundId}`))

const admin = (url: string, body: unknown) =>
  fixture.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/outgoing/refund/${url}`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
    payload: body as Record<string, unknown>,
  })

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString()

function expectCustomerPageHeaders(response: LightMyRequestResponse) {
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8')
  expect(response.headers['content-security-policy']).toBe(
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  )
  expect(response.headers['cache-control']).toBe('no-store')
  expect(response.headers['referrer-policy']).toBe('no-referrer')
  expect(response.headers['x-frame-options']).toBe('DENY')
  expect(response.headers['x-content-type-options']).toBe('nosniff')
}

describe('claiming a refund through the page', () => {
  it('shows the refund, refuses a wrong address beside the field, shows the right one back, gives it once', async () => {
    await open()
    const { refundId, path, claimUrl } = await claimableRefund()
    expect(claimUrl).toMatch(new RegExp(`^${FIXTURE_PUBLIC_URL}/refund/[A-Za-z0-9_-]{44}$`))

    const shown = await page(path)
    expect(shown.statusCode).toBe(200)
    expectCustomerPageHeaders(shown)
    expect(shown.body).toContain('<h1>Refund from Test Shop</h1>')
    expect(shown.body).toContain(
      '<span class="mono amount" id="amount">4</span> <span class="amount">USDT</span>',
    )
    expect(shown.body).toContain('<dt>Network</dt><dd>TRON · TRC20</dd>')
    expect(shown.body).toContain('<span id="reason">Order #7 returned</span>')
    expect(shown.body).toContain(`<form method="post" action="${path}/address?lang=en" novalidate>`)
    expect(shown.body).toContain('An exchange deposit address may not credit a refund')

    // an Ethereum address, a TRON-looking one with a wrong checksum, nothing: the form again, 400
    for (const typed of [ETHEREUM, `${CUSTOMER.slice(0, -1)}9`]) {
      const refused = await postForm(`${path}/address?lang=en`, form({ address: typed }))
      expect(refused.statusCode).toBe(400)
      expectCustomerPageHeaders(refused)
      expect(refused.body).toContain('This is not a TRON address.')
      expect(refused.body).toContain(`value="${typed}"`)
      expect(refused.body).toContain('aria-invalid="true" autofocus>')
    }
    const empty = await postForm(`${path}/address`, form({ address: '  ' }))
    expect(empty.statusCode).toBe(400)
    expect(empty.body).toContain('Enter the address to receive the refund.')

    // pasted with blanks around it: shown back without them, nothing given yet
    const confirm = await postForm(`${path}/address?lang=en`, form({ address: ` ${CUSTOMER}\n` }))
    expect(confirm.statusCode).toBe(200)
    expect(confirm.body).toContain(
      `<p class="mono address confirm-address" id="confirm-address">${CUSTOMER}</p>`,
    )
    expect(confirm.body).toContain(`<form method="post" action="${path}/confirm?lang=en">`)
    expect(await refundOf(refundId)).toMatchObject({ status: 'awaiting_address', address: null })
    // "change": the field again, filled in, no refusal
    const change = await postForm(`${path}/address`, form({ address: CUSTOMER, change: '1' }))
    expect(change.statusCode).toBe(200)
    expect(change.body).toContain(`value="${CUSTOMER}"`)
    expect(change.body).not.toContain('aria-invalid')

    const given = await postForm(`${path}/confirm?lang=en`, form({ address: CUSTOMER }))
    expect(given.statusCode).toBe(303)
    expect(given.headers.location).toBe(`${path}?lang=en`)
    expect(await refundOf(refundId)).toMatchObject({ status: 'ready', address: CUSTOMER })
    const ready = await page(path)
    expect(ready.body).toContain('Your refund is on its way: it will be sent soon.')
    expect(ready.body).toContain(`<span class="mono address" id="given-address">${CUSTOMER}</span>`)
    expect(ready.body).not.toContain('<form')

    // the same again (a second tap): back to the page; another: 409, and the address stays
    const again = await postForm(`${path}/confirm`, form({ address: CUSTOMER }))
    expect(again.statusCode).toBe(303)
    const another = await postForm(`${path}/confirm`, form({ address: OTHER }))
    expect(another.statusCode).toBe(409)
    expect(another.body).toContain('An address has already been given for this refund. It cannot be changed.')
    expect((await postForm(`${path}/address`, form({ address: OTHER }))).statusCode).toBe(303)
    expect(await refundOf(refundId)).toMatchObject({ status: 'ready', address: CUSTOMER })
    // one address given, one event
    const history = json<{ data: Array<{ type: string }> }>(
      await fixture.send('GET', `${API}/payments/${(await refundOf(refundId)).paymentId}/events`),
    )
    expect(history.data.filter((entry) => entry.type === 'refund.ready')).toHaveLength(1)
    // the token never reaches a log line
    expect(fixture.logLines().join('\n')).not.toContain(path.slice('/refund/'.length))
  })

  it('shows every later state: on its way while sending, sent and completed with the transaction, failed, canceled', async () => {
    await open()
    const { refundId, path } = await claimableRefund('2', 'states-1')
    await postForm(`${path}/confirm`, form({ address: CUSTOMER }))
    const text = async () => (await page(path)).body
    expect((await admin(`${refundId}/plan`, { planId: 'plan-1' })).statusCode).toBe(200)
    expect(await text()).toContain('Your refund is on its way: it will be sent soon.')
    const txHash = 'cd'.repeat(32)
    expect((await admin(`${refundId}/sent`, { planId: 'plan-1', txHash })).statusCode).toBe(200)
    const sent = await text()
    expect(sent).toContain('Your refund has been sent.')
    expect(sent).toContain(
      `<li><span class="mono tx-hash">${txHash}</span> <a href="https://tronscan.org/#/transaction/${txHash}" rel="noopener noreferrer">View on Tronscan</a></li>`,
    )
    const completed = await admin(`${refundId}/completed`, {
      txHash,
      networkFee: { currency: 'TRX', amount: '13.3' },
    })
    expect(completed.statusCode).toBe(200)
    expect(await text()).toContain('Your refund has arrived.')

    const failing = await claimableRefund('2', 'states-2')
    await postForm(`${failing.path}/confirm`, form({ address: CUSTOMER }))
    await admin(`${failing.refundId}/plan`, { planId: 'plan-2' })
    await admin(`${failing.refundId}/sent`, { planId: 'plan-2', txHash: 'ef'.repeat(32) })
    expect(
      (await admin(`${failing.refundId}/failed`, { txHash: 'ef'.repeat(32), reason: 'REVERT' })).statusCode,
    ).toBe(200)
    const failed = (await page(failing.path)).body
    expect(failed).toContain('The refund could not be sent.')
    expect(failed).toContain('Test Shop will contact you or send it again.')

    // canceled by the merchant before the customer came: the page says so, a form changes nothing
    const canceling = await claimableRefund('1', 'states-3', null)
    const canceled = await fixture.send('POST', `${API}/refunds/${canceling.refundId}/cancel`, { body: '{}' })
    expect(canceled.statusCode).toBe(200)
    expect((await page(canceling.path)).body).toContain('This refund was canceled.')
    const late = await postForm(`${canceling.path}/confirm`, form({ address: CUSTOMER }))
    expect(late.statusCode).toBe(303)
    expect(await refundOf(canceling.refundId)).toMatchObject({ status: 'canceled', address: null })
  })

  it('answers the same 404 for an unknown, altered or malformed token; a refund given its address by the merchant has no page', async () => {
    await open()
    const { path } = await claimableRefund()
    const token = path.slice('/refund/'.length)
    const altered = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`
    const withAddress = json(
      await fixture.send('POST', `${API}/payments/${await paidPayment()}/refunds`, {
        body: JSON.stringify({ amount: '1', address: CUSTOMER, idempotencyKey: 'by-address' }),
      }),
    )
    expect(withAddress.claimUrl).toBeNull()
    const pages = await Promise.all(
      ['A'.repeat(44), altered, '%00', '..%2F..%2Fpay', 'x'.repeat(90), 'x'.repeat(4000)].map((bad) =>
        page(`/refund/${bad}`),
      ),
    )
    const notFound = pages[0]?.body
    expect(notFound).toContain('<h1>Page not found</h1>')
    for (const response of pages) {
      expect(response.statusCode).toBe(404)
      expect(response.body).toBe(notFound)
      expectCustomerPageHeaders(response)
    }
    expect((await postForm(`/refund/${altered}/confirm`, form({ address: CUSTOMER }))).statusCode).toBe(404)
    expect((await postForm(`/refund/${altered}/address`, form({ address: CUSTOMER }))).statusCode).toBe(404)
    expect((await page(`/refund/${altered}/logo`)).statusCode).toBe(404)
  })

  it('refuses forms from another site, and answers garbage with a refusal, never a 500', async () => {
    await open()
    const { refundId, path } = await claimableRefund()
    const body = form({ address: CUSTOMER })
    for (const headers of [
      { ...FORM, origin: 'https://evil.example' },
      { ...FORM, 'sec-fetch-site': 'cross-site' },
      { ...FORM, 'sec-fetch-site': 'same-site' },
    ]) {
      expect((await postForm(`${path}/confirm`, body, headers)).statusCode).toBe(403)
      expect((await postForm(`${path}/address`, body, headers)).statusCode).toBe(403)
    }
    const statuses = await Promise.all([
      // JSON instead of a form, with a number for the address: as if nothing was typed
      postForm(`${path}/address`, '{"address":5}', { ...FORM, 'content-type': 'application/json' }),
      postForm(`${path}/confirm`, '[1,2]', { ...FORM, 'content-type': 'application/json' }),
      postForm(`${path}/confirm`, 'not json', { ...FORM, 'content-type': 'application/json' }),
      postForm(`${path}/address`, body, { ...FORM, 'content-type': 'text/plain' }),
      postForm(`${path}/address`, '<address/>', { ...FORM, 'content-type': 'application/xml' }),
      postForm(`${path}/confirm`, `address=${'T'.repeat(3000)}`),
      postForm(`${path}/address`, `address=${'T'.repeat(200)}`),
      postForm(`${path}/address`, 'address=%E0%A4%A&address=x'),
      postForm(`${path}/confirm`, ''),
    ]).then((responses) => responses.map((response) => response.statusCode))
    expect(statuses).toEqual([400, 400, 400, 400, 415, 413, 400, 400, 400])
    // a repeated field: the first counts
    const twice = await postForm(`${path}/address`, `address=${CUSTOMER}&address=${OTHER}`)
    expect(twice.body).toContain(`id="confirm-address">${CUSTOMER}</p>`)
    expect(await refundOf(refundId)).toMatchObject({ status: 'awaiting_address' })
  })

  it('reads in German, by ?lang= or Accept-Language, and keeps it through the forms', async () => {
    await open()
    const { path } = await claimableRefund()
    const german = await page(path, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' })
    expect(german.body).toContain('<html lang="de">')
    expect(german.body).toContain('<h1>Rückerstattung von Test Shop</h1>')
    expect(german.body).toContain(`action="${path}/address?lang=de"`)
    const refused = await postForm(`${path}/address?lang=de`, form({ address: ETHEREUM }))
    expect(refused.body).toContain('Das ist keine TRON-Adresse.')
    const given = await postForm(`${path}/confirm?lang=de`, form({ address: CUSTOMER }))
    expect(given.headers.location).toBe(`${path}?lang=de`)
    expect((await page(`${path}?lang=de`)).body).toContain('Ihre Rückerstattung ist unterwegs')
  })

  it('limits the requests per client address, as the other public routes', async () => {
    await open({ rateLimit: { max: 100, windowMs: 60_000, perAddressMax: 3 } })
    const { path } = await claimableRefund()
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await page(path)).statusCode)
    expect(statuses).toEqual([200, 200, 200, 429])
    expect((await postForm(`${path}/confirm`, form({ address: CUSTOMER }))).statusCode).toBe(429)
  })
})

describe('the claim in the distributed shape', () => {
  it('reaches the refunds through the command API: read and given over HTTP, as payment-command serves them', async () => {
    const calls: string[] = []
    let client: HttpPaymentCommands | undefined
    await open({
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
    })
    const { refundId, path } = await claimableRefund()
    calls.length = 0
    expect((await page(path)).body).toContain('Tell us where to send your USDT.')
    expect(calls).toEqual(['/internal/v1/outgoing/getOutgoing'])
    const given = await postForm(`${path}/confirm`, form({ address: CUSTOMER }))
    expect(given.statusCode).toBe(303)
    expect(calls.slice(1)).toEqual([
      '/internal/v1/outgoing/getOutgoing',
      '/internal/v1/outgoing/giveRefundAddress',
    ])
    expect((await page(path)).body).toContain('Your refund is on its way')
    const refused = await postForm(`${path}/confirm`, form({ address: OTHER }))
    expect(refused.statusCode).toBe(409)
    expect(await refundOf(refundId)).toMatchObject({ status: 'ready', address: CUSTOMER })
  })
})

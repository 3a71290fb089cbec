// Reading back (docs/api.md, "GET /payments" and "GET /payments/{paymentId}/events") on the gateway's
// app over SQLite, with payment-command's handler called directly, as standalone runs them.

import type { TransferObservation } from '@chainpay/contracts'
import { type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_START,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const UNKNOWN_ID = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
const base = { amount: '10.5', currency: 'USDT', network: 'TRON' }

interface Page {
  data: Array<Record<string, unknown> & { paymentId: string; createdAt: string }>
  nextCursor: string | null
}
const errorOf = (response: { body: string }) =>
  json<{ error: { code: string; message: string } }>(response).error

let fixture: MerchantApiFixture

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})
afterEach(() => fixture.close())

/** creates a payment `minutes` after the fixture's start and returns its id */
async function createAt(minutes: number, body: Record<string, unknown> = base): Promise<string> {
  fixture.clock.set(new Date(Date.parse(FIXTURE_START) + minutes * 60_000))
  const response = await fixture.create(body)
  expect(response.statusCode, response.body).toBe(201)
  return json<{ paymentId: string }>(response).paymentId
}

const list = async (query = '') => {
  const response = await fixture.send('GET', `${PAYMENTS}${query}`)
  expect(response.statusCode, response.body).toBe(200)
  return json<Page>(response)
}

/** what the projection does: folds the payment's events into the read model */
async function project(paymentId: string): Promise<void> {
  const history = await fixture.handler.getPaymentHistory({
    merchantId: fixture.merchant.merchant.merchantId,
    paymentId,
  })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) await fixture.readModel.save(folded)
}

async function observe(paymentId: string, fields: Partial<Omit<TransferObservation, 'kind'>>): Promise<void> {
  const payment = await fixture.handler.getPayment({
    merchantId: fixture.merchant.merchant.merchantId,
    paymentId,
  })
  if (payment === null) throw new Error(`no payment ${paymentId}`)
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash: 'tx-1',
    transferIndex: 0,
    address: payment.payment.created.address,
    amountUnits: '10500000',
    blockHeight: 100,
    blockTime: '2030-01-15T12:05:00.000Z',
    confirmations: 20,
    status: 'seen',
    dropReason: null,
    observedAt: '2030-01-15T12:05:03.000Z',
    ...fields,
  })
  await project(paymentId)
}

describe('GET /payments', () => {
  it('lists the caller’s payments newest first, each exactly as GET shows it, with no cursor on the last page', async () => {
    const ids = [await createAt(0), await createAt(1), await createAt(2)]
    await fixture.create(base, fixture.otherMerchant)
    const page = await list()
    expect(page.data.map((payment) => payment.paymentId)).toEqual([...ids].reverse())
    expect(page.nextCursor).toBeNull()
    for (const payment of page.data) {
      expect(payment).toEqual(json(await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}`)))
    }
    expect((await list()).data).toHaveLength(3)
  })

  it('answers an empty list for a merchant without payments', async () => {
    expect(await list()).toEqual({ data: [], nextCursor: null })
  })

  it('pages with limit and nextCursor, the cursor taken back exactly as given', async () => {
    const ids: string[] = []
    for (let minute = 0; minute < 5; minute++) ids.push(await createAt(minute))
    const first = await list('?limit=2')
    expect(first.data.map((payment) => payment.paymentId)).toEqual([ids[4], ids[3]])
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/)
    const second = await list(`?limit=2&cursor=${first.nextCursor}`)
    expect(second.data.map((payment) => payment.paymentId)).toEqual([ids[2], ids[1]])
    const third = await list(`?limit=2&cursor=${second.nextCursor}`)
    expect(third).toEqual({ data: [expect.objectContaining({ paymentId: ids[0] })], nextCursor: null })
  })

  it('defaults to 20 a page and takes up to 100', async () => {
    for (let n = 0; n < 21; n++) await createAt(0)
    const page = await list()
    expect(page.data).toHaveLength(20)
    expect(page.nextCursor).not.toBeNull()
    expect((await list('?limit=100')).data).toHaveLength(21)
  })

  it('shows every payment once while payments are created during the paging, in the same millisecond too', async () => {
    const before: string[] = []
    for (let n = 0; n < 7; n++) before.push(await createAt(n % 3))
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Page = await list(`?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
      seen.push(...page.data.map((payment) => payment.paymentId))
      // one at the newest time already listed, one later
      await createAt(2)
      await createAt(10)
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.filter((id) => before.includes(id)).sort()).toEqual([...before].sort())
  })

  it('filters by one status or several, network, currency and a creation window', async () => {
    const tron = await createAt(0)
    const solana = await createAt(1, { amount: '1', currency: 'USDC', network: 'SOLANA' })
    const canceled = await createAt(2)
    expect((await fixture.send('POST', `${PAYMENTS}/${canceled}/cancel`)).statusCode).toBe(200)
    const confirmed = await createAt(3)
    await observe(confirmed, {})
    const ids = async (query: string) => (await list(query)).data.map((payment) => payment.paymentId)
    expect(await ids('?status=canceled')).toEqual([canceled])
    expect(await ids('?status=confirmed,canceled')).toEqual([confirmed, canceled])
    expect(await ids('?status=pending')).toEqual([solana, tron])
    expect(await ids('?network=SOLANA')).toEqual([solana])
    expect(await ids('?currency=USDT&network=TRON')).toEqual([confirmed, canceled, tron])
    // from inclusive, to exclusive; offsets and dates alone are instants too
    expect(await ids('?createdFrom=2030-01-15T12:01:00.000Z&createdTo=2030-01-15T12:03:00Z')).toEqual([
      canceled,
      solana,
    ])
    expect(await ids('?createdFrom=2030-01-15T13:01:00%2B01:00')).toEqual([confirmed, canceled, solana])
    expect(await ids('?createdTo=2030-01-15')).toEqual([])
    expect(await ids('?createdFrom=2030-01-15&status=pending&limit=1')).toEqual([solana])
  })

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['limit=', 'limit'],
    ['status=paid', 'status'],
    ['status=pending,', 'status'],
    ['status=PENDING', 'status'],
    ['network=', 'network'],
    ['currency=', 'currency'],
    ['createdFrom=yesterday', 'createdFrom'],
    ['createdFrom=2030-01-15T12:00:00', 'createdFrom'],
    ['createdTo=2030-02-30', 'createdTo'],
    ['createdTo=2030-02-30T00:00:00Z', 'createdTo'],
    ['createdFrom=2030-01-15T24:00:00Z', 'createdFrom'],
    ['createdFrom=2030-01-15T12:60:00Z', 'createdFrom'],
    ['createdFrom=2030-01-15T12:00:00%2B24:00', 'createdFrom'],
    ['createdTo=9999-12-31T23:59:59.999-14:00', 'createdTo'],
    ['cursor=not-a-cursor', 'cursor'],
    ['cursor=', 'cursor'],
    ['page=2', 'page'],
    ['limit=5&limit=6', 'limit'],
  ])('refuses %s with 400 VALIDATION_ERROR naming %s', async (query, parameter) => {
    const response = await fixture.send('GET', `${PAYMENTS}?${query}`)
    expect(response.statusCode, response.body).toBe(400)
    expect(errorOf(response)).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining(parameter),
    })
  })

  it('says what is wrong with the parameter, as docs/api.md shows', async () => {
    const messageOf = async (query: string) =>
      errorOf(await fixture.send('GET', `${PAYMENTS}?${query}`)).message
    expect(await messageOf('page=2')).toBe("querystring: unknown field 'page'")
    expect(await messageOf('limit=0')).toBe('limit: must be an integer from 1 to 100')
    expect(await messageOf('status=paid')).toBe(
      "status: 'paid' is not one of pending, confirmed, underpaid, overpaid, expired, canceled, failed",
    )
    expect(await messageOf('cursor=abc')).toBe('cursor: not a nextCursor of this API')
    expect(await messageOf('createdFrom=2030-01-15T12:00')).toBe(
      'createdFrom: must be an ISO 8601 date or date-time with a time zone, e.g. 2026-11-01T00:00:00Z',
    )
  })

  it('refuses a cursor that was altered, cut, or made up by hand', async () => {
    for (let n = 0; n < 3; n++) await createAt(n)
    const cursor = (await list('?limit=1')).nextCursor ?? ''
    const forged = [
      cursor.slice(0, -2),
      `${cursor}A`,
      cursor.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')),
      Buffer.from('["2030-01-15T12:00:00.000Z","x"]').toString('base64url'),
      Buffer.from('{"createdAt":"2030-01-15T12:00:00.000Z"}').toString('base64url'),
    ]
    for (const tampered of forged) {
      const response = await fixture.send('GET', `${PAYMENTS}?cursor=${encodeURIComponent(tampered)}`)
      expect(response.statusCode, tampered).toBe(400)
      expect(errorOf(response)).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^cursor: /),
      })
    }
  })

  it('requires the signature over the query string as sent', async () => {
    const response = await fixture.send('GET', `${PAYMENTS}?limit=5`, { sign: { path: PAYMENTS } })
    expect(response.statusCode).toBe(401)
    expect(errorOf(response).code).toBe('INVALID_SIGNATURE')
  })
})

describe('GET /payments/{paymentId}/events', () => {
  it('answers the whole history from the event store, oldest first, in dotted types', async () => {
    const paymentId = await createAt(0, { ...base, description: 'Order #7' })
    fixture.clock.set(new Date(Date.parse(FIXTURE_START) + 6 * 60_000))
    await observe(paymentId, { confirmations: 1 })
    await observe(paymentId, { confirmations: 20 })
    await observe(paymentId, {
      txHash: 'tx-late',
      amountUnits: '1500000',
      blockTime: '2030-01-15T12:07:00.000Z',
    })
    const response = await fixture.send('GET', `${PAYMENTS}/${paymentId}/events`)
    expect(response.statusCode, response.body).toBe(200)
    const { data } = json<{
      data: Array<{ id: string; type: string; occurredAt: string; data: Record<string, unknown> }>
    }>(response)
    expect(data.map((event) => event.type)).toEqual([
      'payment.created',
      'transfer.detected',
      'transfer.confirmations_updated',
      'payment.confirmed',
      'late_funds.received',
    ])
    const stored = await fixture.eventStore.readStream(`payment-${paymentId}`)
    expect(data.map((event) => [event.id, event.occurredAt])).toEqual(
      stored.map((event) => [event.eventId, event.recordedAt]),
    )
    expect(data[0]).toMatchObject({ data: { paymentId, description: 'Order #7' } })
    expect(data[4]?.data).toMatchObject({
      txHash: 'tx-late',
      amountUnits: '1500000',
      statusAtArrival: 'confirmed',
    })
    // no key material: the receiving address's derivation path is all the wallet shows
    expect(response.body).not.toMatch(/mnemonic|seed|privateKey|xprv/i)

    // and the payment object shows what arrived
    const payment = json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`))
    expect(payment).toMatchObject({
      status: 'confirmed',
      description: 'Order #7',
      requiredConfirmations: 20,
      receivedAmount: '10.5',
      receivedFeeAmount: '0.105',
      receivedNetAmount: '10.395',
      lateFunds: [{ txHash: 'tx-late', amount: '1.5', receivedAt: '2030-01-15T12:07:00.000Z' }],
    })
  })

  it('shows an underpaid payment’s fee and net of what arrived once final at its deadline, fee plus net exactly receivedAmount', async () => {
    const paymentId = await createAt(0, { ...base, amount: '10.000001' })
    await observe(paymentId, { amountUnits: '3333333' })
    const before = json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`))
    // it can still be topped up: what arrived is not final yet
    expect(before).toMatchObject({ status: 'underpaid', receivedFeeAmount: null, receivedNetAmount: null })

    const pastDeadline = new Date(Date.parse(FIXTURE_START) + 31 * 60_000).toISOString()
    fixture.clock.set(pastDeadline)
    expect(await fixture.handler.expire(paymentId, pastDeadline)).toBe('expired')
    await project(paymentId)
    const payment = json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`))
    // 1 % of 3.333333 is 0.03333333, rounded half up to 0.033333
    expect(payment).toMatchObject({
      status: 'underpaid',
      receivedAmount: '3.333333',
      receivedFeeAmount: '0.033333',
      receivedNetAmount: '3.3',
    })
  })

  it('answers 404 PAYMENT_NOT_FOUND for an unknown id and for another merchant’s payment, 400 for a malformed id', async () => {
    const theirs = json<{ paymentId: string }>(await fixture.create(base, fixture.otherMerchant)).paymentId
    for (const id of [UNKNOWN_ID, theirs]) {
      const response = await fixture.send('GET', `${PAYMENTS}/${id}/events`)
      expect(response.statusCode).toBe(404)
      expect(errorOf(response).code).toBe('PAYMENT_NOT_FOUND')
    }
    const malformed = await fixture.send('GET', `${PAYMENTS}/not-a-uuid/events`)
    expect(malformed.statusCode).toBe(400)
    expect(errorOf(malformed)).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('paymentId'),
    })
  })

  it('leaves out all but the last confirmations update of each transfer when asked for confirmations=last', async () => {
    const paymentId = await createAt(0)
    for (const confirmations of [1, 4, 9, 13]) await observe(paymentId, { confirmations })
    type History = { data: Array<{ type: string; data: Record<string, unknown> }> }
    const all = json<History>(await fixture.send('GET', `${PAYMENTS}/${paymentId}/events`)).data
    expect(all.map((event) => event.type)).toEqual([
      'payment.created',
      'transfer.detected',
      'transfer.confirmations_updated',
      'transfer.confirmations_updated',
      'transfer.confirmations_updated',
    ])
    expect(
      json<History>(await fixture.send('GET', `${PAYMENTS}/${paymentId}/events?confirmations=all`)).data,
    ).toEqual(all)
    const last = json<History>(
      await fixture.send('GET', `${PAYMENTS}/${paymentId}/events?confirmations=last`),
    )
    expect(last.data.map((event) => event.type)).toEqual([
      'payment.created',
      'transfer.detected',
      'transfer.confirmations_updated',
    ])
    expect(last.data[2]).toEqual(all[4])
    expect(last.data[2]?.data).toMatchObject({ confirmations: 13 })
    for (const [query, message] of [
      ['confirmations=first', 'confirmations: must be all or last'],
      ['confirmations=last&confirmations=all', 'confirmations: must be all or last'],
      ['types=payment.created', 'types: unknown query parameter'],
    ]) {
      const refused = await fixture.send('GET', `${PAYMENTS}/${paymentId}/events?${query}`)
      expect(refused.statusCode, query).toBe(400)
      expect(errorOf(refused)).toEqual({ code: 'VALIDATION_ERROR', message })
    }
  })

  it('takes an id in upper case as the same payment', async () => {
    const paymentId = await createAt(0)
    const response = await fixture.send('GET', `${PAYMENTS}/${paymentId.toUpperCase()}/events`)
    expect(json<{ data: unknown[] }>(response).data).toHaveLength(1)
  })
})

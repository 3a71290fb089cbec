// Refunds and payouts read from their read model (docs/architecture.md, "The refunds and payouts read
// model"): the merchant's lists and GETs and the admin API's GET /outgoing, with the cursor rules of
// decisions section 14 and read-your-writes after a create, a cancel or a step, on the standalone
// shape's real SQLite adapters. Calls to payment-command are counted, never timed.

import { type FoldedPayment, foldPaymentEvent, type OutgoingKind } from '@chainpay/domain'
import type { OutgoingCommands, OutgoingReadModel } from '@chainpay/ports'
import { afterEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  json,
  type MerchantApiFixture,
  type MerchantApiFixtureOptions,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const API = '/api/merchant/v1'
const PAYEE = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'

type Json = Record<string, unknown>

let fixture: MerchantApiFixture
/** payment-command's outgoing methods called, by name */
let commandCalls: string[] = []

afterEach(async () => {
  await fixture.close()
})

async function open(options: MerchantApiFixtureOptions = {}) {
  commandCalls = []
  fixture = await openMerchantApiFixture({
    ...options,
    outgoing: async (outgoing) => counted(outgoing),
  })
}

function counted(outgoing: OutgoingCommands): OutgoingCommands {
  return Object.fromEntries(
    Object.entries(outgoing).map(([name, method]) => [
      name,
      (...args: unknown[]) => {
        commandCalls.push(name)
        return (method as (...a: unknown[]) => unknown)(...args)
      },
    ]),
  ) as unknown as OutgoingCommands
}

const post = (url: string, body: unknown) => fixture.send('POST', url, { body: JSON.stringify(body) })
const admin = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  fixture.adminApp.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
    ...(body === undefined ? {} : { payload: body as Json }),
  })

/** a USDT payment on TRON of a whole `amount`, paid exactly, final, and in the payments read model */
async function paidPayment(amount: string, credentials = fixture.merchant): Promise<string> {
  const paidUnits = (BigInt(amount) * 1_000_000n).toString()
  const created = json(await fixture.create({ amount, currency: 'USDT', network: 'TRON' }, credentials))
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
  const owner = credentials.merchant.merchantId
  const history = await fixture.handler.getPaymentHistory({ merchantId: owner, paymentId })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) await fixture.readModel.save(folded)
  return paymentId
}

/** a payout of `amount` USDT, one second after the one before */
async function payout(key: string, amount = '1', credentials = fixture.merchant): Promise<Json> {
  fixture.clock.advance(1_000)
  const response = await fixture.send('POST', `${API}/payouts`, {
    body: JSON.stringify({ network: 'TRON', currency: 'USDT', amount, address: PAYEE, idempotencyKey: key }),
    credentials,
  })
  expect(response.statusCode, response.body).toBe(201)
  return json(response)
}

async function listAll(path: string, limit: number, during?: (page: number) => Promise<void>) {
  const ids: string[] = []
  let cursor: string | null = null
  for (let page = 0; ; page++) {
    const separator = path.includes('?') ? '&' : '?'
    const url: string = `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`
    const body: { data: Json[]; nextCursor: string | null } = json(await fixture.send('GET', url))
    ids.push(...body.data.map((item) => (item.payoutId ?? item.refundId) as string))
    await during?.(page)
    if (body.nextCursor === null) return ids
    cursor = body.nextCursor
  }
}

describe("the merchant's refunds and payouts, read from the read model", () => {
  it('lists newest first page by page: one created while paging appears at most once, none is skipped', async () => {
    await open()
    await paidPayment('100')
    const created: string[] = []
    for (let i = 0; i < 7; i++) created.push((await payout(`po-${i}`)).payoutId as string)
    commandCalls = []
    const listed = await listAll(`${API}/payouts`, 3, async (page) => {
      if (page === 0) created.push((await payout('po-while-paging')).payoutId as string)
    })
    // the newest came after the first page began: not on it, and not twice
    expect(listed).toEqual(created.slice(0, 7).reverse())
    // nothing asked of payment-command: pages come from the read model
    expect(commandCalls).toEqual(['createPayout'])
    const bad = await fixture.send('GET', `${API}/payouts?cursor=bm90LWEtY3Vyc29y`)
    expect(bad.statusCode).toBe(400)
    expect(json<{ error: Json }>(bad).error).toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it("filters by status and by payment, and never shows another merchant's", async () => {
    await open()
    const first = await paidPayment('50')
    const second = await paidPayment('50')
    const refund = async (paymentId: string, key: string) => {
      fixture.clock.advance(1_000)
      const response = await post(`${API}/payments/${paymentId}/refunds`, {
        amount: '1',
        idempotencyKey: key,
      })
      expect(response.statusCode, response.body).toBe(201)
      return json(response).refundId as string
    }
    const a = await refund(first, 'r-a')
    const b = await refund(second, 'r-b')
    const c = await refund(first, 'r-c')
    expect((await post(`${API}/refunds/${a}/cancel`, {})).statusCode).toBe(200)
    expect(await listAll(`${API}/refunds?paymentId=${first}`, 1)).toEqual([c, a])
    expect(await listAll(`${API}/refunds?status=canceled`, 5)).toEqual([a])
    expect(await listAll(`${API}/refunds?status=awaiting_address`, 5)).toEqual([c, b])
    await paidPayment('50', fixture.otherMerchant)
    const other = await payout('theirs', '1', fixture.otherMerchant)
    expect(await listAll(`${API}/payouts`, 5)).toEqual([])
    expect((await fixture.send('GET', `${API}/payouts/${other.payoutId}`)).statusCode).toBe(404)
  })

  it('shows a create and a cancel as answered though the read model refused their write-through', async () => {
    const saves: string[] = []
    await open({
      outgoingReadModel: (sqlite): OutgoingReadModel => ({
        ...sqlite,
        save: async (document) => {
          saves.push(`${document.item.id}@${document.revision}`)
          throw new Error('SQLITE_BUSY: database is locked')
        },
      }),
    })
    await paidPayment('10')
    const created = await payout('refused', '2')
    const id = created.payoutId as string
    commandCalls = []
    expect(json(await fixture.send('GET', `${API}/payouts/${id}`))).toMatchObject({ status: 'ready' })
    expect((await post(`${API}/payouts/${id}/cancel`, {})).statusCode).toBe(200)
    expect(json(await fixture.send('GET', `${API}/payouts/${id}`))).toMatchObject({ status: 'canceled' })
    // three tries of each write-through, then the source of truth answers the GETs
    expect(saves).toEqual([...Array(3).fill(`${id}@0`), ...Array(3).fill(`${id}@1`)])
    expect(commandCalls).toEqual(['getOutgoing', 'cancelOutgoing', 'getOutgoing'])
  })

  it('reads a stored item without payment-command, and one behind a remembered revision from it', async () => {
    let refuse = false
    await open({
      outgoingReadModel: (sqlite): OutgoingReadModel => ({
        ...sqlite,
        save: async (document) => {
          if (refuse) throw new Error('SQLITE_BUSY: database is locked')
          return sqlite.save(document)
        },
      }),
    })
    await paidPayment('10')
    const id = (await payout('kept', '2')).payoutId as string
    commandCalls = []
    expect(json(await fixture.send('GET', `${API}/payouts/${id}`))).toMatchObject({ status: 'ready' })
    expect(commandCalls).toEqual([])
    refuse = true
    expect((await post(`${API}/payouts/${id}/cancel`, {})).statusCode).toBe(200)
    // the read model still holds revision 0; this gateway knows of revision 1
    expect((await fixture.outgoingReadModel.get('payout', id))?.item.status).toBe('ready')
    const listed = json<{ data: Json[] }>(await fixture.send('GET', `${API}/payouts`)).data
    expect(listed.map((item) => item.status)).toEqual(['canceled'])
    expect(json<{ data: Json[] }>(await fixture.send('GET', `${API}/payouts?status=ready`)).data).toEqual([])
  })
})

describe("the admin API's GET /outgoing, read from the read model", () => {
  it("lists every merchant's ready refunds and payouts oldest first, by wallet, page by page; a step shows at once", async () => {
    await open()
    const mine = await paidPayment('100')
    await paidPayment('100', fixture.otherMerchant)
    const ids: Array<{ kind: OutgoingKind; id: string }> = []
    ids.push({ kind: 'payout', id: (await payout('a')).payoutId as string })
    ids.push({ kind: 'payout', id: (await payout('b', '1', fixture.otherMerchant)).payoutId as string })
    fixture.clock.advance(1_000)
    const refund = await post(`${API}/payments/${mine}/refunds`, {
      amount: '1',
      address: PAYEE,
      idempotencyKey: 'r',
    })
    ids.push({ kind: 'refund', id: json(refund).refundId as string })
    ids.push({ kind: 'payout', id: (await payout('c')).payoutId as string })
    // a payout of another network, and one canceled: neither is to be sent on TRON
    expect((await post(`${API}/payouts/${ids[3]?.id}/cancel`, {})).statusCode).toBe(200)
    commandCalls = []
    const seen: string[] = []
    let cursor: string | null = null
    do {
      const response = await admin(
        'GET',
        `/outgoing?network=TRON&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
      )
      expect(response.statusCode, response.body).toBe(200)
      const body = json<{ data: Json[]; nextCursor: string | null }>(response)
      seen.push(...body.data.map((row) => row.id as string))
      cursor = body.nextCursor
    } while (cursor !== null)
    expect(seen).toEqual(ids.slice(0, 3).map((entry) => entry.id))
    expect(commandCalls).toEqual([])
    const operators = json<{ data: Json[] }>(await admin('GET', '/outgoing?network=TRON&walletId=operator'))
    expect(operators.data).toHaveLength(3)
    // a step recorded through the admin API is in the next list, without the projection
    const [first] = ids
    const planned = await admin('POST', `/outgoing/${first?.kind}/${first?.id}/plan`, { planId: 'plan-1' })
    expect(planned.statusCode, planned.body).toBe(200)
    const ready = json<{ data: Json[] }>(await admin('GET', '/outgoing?network=TRON'))
    expect(ready.data.map((row) => row.id)).toEqual(ids.slice(1, 3).map((entry) => entry.id))
    const sending = json<{ data: Json[] }>(await admin('GET', '/outgoing?network=TRON&status=sending'))
    expect(sending.data.map((row) => row.id)).toEqual([first?.id])
    expect((await admin('GET', '/outgoing?network=TRON&cursor=bm90')).statusCode).toBe(400)
  })
})

// Refunds, payouts and balances through the merchant API and the admin API (docs/api.md, "Refunds
// and payouts", "Balances"; docs/treasury.md), on the standalone shape's real SQLite adapters.

import { randomUUID } from 'node:crypto'
import { type FoldedPayment, foldPaymentEvent, paymentIdForIdempotencyKey } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  FIXTURE_PUBLIC_URL,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const API = '/api/merchant/v1'
const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
const PAYEE = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'

let fixture: MerchantApiFixture

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})

afterEach(async () => {
  await fixture.close()
})

type Json = Record<string, unknown>

const merchantId = () => fixture.merchant.merchant.merchantId

/** what the projection does: folds the payment's events into the read model */
async function project(paymentId: string): Promise<void> {
  const history = await fixture.handler.getPaymentHistory({ merchantId: merchantId(), paymentId })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) await fixture.readModel.save(folded)
}

/** a USDT payment on TRON of `amount`, paid `paidUnits` and final */
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
  await project(paymentId)
  return paymentId
}

const post = (url: string, body: unknown) => fixture.send('POST', url, { body: JSON.stringify(body) })

const admin = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  fixture.adminApp.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
    ...(body === undefined ? {} : { payload: body as Json }),
  })

const balances = async () => json<{ data: Json[] }>(await fixture.send('GET', `${API}/balances`)).data

describe('refunds', () => {
  it('refunds an overpayment to the address the merchant gives, and the balance and history show it', async () => {
    // 10 USDT asked, 12.5 paid: 1 % fee of 12.5 leaves 12.375 net
    const paymentId = await paidPayment('10', '12500000')
    const response = await post(`${API}/payments/${paymentId}/refunds`, {
      amount: '2.5',
      address: CUSTOMER,
      reason: 'overpaid',
      idempotencyKey: 'refund-overpaid',
    })
    expect(response.statusCode, response.body).toBe(201)
    const refund = json(response)
    expect(refund).toMatchObject({
      paymentId,
      amount: '2.5',
      currency: 'USDT',
      network: 'TRON',
      address: CUSTOMER,
      claimUrl: null,
      reason: 'overpaid',
      status: 'ready',
      txHash: null,
    })
    expect(response.headers.location).toBe(`${API}/refunds/${refund.refundId}`)

    const replay = await post(`${API}/payments/${paymentId}/refunds`, {
      amount: '2.5',
      address: CUSTOMER,
      reason: 'overpaid',
      idempotencyKey: 'refund-overpaid',
    })
    expect(replay.statusCode).toBe(200)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(json(replay)).toEqual(refund)
    const reused = await post(`${API}/payments/${paymentId}/refunds`, {
      amount: '2',
      idempotencyKey: 'refund-overpaid',
    })
    expect(json(reused)).toMatchObject({ error: { code: 'IDEMPOTENCY_KEY_REUSED' } })

    expect(json(await fixture.send('GET', `${API}/refunds/${refund.refundId}`))).toEqual(refund)
    expect(await balances()).toEqual([
      {
        network: 'TRON',
        currency: 'USDT',
        receivedNetAmount: '12.375',
        refundedAmount: '2.5',
        paidOutAmount: '0',
        availableAmount: '9.875',
      },
    ])
    const list = json<{ data: Json[] }>(await fixture.send('GET', `${API}/refunds?paymentId=${paymentId}`))
    expect(list.data).toEqual([refund])
    const history = json<{ data: Json[] }>(await fixture.send('GET', `${API}/payments/${paymentId}/events`))
    expect(history.data.map((event) => event.type)).toEqual([
      'payment.created',
      'transfer.detected',
      'payment.overpaid',
      'refund.created',
    ])
    expect(history.data.at(-1)?.data).toMatchObject({
      refundId: refund.refundId,
      amountUnits: '2500000',
      address: CUSTOMER,
    })
  })

  it('gives a claim page when the merchant has no address, and takes the customer’s address once', async () => {
    const paymentId = await paidPayment('10', '10000000')
    const refund = json(
      await post(`${API}/payments/${paymentId}/refunds`, { amount: '1', idempotencyKey: 'claim-1' }),
    )
    expect(refund).toMatchObject({ status: 'awaiting_address', address: null })
    expect(refund.claimUrl).toMatch(new RegExp(`^${FIXTURE_PUBLIC_URL}/refund/[A-Za-z0-9_-]{44}$`))
    const refundId = refund.refundId as string
    await expect(
      fixture.outgoing.giveRefundAddress({ refundId, address: 'T-not-an-address' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    })
    const given = await fixture.outgoing.giveRefundAddress({ refundId, address: CUSTOMER })
    expect(given.item).toMatchObject({ status: 'ready', address: CUSTOMER })
    await expect(fixture.outgoing.giveRefundAddress({ refundId, address: PAYEE })).rejects.toMatchObject({
      code: 'REFUND_NOT_ALLOWED',
    })
  })

  it('cancels a ready refund, which gives its amount back to the rest and the balance', async () => {
    const paymentId = await paidPayment('10', '10000000')
    const refund = json(
      await post(`${API}/payments/${paymentId}/refunds`, {
        amount: '9.9',
        address: CUSTOMER,
        idempotencyKey: 'c-1',
      }),
    )
    const refused = await post(`${API}/payments/${paymentId}/refunds`, {
      amount: '0.2',
      address: CUSTOMER,
      idempotencyKey: 'c-2',
    })
    expect(refused.statusCode).toBe(400)
    expect(json(refused)).toMatchObject({
      error: {
        code: 'VALIDATION_ERROR',
        message: "amount: exceeds the payment's refundable rest of 0.1 USDT",
      },
    })
    const canceled = await post(`${API}/refunds/${refund.refundId}/cancel`, {})
    expect(canceled.statusCode, canceled.body).toBe(200)
    expect(json(canceled)).toMatchObject({ status: 'canceled' })
    expect((await post(`${API}/refunds/${refund.refundId}/cancel`, {})).statusCode).toBe(200)
    expect(json(await fixture.send('GET', `${API}/refunds?status=canceled`)).data).toHaveLength(1)
    expect((await balances())[0]).toMatchObject({ refundedAmount: '0', availableAmount: '9.9' })
  })

  it('refuses a refund of a payment without final funds, and another merchant’s payment', async () => {
    const created = json(await fixture.create({ amount: '10', currency: 'USDT', network: 'TRON' }))
    const pending = await post(`${API}/payments/${created.paymentId}/refunds`, {
      amount: '1',
      address: CUSTOMER,
      idempotencyKey: 'p-1',
    })
    expect(pending.statusCode).toBe(409)
    expect(json(pending)).toMatchObject({ error: { code: 'REFUND_NOT_ALLOWED' } })
    const other = json(
      await fixture.create({ amount: '10', currency: 'USDT', network: 'TRON' }, fixture.otherMerchant),
    )
    const foreign = await post(`${API}/payments/${other.paymentId}/refunds`, {
      amount: '1',
      address: CUSTOMER,
      idempotencyKey: 'p-2',
    })
    expect(foreign.statusCode).toBe(404)
  })

  it('of two concurrent refunds that together exceed the rest, takes exactly one', async () => {
    const paymentId = await paidPayment('10', '10000000')
    const answers = await Promise.all(
      ['a', 'b'].map((key) =>
        post(`${API}/payments/${paymentId}/refunds`, { amount: '6', address: CUSTOMER, idempotencyKey: key }),
      ),
    )
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 400])
  })

  it('a refund that fails on chain is refundable again, through the admin API’s steps', async () => {
    const paymentId = await paidPayment('10', '10000000')
    const refund = json(
      await post(`${API}/payments/${paymentId}/refunds`, {
        amount: '9',
        address: CUSTOMER,
        idempotencyKey: 'f-1',
      }),
    )
    const path = `/outgoing/refund/${refund.refundId}`
    const ready = json<{ data: Json[] }>(await admin('GET', '/outgoing?network=TRON&status=ready'))
    expect(ready.data).toEqual([
      expect.objectContaining({
        kind: 'refund',
        id: refund.refundId,
        walletId: null,
        amount: '9',
        address: CUSTOMER,
      }),
    ])
    expect((await admin('POST', `${path}/plan`, { planId: 'plan-1' })).statusCode).toBe(200)
    expect((await admin('POST', `${path}/plan`, { planId: 'plan-1' })).statusCode).toBe(200)
    const other = await admin('POST', `${path}/plan`, { planId: 'plan-2' })
    expect(other.statusCode).toBe(409)
    const cancel = await post(`${API}/refunds/${refund.refundId}/cancel`, {})
    expect(json(cancel)).toMatchObject({ error: { code: 'REFUND_NOT_ALLOWED' } })
    const released = await admin('POST', `${path}/release`, { planId: 'plan-1' })
    expect(json(released)).toMatchObject({ status: 'ready', planId: null })
    const sentWhileReady = await admin('POST', `${path}/sent`, { planId: 'plan-1', txHash: 'tx-out-1' })
    expect(sentWhileReady.statusCode).toBe(409)
    expect((await admin('POST', `${path}/plan`, { planId: 'plan-1' })).statusCode).toBe(200)
    for (let time = 0; time < 2; time++) {
      const sent = await admin('POST', `${path}/sent`, { planId: 'plan-1', txHash: 'tx-out-1' })
      expect(sent.statusCode).toBe(200)
    }
    expect((await admin('POST', `${path}/release`, { planId: 'plan-1' })).statusCode).toBe(409)
    const failed = await admin('POST', `${path}/failed`, { txHash: 'tx-out-1', reason: 'REVERT' })
    expect(json(failed)).toMatchObject({ status: 'failed', txHash: 'tx-out-1' })
    expect(json(await admin('POST', `${path}/failed`, { txHash: 'tx-out-1', reason: 'REVERT' }))).toEqual(
      json(failed),
    )
    const open = await admin('GET', '/outgoing?network=TRON&status=ready,sending,sent')
    expect(json<{ data: Json[] }>(open).data).toEqual([])
    expect(json(await fixture.send('GET', `${API}/refunds/${refund.refundId}`))).toMatchObject({
      status: 'failed',
      failureReason: 'REVERT',
    })
    const again = await post(`${API}/payments/${paymentId}/refunds`, {
      amount: '9',
      address: CUSTOMER,
      idempotencyKey: 'f-2',
    })
    expect(again.statusCode, again.body).toBe(201)
  })
})

describe('payouts', () => {
  it('pays out of the balance, completes through the admin API, and refuses what exceeds it', async () => {
    await paidPayment('100', '100000000')
    const payout = await post(`${API}/payouts`, {
      network: 'TRON',
      currency: 'USDT',
      amount: '50',
      address: PAYEE,
      idempotencyKey: 'payout-1',
      metadata: { invoice: 'inv-7' },
    })
    expect(payout.statusCode, payout.body).toBe(201)
    const created = json(payout)
    expect(created).toMatchObject({
      status: 'ready',
      amount: '50',
      address: PAYEE,
      metadata: { invoice: 'inv-7' },
    })
    const tooMuch = await post(`${API}/payouts`, {
      network: 'TRON',
      currency: 'USDT',
      amount: '49.01',
      address: PAYEE,
      idempotencyKey: 'payout-2',
    })
    expect(tooMuch.statusCode).toBe(409)
    expect(json(tooMuch)).toMatchObject({
      error: {
        code: 'INSUFFICIENT_BALANCE',
        message: 'amount: exceeds the available balance of 49 USDT on TRON',
      },
    })
    const path = `/outgoing/payout/${created.payoutId}`
    await admin('POST', `${path}/plan`, { planId: 'plan-9' })
    await admin('POST', `${path}/sent`, { planId: 'plan-9', txHash: 'tx-payout' })
    const completed = await admin('POST', `${path}/completed`, {
      txHash: 'tx-payout',
      networkFee: { currency: 'TRX', amount: '13.3' },
    })
    expect(completed.statusCode, completed.body).toBe(200)
    expect(json(await fixture.send('GET', `${API}/payouts/${created.payoutId}`))).toMatchObject({
      status: 'completed',
      txHash: 'tx-payout',
      networkFee: { currency: 'TRX', amount: '13.3' },
    })
    const open = json<{ data: Json[] }>(
      await admin('GET', '/outgoing?network=TRON&status=ready,sending,sent'),
    )
    expect(open.data).toEqual([])
    const done = json<{ data: Json[] }>(await admin('GET', '/outgoing?network=TRON&status=completed'))
    expect(done.data).toEqual([
      expect.objectContaining({ id: created.payoutId, status: 'completed', txHash: 'tx-payout' }),
    ])
    const operatorView = json<{ data: Json[] }>(await admin('GET', `/merchants/${merchantId()}/balances`))
    expect(operatorView.data).toEqual(await balances())
    expect(operatorView.data[0]).toMatchObject({ paidOutAmount: '50', availableAmount: '49' })
  })

  it('of 20 concurrent payouts that together exceed the balance, takes exactly the ones that fit', async () => {
    await paidPayment('100', '100000000') // 99 USDT net
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post(`${API}/payouts`, {
          network: 'TRON',
          currency: 'USDT',
          amount: '10',
          address: PAYEE,
          idempotencyKey: `many-${index}`,
        }),
      ),
    )
    const statuses = answers.map((answer) => answer.statusCode)
    expect(statuses.filter((status) => status === 201)).toHaveLength(9)
    expect(statuses.filter((status) => status === 409)).toHaveLength(11)
    expect((await balances())[0]).toMatchObject({ paidOutAmount: '90', availableAmount: '9' })
    const page1 = json<{ data: Json[]; nextCursor: string }>(
      await fixture.send('GET', `${API}/payouts?limit=5`),
    )
    const page2 = json<{ data: Json[]; nextCursor: string | null }>(
      await fixture.send('GET', `${API}/payouts?limit=5&cursor=${page1.nextCursor}`),
    )
    expect(page1.data).toHaveLength(5)
    expect(page2.data).toHaveLength(4)
    expect(page2.nextCursor).toBeNull()
  })

  it('mends a reservation whose payout stream a crash left unwritten: the same create sent again writes it, and until then it holds its amount', async () => {
    await paidPayment('100', '100000000')
    const body = {
      network: 'TRON',
      currency: 'USDT',
      amount: '10',
      address: PAYEE,
      idempotencyKey: 'crash-1',
    }
    const created = json(await post(`${API}/payouts`, body))
    // a second reservation, as a crash right after it would leave it: its payout's stream never written
    const ledgerId = `ledger-${merchantId()}`
    const [reservation] = (await fixture.eventStore.readStream(ledgerId)).slice(-1)
    if (reservation === undefined) throw new Error('no reservation')
    // the id a create with idempotency key crash-2 gets (payment-command derives it from the key)
    const lostId = paymentIdForIdempotencyKey(merchantId(), 'payout\ncrash-2')
    const data = reservation.data as Record<string, unknown>
    await fixture.eventStore.appendToStream(
      ledgerId,
      [
        {
          eventId: randomUUID(),
          type: 'FundsReserved',
          data: {
            ...data,
            id: lostId,
            created: { ...(data.created as object), payoutId: lostId, idempotencyKey: 'crash-2' },
          },
          metadata: reservation.metadata,
        },
      ],
      reservation.revision,
    )
    expect((await fixture.send('GET', `${API}/payouts/${lostId}`)).statusCode).toBe(404)
    const before = json<{ data: Json[] }>(await fixture.send('GET', `${API}/payouts`))
    expect(before.data.map((payout) => payout.payoutId)).toEqual([created.payoutId])
    // the reservation holds its amount: the balance may show less than the truth, never more
    expect((await balances())[0]).toMatchObject({ paidOutAmount: '20' })
    // the merchant had no answer, so it sends the create again (docs/api.md, "Refunds and payouts")
    const retried = await post(`${API}/payouts`, { ...body, idempotencyKey: 'crash-2' })
    expect(json(retried)).toMatchObject({ payoutId: lostId, status: 'ready' })
    const list = json<{ data: Json[] }>(await fixture.send('GET', `${API}/payouts`))
    // one creation time on the fixture's clock: the list orders them by id then
    expect(list.data.map((payout) => payout.payoutId)).toEqual([lostId, created.payoutId].sort().reverse())
    expect(json(await fixture.send('GET', `${API}/payouts/${lostId}`))).toMatchObject({
      status: 'ready',
      amount: '10',
    })
    expect((await balances())[0]).toMatchObject({ paidOutAmount: '20' })
  })
})

// The operator's balances and sweeps on standalone (docs/api.md, "Balances and sweeps"): a paid
// payment's address shows what it received, a recorded sweep what left it, once per transaction.

import { systemClock } from '@chainpay/platform'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
})
afterAll(() => standalone.stop())

const TREASURY = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'

async function admin(method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await fetch(`${standalone.adminUrl}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${standalone.adminToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

interface Row {
  paymentId: string
  currency: string
  received: string
  swept: string
  onChain: string | null
  onChainError: string | null
}

/** the payment's rows, once the projection shows `predicate` */
async function rowsOf(paymentId: string, predicate: (rows: Row[]) => boolean = () => true): Promise<Row[]> {
  const merchantId = standalone.demoMerchant().merchantId
  for (let attempt = 0; attempt < 200; attempt++) {
    const rows: Row[] = []
    let cursor: string | null = null
    do {
      const query = new URLSearchParams({ merchantId, limit: '200', ...(cursor ? { cursor } : {}) })
      const { body } = await admin('GET', `/balances?${query}`)
      rows.push(...(body.data as Row[]))
      cursor = body.nextCursor as string | null
    } while (cursor !== null)
    const mine = rows.filter((row) => row.paymentId === paymentId)
    if (mine.length > 0 && predicate(mine)) return mine
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no balance rows of ${paymentId} as expected`)
}

async function paidPayment(): Promise<PaymentBody> {
  const client = merchantClientFor(standalone)
  const created = await client.createPayment({ amount: '10.5', currency: 'USDT', network: 'TRON' } as never)
  const payment = created.body as PaymentBody
  await pay(standalone, 'TRON', { to: payment.generatedAddress, amount: '10.5', currency: 'USDT' })
  return waitForPayment(client, payment.paymentId, (seen) => seen.status === 'confirmed')
}

describe('balances and sweeps on standalone', () => {
  it('shows what a paid address received; a recorded sweep shows as swept, once per transaction', async () => {
    const payment = await paidPayment()
    const [row] = await rowsOf(payment.paymentId)
    expect(row).toMatchObject({
      merchantId: standalone.demoMerchant().merchantId,
      walletId: 'operator',
      network: 'TRON',
      address: payment.generatedAddress,
      tokenAccount: null,
      derivationPath: expect.stringMatching(/^m\/44'\/195'\//),
      currency: 'USDT',
      tokenStandard: 'TRC20',
      contract: expect.stringMatching(/^T/),
      received: '10.5',
      swept: '0',
      onChain: null,
      onChainError: null,
    })

    const sweep = {
      paymentId: payment.paymentId,
      txHash: 'ab'.repeat(32),
      currency: 'USDT',
      amount: '10.5',
      fee: '13.4',
      feeCurrency: 'TRX',
      treasury: TREASURY,
    }
    const recorded = await admin('POST', '/sweeps', sweep)
    expect(recorded.status).toBe(201)
    expect(recorded.body.sweep).toEqual({
      paymentId: payment.paymentId,
      depositId: null,
      merchantId: standalone.demoMerchant().merchantId,
      network: 'TRON',
      address: payment.generatedAddress,
      txHash: sweep.txHash,
      currency: 'USDT',
      amount: '10.5',
      fee: '13.4',
      feeCurrency: 'TRX',
      treasury: TREASURY,
      sweptAt: expect.any(String),
    })
    const again = await admin('POST', '/sweeps', sweep)
    expect(again).toEqual({ status: 200, body: recorded.body })
    expect(await rowsOf(payment.paymentId, ([seen]) => seen?.swept === '10.5')).toHaveLength(1)

    const history = await merchantClientFor(standalone).request(
      'GET',
      `/payments/${payment.paymentId}/events`,
    )
    const types = (history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)
    expect(types.filter((type) => type === 'funds.swept')).toHaveLength(1)
  })

  it('refuses more than what remains unswept, bad input and unknown payments with their codes', async () => {
    const payment = await paidPayment()
    const sweep = {
      paymentId: payment.paymentId,
      txHash: 'cd'.repeat(32),
      currency: 'USDT',
      amount: '10.500001',
      fee: '0',
      feeCurrency: 'TRX',
      treasury: TREASURY,
    }
    const codeOf = async (body: unknown) => {
      const answer = await admin('POST', '/sweeps', body)
      return [answer.status, (answer.body.error as { code: string }).code]
    }
    expect(await codeOf(sweep)).toEqual([409, 'SWEEP_EXCEEDS_UNSWEPT'])
    expect(await codeOf({ ...sweep, amount: '1e3' })).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...sweep, amount: 10 })).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...sweep, memo: 'x' })).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...sweep, feeCurrency: 'USDT' })).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...sweep, paymentId: crypto.randomUUID() })).toEqual([404, 'PAYMENT_NOT_FOUND'])
    // a customer's deposit instead of a payment: exactly one of them
    const { paymentId: _paymentId, ...bare } = sweep
    expect(await codeOf(bare)).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...sweep, depositId: 'ab'.repeat(16) })).toEqual([400, 'VALIDATION_ERROR'])
    expect(await codeOf({ ...bare, depositId: 'ab'.repeat(16) })).toEqual([404, 'NOT_FOUND'])
    expect((await admin('GET', '/balances?limit=0')).status).toBe(400)
    expect((await admin('GET', '/balances?cursor=not-ours')).status).toBe(400)
    // only the exact encoding of a payment id, as nextCursor carries it: not any base64url text
    const encoded = (text: string) => Buffer.from(text, 'utf8').toString('base64url')
    for (const cursor of [
      encoded('hello'),
      encoded(payment.paymentId.toUpperCase()),
      encoded(`${payment.paymentId}\u0000`),
      `${encoded(payment.paymentId)}A`,
    ]) {
      const refused = await admin('GET', `/balances?cursor=${cursor}`)
      expect(refused.status, cursor).toBe(400)
      expect(refused.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'cursor: not a nextCursor of this API',
      })
    }
    expect((await admin('GET', `/balances?cursor=${encoded(payment.paymentId)}`)).status).toBe(200)
    expect((await admin('GET', '/balances?colour=blue')).status).toBe(400)
  })

  it('totals per merchant, network and currency', async () => {
    const payment = await paidPayment()
    await rowsOf(payment.paymentId)
    const { status, body } = await admin(
      'GET',
      `/balances/totals?merchantId=${standalone.demoMerchant().merchantId}&network=TRON`,
    )
    expect(status).toBe(200)
    // the three payments of 10.5 USDT this file paid, the first swept whole
    expect(body.data).toEqual([
      {
        merchantId: standalone.demoMerchant().merchantId,
        network: 'TRON',
        currency: 'USDT',
        received: '31.5',
        swept: '10.5',
        unswept: '21',
        addresses: 3,
      },
    ])
  })
})

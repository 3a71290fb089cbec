// Deposits in a real standalone (decisions.md section 22; docs/api.md, "Deposits"): a transfer to a
// customer's deposit address while no payment of it is open becomes a deposit, counted to confirmed
// through the chain simulator; one the chain drops before finality is in doubt, then dropped. Read
// from the deposits' streams and the deposits' read model in standalone's own database and GET /deposits through the SDK.

import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { depositIdOf, formatUnits, toDepositStreamId } from '@chainpay/domain'
import { Chainpay, isDepositWebhookEvent, verifyWebhook } from '@chainpay/sdk'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let chainpay: Chainpay
let db: DatabaseSync
let receiver: WebhookReceiver

beforeAll(async () => {
  standalone = await startInProcessStandalone({
    clock: { now: () => new Date() },
    // Solana by address checks deposit addresses every second here, not every ten minutes
    env: { SOLANA_DEPOSIT_CHECK_INTERVAL_MS: '1000' },
  })
  const merchant = standalone.demoMerchant()
  chainpay = new Chainpay({
    baseUrl: standalone.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
  receiver = await startWebhookReceiver()
  db = new DatabaseSync(join(standalone.dataDir, 'chainpay.sqlite'), { readOnly: true })
})

afterAll(async () => {
  db?.close()
  await standalone?.stop()
  await receiver?.close()
})

/** the types of the deposit's events and the first one's data */
function depositOf(
  txHash: string,
  network = 'TRON',
): { types: string[]; detected: Record<string, unknown> | undefined } {
  const rows = db
    .prepare('SELECT type, data FROM es_events WHERE stream_id = ? ORDER BY revision')
    .all(toDepositStreamId(depositIdOf(network, txHash, 0))) as Array<{ type: string; data: string }>
  const first = rows[0]
  return {
    types: rows.map((row) => row.type),
    detected: first === undefined ? undefined : (JSON.parse(first.data) as Record<string, unknown>),
  }
}

/** the chain indexer learned of the address from the deposit events topic and watches it */
async function watched(address: string, network = 'TRON'): Promise<void> {
  const query = db.prepare('SELECT 1 AS n FROM deposit_addresses_watched WHERE network = ? AND address = ?')
  const found = await until(
    () => query.get(network, address) !== undefined,
    (yes) => yes,
  )
  expect(found).toBe(true)
}

/** the deposit's status in the read model the projection fills */
function projectedStatus(txHash: string): string | undefined {
  const row = db
    .prepare('SELECT status FROM deposits_read WHERE deposit_id = ?')
    .get(depositIdOf('TRON', txHash, 0)) as { status: string } | undefined
  return row?.status
}

async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('deposits at customers’ deposit addresses in standalone', () => {
  it('an arrival with no open payment is a deposit, detected with fee and net, then confirmed', {
    timeout: 60_000,
  }, async () => {
    const user = `depositor-${Date.now()}`
    const endpoint = await chainpay.webhookEndpoints.create({ url: receiver.url })
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    await watched(address)
    const txHash = await pay(standalone, 'TRON', { to: address, amount: '12.5', currency: 'USDT' })

    const deposit = await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositConfirmed'),
    )
    expect(deposit.types[0]).toBe('DepositDetected')
    expect(deposit.types.at(-1)).toBe('DepositConfirmed')
    expect(deposit.detected).toMatchObject({
      merchantUserId: user,
      address,
      currency: 'USDT',
      amountUnits: '12500000',
    })
    const units = (field: string) => BigInt(String(deposit.detected?.[field]))
    expect(units('feeUnits') + units('netUnits')).toBe(units('amountUnits'))
    expect(
      await until(
        () => projectedStatus(txHash),
        (status) => status === 'confirmed',
      ),
    ).toBe('confirmed')

    // GET /deposits through the SDK: the customer's, confirmed, with the detected fee and net
    const listed = await chainpay.deposits.list({ merchantUserId: user, status: 'confirmed' })
    expect(listed).toEqual({
      data: [
        expect.objectContaining({
          depositId: depositIdOf('TRON', txHash, 0),
          merchantUserId: user,
          network: 'TRON',
          currency: 'USDT',
          address,
          txHash,
          amount: '12.5',
          status: 'confirmed',
          confirmations: 20,
          dropReason: null,
        }),
      ],
      nextCursor: null,
    })
    const [shown] = listed.data
    expect(shown?.fee).toBe(formatUnits(units('feeUnits'), 6))
    expect(shown?.net).toBe(formatUnits(units('netUnits'), 6))
    expect((await chainpay.deposits.list({ merchantUserId: user, status: 'dropped' })).data).toEqual([])
    // the confirmed deposit's net is the merchant's: GET /balances counts it (the only money here)
    expect(await chainpay.balances.list()).toMatchObject([
      { network: 'TRON', currency: 'USDT', receivedNetAmount: shown?.net, availableAmount: shown?.net },
    ])

    // the merchant hears of it twice, detected then confirmed, signed with the endpoint's secret
    const depositId = depositIdOf('TRON', txHash, 0)
    const ofDeposit = (all: WebhookReceiver['received']) =>
      all.filter((webhook) => (webhook.body as { deposit?: { id: string } }).deposit?.id === depositId)
    const received = ofDeposit(await receiver.waitFor((all) => ofDeposit(all).length >= 2, 20_000))
    const verified = await Promise.all(
      received.map((webhook) =>
        verifyWebhook({ rawBody: webhook.rawBody, headers: webhook.headers, secret: endpoint.secret }),
      ),
    )
    const common = {
      id: depositId,
      merchant_user_id: user,
      network: 'TRON',
      currency: 'USDT',
      address,
      tx_hash: txHash,
      amount: '12.5',
      fee_amount: shown?.fee,
      net_amount: shown?.net,
    }
    expect(verified.every((event) => isDepositWebhookEvent(event))).toBe(true)
    expect(verified).toMatchObject([
      { event: 'deposit.detected', deposit: { ...common, status: 'DETECTED', confirmed_at: null } },
      { event: 'deposit.confirmed', deposit: { ...common, status: 'CONFIRMED', confirmations: 20 } },
    ])
    const refused = await chainpay.deposits.list({ status: 'lost' as never }).catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' })
  })

  it('on Solana by address (SOLANA_WATCH_MODE=address), SOL sent to the deposit address is a deposit, detected then confirmed', {
    timeout: 60_000,
  }, async () => {
    const user = `solana-${Date.now()}`
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'SOLANA' })
    await watched(address, 'SOLANA')
    const txHash = await pay(standalone, 'SOLANA', { to: address, amount: '0.75', currency: 'SOL' })
    const deposit = await until(
      () => depositOf(txHash, 'SOLANA'),
      (read) => read.types.includes('DepositConfirmed'),
    )
    expect(deposit.types[0]).toBe('DepositDetected')
    expect(deposit.types.at(-1)).toBe('DepositConfirmed')
    expect(deposit.detected).toMatchObject({
      merchantUserId: user,
      address,
      currency: 'SOL',
      amountUnits: '750000000',
    })
  })

  it('a deposit the chain drops before finality is in doubt, then dropped', { timeout: 60_000 }, async () => {
    const user = `forked-${Date.now()}`
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    await watched(address)
    const txHash = await pay(standalone, 'TRON', { to: address, amount: '4', currency: 'USDT' })
    await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositDetected'),
    )
    const dropped = await fetch(`${standalone.baseUrl}/dev/chains/TRON/transactions/${txHash}/drop`, {
      method: 'POST',
    })
    expect(dropped.status).toBe(200)

    const deposit = await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositDropped'),
    )
    expect(deposit.types).toContain('DepositInDoubt')
    expect(deposit.types.at(-1)).toBe('DepositDropped')
    expect(deposit.types).not.toContain('DepositConfirmed')
    expect(
      await until(
        () => projectedStatus(txHash),
        (status) => status === 'dropped',
      ),
    ).toBe('dropped')
    expect((await chainpay.deposits.list({ merchantUserId: user })).data).toMatchObject([
      { txHash, status: 'dropped', dropReason: 'EXPIRED', confirmedAt: null },
    ])
  })
})

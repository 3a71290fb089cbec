import type { TransferObservation } from '@chainpay/contracts'
import {
  applyNetworkSettings,
  type CreatePaymentRequest,
  defaultAssetRegistry,
  type FeePolicy,
  paymentIdForIdempotencyKey,
  resolveAsset,
  toPaymentStreamId,
} from '@chainpay/domain'
import { createManualClock } from '@chainpay/platform'
import { type EventStore, WrongExpectedRevisionError } from '@chainpay/ports'
import { afterEach, describe, expect, it } from 'vitest'
import { createPaymentCommandHandler } from './command-handler.js'
import { captureLogs } from './testing/log-capture.js'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const merchantId = 'merchant-1'
const feePolicy: FeePolicy = { feeBps: 100, fixedFees: {} }
const start = '2026-11-21T14:00:00.000Z'

function request(fields: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest {
  return { amount: '10.5', currency: 'USDT', network: 'TRON', idempotencyKey: 'order-1042', ...fields }
}

let side: SqliteCommandSide | undefined
afterEach(async () => {
  await side?.close()
  side = undefined
})

/** the command side, knowing merchant-1 (fee 1 %) */
async function open(options: Parameters<typeof openSqliteCommandSide>[0] = {}): Promise<SqliteCommandSide> {
  side = openSqliteCommandSide({ clock: createManualClock(start), ...options })
  await side.addMerchant(merchantId, feePolicy)
  return side
}

async function streamOf(eventStore: EventStore, paymentId: string) {
  return eventStore.readStream(toPaymentStreamId(paymentId))
}

describe('createPayment', () => {
  it('appends PaymentCreated with an address from the wallet at the next index of the chain family', async () => {
    const { handler, eventStore } = await open()
    await handler.createPayment({ merchantId, request: request({ idempotencyKey: 'first' }) })
    const second = await handler.createPayment({ merchantId, request: request() })
    const paymentId = paymentIdForIdempotencyKey(merchantId, 'order-1042')
    expect(second.payment.created.paymentId).toBe(paymentId)

    const [event, ...rest] = await streamOf(eventStore, paymentId)
    expect(rest).toEqual([])
    expect(event).toMatchObject({
      revision: 0,
      type: 'PaymentCreated',
      metadata: { schemaVersion: 4 },
      data: {
        paymentId,
        merchantId,
        idempotencyKey: 'order-1042',
        // index 1 of the abandon...about wallet (index 0 went to the first payment)
        address: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
        derivationPath: "m/44'/195'/0'/0/1",
        tokenAccount: null,
        walletId: 'operator',
        requiredConfirmations: 20,
        createdAt: start,
        expiresAt: '2026-11-21T14:30:00.000Z',
      },
    })
    expect(event?.eventId).toMatch(/^[0-9a-f-]{36}$/)
    expect(second).toEqual({
      outcome: 'created',
      revision: 0,
      payment: expect.objectContaining({ status: 'pending' }),
    })
  })

  it("charges the merchant's fee policy as the merchant store has it, whatever the caller sends", async () => {
    const { handler, addMerchant } = await open()
    await addMerchant('merchant-fees', { feeBps: 250, fixedFees: { 'TRON:USDT': '0.1' } })
    // a caller that still sends a fee policy (as the port once carried) is not listened to
    const input = { merchantId: 'merchant-fees', feePolicy: { feeBps: 0, fixedFees: {} }, request: request() }
    const created = await handler.createPayment(input)
    // 10.5 USDT: 2.5 % is 262500 units, plus the fixed 0.1 USDT (100000)
    expect(created.payment.created).toMatchObject({
      amountUnits: '10500000',
      feeUnits: '362500',
      // the policy is recorded with the payment, for the fee of what arrives (docs/api.md, "Fees")
      feeBps: 250,
      fixedFeeUnits: '100000',
    })
  })

  it('refuses a merchant the merchant store does not know: NOT_FOUND, nothing appended, no address spent', async () => {
    const logs = captureLogs()
    const { handler, eventStore, allocator } = await open({ logDestination: logs })
    const unknown = 'merchant-nobody-created'
    await expect(handler.createPayment({ merchantId: unknown, request: request() })).rejects.toMatchObject({
      name: 'DomainError',
      code: 'NOT_FOUND',
      message: `merchant ${unknown} not found`,
    })
    expect(await streamOf(eventStore, paymentIdForIdempotencyKey(unknown, 'order-1042'))).toEqual([])
    expect(allocator.allocations).toEqual([])
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        merchantId: unknown,
        msg: 'create refused: no such merchant in the merchant store',
      }),
    )
  })

  it('takes a test network payment’s index from its chain’s one sequence, so it never gets a mainnet address', async () => {
    const { handler, allocator } = await open()
    const create = async (network: string, currency: string, idempotencyKey: string) =>
      (
        await handler.createPayment({
          merchantId,
          request: request({ network, currency, idempotencyKey }),
        })
      ).payment.created
    const tron = await create('TRON', 'TRX', 'tron')
    const nile = await create('TRON_NILE', 'TRX', 'nile')
    const solana = await create('SOLANA', 'SOL', 'solana')
    const devnet = await create('SOLANA_DEVNET', 'SOL', 'devnet')
    expect(allocator.allocations).toEqual([
      { family: 'TRON', keyId: null, index: 0 },
      { family: 'TRON', keyId: null, index: 1 },
      { family: 'SOLANA', keyId: null, index: 0 },
      { family: 'SOLANA', keyId: null, index: 1 },
    ])
    expect([nile.derivationPath, nile.address]).not.toEqual([tron.derivationPath, tron.address])
    expect(devnet.address).not.toBe(solana.address)
  })

  it('starts a chain family above the old counter of a network it does not serve', async () => {
    // an installation that served TRON_NILE before (one counter per network: 0 to 5 handed out)
    // and now serves only TRON: TRON_NILE's addresses are TRON's too
    const served = applyNetworkSettings(defaultAssetRegistry, { networks: ['TRON'] })
    const { handler, db } = await open({ registry: served, familyRegistry: defaultAssetRegistry })
    db.exec(
      'CREATE TABLE IF NOT EXISTS address_counters (network TEXT PRIMARY KEY, next_index INTEGER NOT NULL) STRICT',
    )
    db.prepare('INSERT INTO address_counters (network, next_index) VALUES (?, ?)').run('TRON_NILE', 6)
    const created = await handler.createPayment({ merchantId, request: request() })
    expect(created.payment.created.derivationPath).toBe("m/44'/195'/0'/0/6")
  })

  it('gives an SPL payment the associated token account of its derived owner', async () => {
    const { handler, deriver } = await open()
    const created = await handler.createPayment({
      merchantId,
      request: { amount: '5', currency: 'USDC', network: 'SOLANA' },
    })
    const usdc = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' })
    expect(created.payment.created).toMatchObject(deriver.derive(usdc, 0))
    expect(created.payment.created.tokenAccount).not.toBeNull()
  })

  it('replays the same request without allocating another address index', async () => {
    const { handler, allocator } = await open()
    const first = await handler.createPayment({ merchantId, request: request() })
    const replayed = await handler.createPayment({ merchantId, request: request() })
    expect(replayed).toEqual({ ...first, outcome: 'replayed' })
    expect(allocator.allocations).toEqual([{ family: 'TRON', keyId: null, index: 0 }])
  })

  it('refuses a reused key with IDEMPOTENCY_KEY_REUSED, allocating nothing and appending nothing', async () => {
    const { handler, allocator, eventStore } = await open()
    const first = await handler.createPayment({ merchantId, request: request() })
    await expect(
      handler.createPayment({ merchantId, request: request({ amount: '11' }) }),
    ).rejects.toMatchObject({ name: 'DomainError', code: 'IDEMPOTENCY_KEY_REUSED' })
    expect(allocator.allocations).toHaveLength(1)
    expect(await streamOf(eventStore, first.payment.created.paymentId)).toHaveLength(1)
  })

  it('validates the request before anything else happens', async () => {
    const { handler, allocator } = await open()
    await expect(
      handler.createPayment({ merchantId, request: request({ expiresInMinutes: 0 }) }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/expiresInMinutes/) })
    expect(allocator.allocations).toEqual([])
  })

  it('turns 20 concurrent duplicates into exactly one payment', async () => {
    const logs = captureLogs()
    const { handler, eventStore } = await open({ logDestination: logs })
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => handler.createPayment({ merchantId, request: request() })),
    )
    expect(outcomes.filter((outcome) => outcome.outcome === 'created')).toHaveLength(1)
    expect(outcomes.filter((outcome) => outcome.outcome === 'replayed')).toHaveLength(19)
    const paymentIds = new Set(outcomes.map((outcome) => outcome.payment.created.paymentId))
    expect(paymentIds.size).toBe(1)
    const addresses = new Set(outcomes.map((outcome) => outcome.payment.created.address))
    expect(addresses.size).toBe(1)

    const all = await eventStore.readAll(null, 100)
    expect(all.map((event) => event.type)).toEqual(['PaymentCreated'])
    // the duplicates really raced: the losers' appends conflicted and were decided again
    expect(logs.lines.some((line) => line.msg === 'conflicting append; deciding again')).toBe(true)
  })
})

describe('cancelPayment', () => {
  it('lets 20 concurrent cancels append one PaymentCanceled and all see it canceled', async () => {
    const logs = captureLogs()
    const { handler, eventStore } = await open({ logDestination: logs })
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId
    const results = await Promise.all(
      Array.from({ length: 20 }, () => handler.cancelPayment({ merchantId, paymentId })),
    )
    expect(new Set(results.map((result) => `${result.payment.status}@${result.revision}`))).toEqual(
      new Set(['canceled@1']),
    )
    expect((await streamOf(eventStore, paymentId)).map((event) => event.type)).toEqual([
      'PaymentCreated',
      'PaymentCanceled',
    ])
    expect(logs.lines.some((line) => line.msg === 'conflicting append; deciding again')).toBe(true)
  })

  it('refuses a payment with a transfer seen: PAYMENT_NOT_CANCELABLE', async () => {
    const { handler } = await open()
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    await handler.recordObservation(observation(payment.created, { confirmations: 1 }))
    await expect(
      handler.cancelPayment({ merchantId, paymentId: payment.created.paymentId }),
    ).rejects.toMatchObject({ code: 'PAYMENT_NOT_CANCELABLE' })
  })

  it('decides again after each conflicting append, and gives up after maxConflictRetries', async () => {
    const base = await open()
    const { payment } = await base.handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId
    let interferences = 0
    const withRival = (rivalAppends: number) =>
      createPaymentCommandHandler({
        eventStore: rivalBefore(base.eventStore, rivalAppends, () => interferences++),
        merchants: base.merchants,
        allocator: base.allocator,
        deriver: base.deriver,
        registry: defaultAssetRegistry,
        policy: { allowInsecureCallbackUrls: false },
        clock: createManualClock(start),
        logger: base.logger,
        maxConflictRetries: 2,
      })

    await expect(withRival(3).cancelPayment({ merchantId, paymentId })).rejects.toBeInstanceOf(
      WrongExpectedRevisionError,
    )
    expect(interferences).toBe(3)

    interferences = 0
    const canceled = await withRival(2).cancelPayment({ merchantId, paymentId })
    expect(interferences).toBe(2)
    expect(canceled.payment.status).toBe('canceled')
    expect(canceled.revision).toBe(6)
  })
})

describe('getPayment', () => {
  it("folds the stream; another merchant's or an unknown payment is null", async () => {
    const { handler } = await open()
    const created = await handler.createPayment({ merchantId, request: request() })
    const paymentId = created.payment.created.paymentId
    expect(await handler.getPayment({ merchantId, paymentId })).toEqual({
      payment: created.payment,
      revision: 0,
    })
    expect(await handler.getPayment({ merchantId: 'merchant-2', paymentId })).toBeNull()
    expect(await handler.getPayment({ merchantId, paymentId: crypto.randomUUID() })).toBeNull()
  })
})

describe('recordObservation', () => {
  it("counts a transfer to a customer's address whose block time runs up to a minute behind the payment's creation, and not one before that", async () => {
    const { handler } = await open()
    const perUser = { addressMode: 'PER_USER' as const, merchantUserId: 'customer-7' }
    const { payment } = await handler.createPayment({ merchantId, request: request(perUser) })
    const paymentId = payment.created.paymentId
    // a chain's block time a little behind the clock that stamped the payment (Solana's estimate)
    await handler.recordObservation(
      observation(payment.created, { txHash: 'tx-early', blockTime: '2026-11-21T13:59:01.000Z' }),
    )
    await handler.recordObservation(
      observation(payment.created, {
        txHash: 'tx-before',
        transferIndex: 1,
        blockTime: '2026-11-21T13:58:59.000Z',
      }),
    )
    const read = await handler.getPayment({ merchantId, paymentId })
    const counted = read?.payment.transfers.map((transfer) => transfer.txHash)
    expect(counted).toEqual(['tx-early'])
  })

  it("gives a transfer in the second of a customer's next payment's claim to that payment: a block time is in whole seconds (Solana's)", async () => {
    const clock = createManualClock(start)
    const { handler } = await open({ clock })
    const perUser = { addressMode: 'PER_USER' as const, merchantUserId: 'customer-8' }
    const first = await handler.createPayment({ merchantId, request: request(perUser) })
    await handler.recordObservation(
      observation(first.payment.created, { blockTime: '2026-11-21T14:00:01.000Z', confirmations: 20 }),
    )
    expect(
      (await handler.getPayment({ merchantId, paymentId: first.payment.created.paymentId }))?.payment.status,
    ).toBe('confirmed')
    // the next payment on the address, claimed 400 ms into a second; the customer pays at once
    clock.set('2026-11-21T14:00:30.400Z')
    const second = await handler.createPayment({
      merchantId,
      request: request({ ...perUser, idempotencyKey: 'order-1043' }),
    })
    const secondId = second.payment.created.paymentId
    await handler.recordObservation(
      observation(second.payment.created, { txHash: 'tx-second', blockTime: '2026-11-21T14:00:30.000Z' }),
    )
    // the second before is still the first payment's (its late funds), never the next one's
    await handler.recordObservation(
      observation(second.payment.created, { txHash: 'tx-late', blockTime: '2026-11-21T14:00:29.000Z' }),
    )
    const read = await handler.getPayment({ merchantId, paymentId: secondId })
    expect(read?.payment.transfers.map((transfer) => transfer.txHash)).toEqual(['tx-second'])
  })

  it('takes a payment from pending to confirmed at 20 TRON confirmations, ignoring repeats', async () => {
    const { handler, eventStore } = await open()
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId

    await handler.recordObservation(observation(payment.created, { confirmations: 1 }))
    await handler.recordObservation(observation(payment.created, { confirmations: 1 }))
    expect(await handler.getPayment({ merchantId, paymentId })).toMatchObject({
      revision: 1,
      payment: { status: 'pending', receivedUnits: '10500000', txHash: 'tx-1' },
    })
    await handler.recordObservation(observation(payment.created, { confirmations: 19 }))
    expect((await handler.getPayment({ merchantId, paymentId }))?.payment.status).toBe('pending')
    await handler.recordObservation(observation(payment.created, { confirmations: 20 }))
    await handler.recordObservation(observation(payment.created, { confirmations: 20 }))

    expect(await handler.getPayment({ merchantId, paymentId })).toMatchObject({
      revision: 4,
      payment: { status: 'confirmed', receivedUnits: '10500000', confirmedAt: start },
    })
    expect((await streamOf(eventStore, paymentId)).map((event) => event.type)).toEqual([
      'PaymentCreated',
      'TransferDetected',
      'TransferConfirmationsUpdated',
      'TransferConfirmationsUpdated',
      'PaymentConfirmed',
    ])
  })

  it('keeps a pending payment waiting while its only transfer is in doubt; dropped before expiresAt, nothing was seen', async () => {
    const { handler } = await open()
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId
    await handler.recordObservation(observation(payment.created, { confirmations: 3 }))
    await handler.recordObservation(observation(payment.created, { status: 'in_doubt', confirmations: 3 }))
    expect((await handler.getPayment({ merchantId, paymentId }))?.payment).toMatchObject({
      status: 'pending',
      receivedUnits: '0',
    })
    await handler.recordObservation(
      observation(payment.created, { status: 'dropped', dropReason: 'REVERTED', confirmations: 3 }),
    )
    expect((await handler.getPayment({ merchantId, paymentId }))?.payment).toMatchObject({
      status: 'pending',
      transfers: [],
      receivedUnits: null,
    })
  })

  it('records foreign funds once final, without changing the status', async () => {
    const { handler } = await open()
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const {
      status: _status,
      dropReason: _reason,
      kind: _kind,
      ...fields
    } = observation(payment.created, {
      confirmations: 20,
    })
    const trx = {
      ...fields,
      kind: 'foreign_funds' as const,
      currency: 'TRX',
      decimals: 6,
      amountUnits: '7000000',
    }
    await handler.recordObservation(trx)
    await handler.recordObservation(trx)
    const snapshot = await handler.getPayment({ merchantId, paymentId: payment.created.paymentId })
    expect(snapshot?.payment).toMatchObject({ status: 'pending', receivedUnits: null })
    expect(snapshot?.payment.foreignFunds).toMatchObject([{ currency: 'TRX', amountUnits: '7000000' }])
  })

  it('logs and ignores an observation of an unknown payment, creating no stream', async () => {
    const logs = captureLogs()
    const { handler, eventStore } = await open({ logDestination: logs })
    const paymentId = crypto.randomUUID()
    await handler.recordObservation(
      observation({ paymentId, network: 'TRON', address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }),
    )
    expect(await streamOf(eventStore, paymentId)).toEqual([])
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ level: 'warn', paymentId, reason: 'unknown payment' }),
    )
  })

  it('counts a transfer to any token account the payment’s Solana address owns (decisions 16, 19)', async () => {
    const { handler } = await open()
    const { payment } = await handler.createPayment({
      merchantId,
      request: request({ currency: 'USDC', network: 'SOLANA' }),
    })
    const { paymentId, address } = payment.created
    // a token account of the owner that is not its associated one, as a wallet may pay into
    const otherAccount = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
    await handler.recordObservation(
      observation(payment.created, {
        address: otherAccount,
        owner: address,
        amountUnits: '10500000',
        confirmations: 32,
        final: true,
      }),
    )
    const snapshot = await handler.getPayment({ merchantId, paymentId })
    expect(snapshot?.payment).toMatchObject({ status: 'confirmed', receivedUnits: '10500000' })
  })

  it('ignores a token account another address owns', async () => {
    const logs = captureLogs()
    const { handler, eventStore } = await open({ logDestination: logs })
    const { payment } = await handler.createPayment({
      merchantId,
      request: request({ currency: 'USDC', network: 'SOLANA' }),
    })
    await handler.recordObservation(
      observation(payment.created, {
        address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
        owner: 'HN7cABqLq46Es1jh92dQQisAq662SmxELLLsHHe4YWrH',
        confirmations: 32,
        final: true,
      }),
    )
    expect(await streamOf(eventStore, payment.created.paymentId)).toHaveLength(1)
    expect(logs.lines.filter((line) => line.msg === 'chain observation ignored')).toHaveLength(1)
  })

  it('ignores an observation whose address or network is not the payment’s', async () => {
    const logs = captureLogs()
    const { handler, eventStore } = await open({ logDestination: logs })
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    await handler.recordObservation(
      observation({ ...payment.created, address: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK' }),
    )
    await handler.recordObservation(observation({ ...payment.created, network: 'TRON_NILE' }))
    expect(await streamOf(eventStore, payment.created.paymentId)).toHaveLength(1)
    expect(logs.lines.filter((line) => line.msg === 'chain observation ignored')).toHaveLength(2)
  })
})

describe('expire', () => {
  it('expires only once both the clock and the chain have passed expiresAt', async () => {
    const clock = createManualClock(start)
    const { handler } = await open({ clock })
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId

    expect(await handler.expire(paymentId, '2026-11-21T14:31:00.000Z')).toBe('not_due')
    clock.set('2026-11-21T14:31:00.000Z')
    expect(await handler.expire(paymentId, '2026-11-21T14:29:59.000Z')).toBe('not_due')
    expect(await handler.expire(paymentId, '2026-11-21T14:30:00.000Z')).toBe('expired')
    expect(await handler.getPayment({ merchantId, paymentId })).toMatchObject({
      revision: 1,
      payment: { status: 'expired', closedAt: '2026-11-21T14:31:00.000Z' },
    })
    expect(await handler.expire(paymentId, '2026-11-21T14:31:00.000Z')).toBe('closed')
  })

  it('reports settling for a payment whose transfer confirms, closed for a canceled one and an unknown one', async () => {
    const clock = createManualClock(start)
    const { handler } = await open({ clock })
    const paid = await handler.createPayment({ merchantId, request: request() })
    await handler.recordObservation(observation(paid.payment.created, { confirmations: 1 }))
    const canceled = await handler.createPayment({
      merchantId,
      request: request({ idempotencyKey: 'b' }),
    })
    await handler.cancelPayment({ merchantId, paymentId: canceled.payment.created.paymentId })
    clock.set('2026-11-21T15:00:00.000Z')
    const chainTime = '2026-11-21T15:00:00.000Z'
    expect(await handler.expire(paid.payment.created.paymentId, chainTime)).toBe('settling')
    expect(await handler.expire(canceled.payment.created.paymentId, chainTime)).toBe('closed')
    expect(await handler.expire(crypto.randomUUID(), chainTime)).toBe('closed')
  })

  it('makes an underpaid payment final at expiresAt, once', async () => {
    const clock = createManualClock(start)
    const { handler, eventStore } = await open({ clock })
    const { payment } = await handler.createPayment({ merchantId, request: request() })
    const paymentId = payment.created.paymentId
    await handler.recordObservation(
      observation(payment.created, { amountUnits: '10000000', confirmations: 20 }),
    )
    expect((await handler.getPayment({ merchantId, paymentId }))?.payment.status).toBe('underpaid')
    expect(await handler.expire(paymentId, '2026-11-21T14:31:00.000Z')).toBe('settling')
    clock.set('2026-11-21T14:31:00.000Z')
    expect(await handler.expire(paymentId, '2026-11-21T14:31:00.000Z')).toBe('expired')
    expect(await handler.getPayment({ merchantId, paymentId })).toMatchObject({
      payment: { status: 'underpaid', closedAt: '2026-11-21T14:31:00.000Z' },
    })
    expect((await streamOf(eventStore, paymentId)).at(-1)?.type).toBe('PaymentUnderpaidFinalized')
    expect(await handler.expire(paymentId, '2026-11-21T14:32:00.000Z')).toBe('closed')
  })
})

function observation(
  payment: { paymentId: string; network: string; address: string },
  fields: Partial<TransferObservation> = {},
): TransferObservation {
  return {
    kind: 'transfer',
    network: payment.network,
    paymentId: payment.paymentId,
    txHash: 'tx-1',
    transferIndex: 0,
    address: payment.address,
    amountUnits: '10500000',
    blockHeight: 100,
    blockTime: '2026-11-21T14:05:00.000Z',
    confirmations: 1,
    status: 'seen',
    dropReason: null,
    observedAt: '2026-11-21T14:05:03.000Z',
    ...fields,
  }
}

/**
 * The real store with a rival writer: before each of the first `times` appends, the rival appends
 * to the same stream first (an event the payment's fold ignores), so the append conflicts for real.
 */
function rivalBefore(store: EventStore, times: number, onRival: () => void): EventStore {
  let left = times
  return {
    ...store,
    async appendToStream(streamId, events, expected) {
      if (left > 0) {
        left--
        onRival()
        await store.appendToStream(
          streamId,
          [
            {
              eventId: crypto.randomUUID(),
              type: 'TransferConfirmationsUpdated',
              data: {
                paymentId: streamId.slice('payment-'.length),
                txHash: 'unknown-tx',
                transferIndex: 0,
                confirmations: 1,
                updatedAt: start,
              },
              metadata: { schemaVersion: 1 },
            },
          ],
          'any',
        )
      }
      return store.appendToStream(streamId, events, expected)
    },
  }
}

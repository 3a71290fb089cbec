import { randomUUID } from 'node:crypto'
import type { CreatePaymentRequest, ErrorCode, FeePolicy, OpenPayment } from '@chainpay/domain'
import type { PaymentCommands } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

export interface PaymentCommandsFixture {
  /** backed by a payment-command with the default asset registry */
  commands: PaymentCommands
  /** registers a merchant in the merchant store that payment-command reads */
  addMerchant(merchantId: string, feePolicy: FeePolicy): Promise<void>
  /** the chain watcher's report of a final transfer of `amountUnits` to the payment's address */
  payFinally(payment: OpenPayment, amountUnits: string): Promise<void>
  teardown(): Promise<void>
}

const feePolicy: FeePolicy = { feeBps: 100, fixedFees: {} }

/**
 * The behaviour every PaymentCommands adapter promises (the direct handler, the HTTP client), as the
 * gateway relies on it. Tests use fresh merchant ids and idempotency keys, so a store holding older
 * payments is fine. A create's merchant must exist in the merchant store, whose fee policy is the
 * one charged.
 */
export function describePaymentCommandsContract(
  adapterName: string,
  setup: () => Promise<PaymentCommandsFixture>,
): void {
  describe(`PaymentCommands contract: ${adapterName}`, () => {
    let fixture: PaymentCommandsFixture
    let commands: PaymentCommands
    let merchantId: string
    beforeEach(async () => {
      fixture = await setup()
      commands = fixture.commands
      merchantId = `merchant-${randomUUID()}`
      await fixture.addMerchant(merchantId, feePolicy)
    })
    afterEach(async () => {
      await fixture.teardown()
    })

    const create = (request: CreatePaymentRequest, merchant = merchantId) =>
      commands.createPayment({ merchantId: merchant, request })

    it('creates a pending payment at revision 0, with its fee, address and metadata', async () => {
      const request = usdtRequest({ metadata: { orderId: '1042', 'a.b': true, $where: 4.5, note: null } })
      const created = await create(request)
      expect(created.outcome).toBe('created')
      expect(created.revision).toBe(0)
      expect(created.payment.status).toBe('pending')
      expect(created.payment.created).toMatchObject({
        merchantId,
        idempotencyKey: request.idempotencyKey,
        network: 'TRON',
        currency: 'USDT',
        tokenStandard: 'TRC20',
        amount: '10.5',
        amountUnits: '10500000',
        feeUnits: '105000',
        netUnits: '10395000',
        requiredConfirmations: 20,
        metadata: { orderId: '1042', 'a.b': true, $where: 4.5, note: null },
      })
      expect(created.payment.created.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
    })

    it('replays the same request under the same key: the original payment, not a new one', async () => {
      const request = usdtRequest()
      const first = await create(request)
      const reordered = Object.fromEntries(Object.entries(request).reverse()) as CreatePaymentRequest
      const replayed = await create(reordered)
      expect(replayed.outcome).toBe('replayed')
      expect(replayed.revision).toBe(first.revision)
      expect(replayed.payment).toEqual(first.payment)
    })

    it('replays the payment as it is now, after a cancel', async () => {
      const request = usdtRequest()
      const { payment } = await create(request)
      await commands.cancelPayment({ merchantId, paymentId: payment.created.paymentId })
      const replayed = await create(request)
      expect(replayed).toMatchObject({ outcome: 'replayed', revision: 1, payment: { status: 'canceled' } })
    })

    it('refuses the same key with a different request: IDEMPOTENCY_KEY_REUSED (409)', async () => {
      const request = usdtRequest()
      await create(request)
      await expectDomainError(create({ ...request, amount: '10.6' }), 'IDEMPOTENCY_KEY_REUSED')
      await expectDomainError(create({ ...request, description: 'added' }), 'IDEMPOTENCY_KEY_REUSED')
    })

    it('charges the fee policy the merchant store holds for the merchant', async () => {
      const other = `merchant-${randomUUID()}`
      await fixture.addMerchant(other, { feeBps: 300, fixedFees: { 'TRON:USDT': '0.5' } })
      const created = await create(usdtRequest(), other)
      // 3 % of 10.5 USDT is 315000 units, plus the fixed 0.5 USDT
      expect(created.payment.created).toMatchObject({ feeUnits: '815000', netUnits: '9685000' })
    })

    it('refuses a create for a merchant the merchant store does not know: NOT_FOUND', async () => {
      const stranger = `merchant-${randomUUID()}`
      await expectDomainError(
        create(usdtRequest(), stranger),
        'NOT_FOUND',
        new RegExp(`merchant ${stranger}`),
      )
    })

    it('scopes idempotency keys to the merchant', async () => {
      const request = usdtRequest()
      const mine = await create(request)
      const otherMerchant = `merchant-${randomUUID()}`
      await fixture.addMerchant(otherMerchant, feePolicy)
      const theirs = await create(request, otherMerchant)
      expect(theirs.outcome).toBe('created')
      expect(theirs.payment.created.paymentId).not.toBe(mine.payment.created.paymentId)
      expect(theirs.payment.created.address).not.toBe(mine.payment.created.address)
    })

    it('creates a new payment for every request without a key', async () => {
      const { idempotencyKey: _, ...request } = usdtRequest()
      const [first, second] = [await create(request), await create(request)]
      expect([first.outcome, second.outcome]).toEqual(['created', 'created'])
      expect(second.payment.created.paymentId).not.toBe(first.payment.created.paymentId)
    })

    it('passes on the domain errors of an invalid request', async () => {
      await expectDomainError(create(usdtRequest({ amount: '0' })), 'VALIDATION_ERROR', /amount/)
      await expectDomainError(create(usdtRequest({ currency: 'DOGE' })), 'UNSUPPORTED_ASSET', /DOGE/)
      const unknownField = { ...usdtRequest(), colour: 'blue' } as CreatePaymentRequest
      await expectDomainError(create(unknownField), 'VALIDATION_ERROR', /colour/)
    })

    it('cancels a pending payment; a second cancel returns the same canceled payment', async () => {
      const { payment } = await create(usdtRequest())
      const paymentId = payment.created.paymentId
      const canceled = await commands.cancelPayment({ merchantId, paymentId })
      expect(canceled.revision).toBe(1)
      expect(canceled.payment.status).toBe('canceled')
      expect(canceled.payment.closedAt).not.toBeNull()
      expect(await commands.cancelPayment({ merchantId, paymentId })).toEqual(canceled)
    })

    it('gets the payment from the source of truth, at its current revision', async () => {
      const created = await create(usdtRequest())
      const paymentId = created.payment.created.paymentId
      expect(await commands.getPayment({ merchantId, paymentId })).toEqual({
        payment: created.payment,
        revision: 0,
      })
      const canceled = await commands.cancelPayment({ merchantId, paymentId })
      expect(await commands.getPayment({ merchantId, paymentId })).toEqual(canceled)
    })

    it('knows no payment under an unknown id: get is null, cancel PAYMENT_NOT_FOUND', async () => {
      const paymentId = randomUUID()
      expect(await commands.getPayment({ merchantId, paymentId })).toBeNull()
      await expectDomainError(commands.cancelPayment({ merchantId, paymentId }), 'PAYMENT_NOT_FOUND')
    })

    it('reads the whole history from the source of truth, oldest first, each event with its id and time', async () => {
      const created = await create(usdtRequest())
      const paymentId = created.payment.created.paymentId
      await commands.cancelPayment({ merchantId, paymentId })
      const history = await commands.getPaymentHistory({ merchantId, paymentId })
      expect(history?.map((entry) => entry.event.type)).toEqual(['PaymentCreated', 'PaymentCanceled'])
      expect(history?.[0]?.event.data).toEqual(created.payment.created)
      expect(history?.[1]?.event.data).toMatchObject({ paymentId })
      for (const entry of history ?? []) {
        expect(entry.eventId).toMatch(/^[0-9a-f-]{36}$/)
        expect(new Date(entry.recordedAt).toISOString()).toBe(entry.recordedAt)
      }
    })

    it('has no history for an unknown id or another merchant’s payment', async () => {
      const { payment } = await create(usdtRequest())
      const other = `merchant-${randomUUID()}`
      expect(
        await commands.getPaymentHistory({ merchantId: other, paymentId: payment.created.paymentId }),
      ).toBeNull()
      expect(await commands.getPaymentHistory({ merchantId, paymentId: randomUUID() })).toBeNull()
    })

    it('records a sweep of a paid payment once: the same transaction again is a replay of the record', async () => {
      const { payment } = await create(usdtRequest())
      const paymentId = payment.created.paymentId
      await fixture.payFinally(payment, '10500000')
      const sweep = {
        paymentId,
        txHash: `sweep-${randomUUID()}`,
        currency: 'USDT',
        amount: '10.5',
        fee: '13.4',
        feeCurrency: 'TRX',
        treasury: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      }
      const recorded = await commands.recordSweep(sweep)
      expect(recorded.outcome).toBe('recorded')
      expect(recorded.sweep).toEqual({
        txHash: sweep.txHash,
        currency: 'USDT',
        decimals: 6,
        amountUnits: '10500000',
        feeUnits: '13400000',
        feeCurrency: 'TRX',
        feeDecimals: 6,
        treasury: sweep.treasury,
        sweptAt: expect.any(String),
      })
      expect(recorded.payment.sweeps).toEqual([recorded.sweep])
      const replayed = await commands.recordSweep(sweep)
      expect(replayed).toEqual({ ...recorded, outcome: 'replayed' })
      await expectDomainError(
        commands.recordSweep({ ...sweep, txHash: `sweep-${randomUUID()}`, amount: '0.000001' }),
        'SWEEP_EXCEEDS_UNSWEPT',
      )
      await expectDomainError(commands.recordSweep({ ...sweep, fee: '1' }), 'SWEEP_TX_REUSED')
      await expectDomainError(commands.recordSweep({ ...sweep, amount: 'ten' }), 'VALIDATION_ERROR', /amount/)
      await expectDomainError(
        commands.recordSweep({ ...sweep, paymentId: randomUUID() }),
        'PAYMENT_NOT_FOUND',
      )
    })

    it("treats another merchant's payment as unknown and leaves it as it is", async () => {
      const { payment } = await create(usdtRequest())
      const paymentId = payment.created.paymentId
      const other = `merchant-${randomUUID()}`
      expect(await commands.getPayment({ merchantId: other, paymentId })).toBeNull()
      await expectDomainError(commands.cancelPayment({ merchantId: other, paymentId }), 'PAYMENT_NOT_FOUND')
      expect(await commands.getPayment({ merchantId, paymentId })).toMatchObject({
        revision: 0,
        payment: { status: 'pending' },
      })
    })
  })
}

function usdtRequest(fields: Partial<CreatePaymentRequest> = {}): CreatePaymentRequest {
  return {
    amount: '10.5',
    currency: 'USDT',
    network: 'TRON',
    description: 'Order #1042',
    idempotencyKey: `order-${randomUUID()}`,
    ...fields,
  }
}

async function expectDomainError(
  promise: Promise<unknown>,
  code: ErrorCode,
  message?: RegExp,
): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error, `expected DomainError ${code}`).toBeInstanceOf(Error)
  expect(error).toMatchObject({ name: 'DomainError', code })
  if (message) expect((error as Error).message).toMatch(message)
}

// A deposit observation of a transfer a customer's PER_USER payment counts (deposit-or-payment.ts):
// the chain indexer reported it as a deposit because it had not read the payment's PaymentCreated
// yet; payment-command gives it to the payment whose time on the address holds its block time.

import type { DepositObservation } from '@chainpay/contracts'
import type { CreatePaymentRequest } from '@chainpay/domain'
import { createManualClock } from '@chainpay/platform'
import { afterEach, describe, expect, it } from 'vitest'
import { addressClaimStreamId } from './address-claims.js'
import { ClaimedPaymentNotCreatedYetError, paymentTransferOf } from './deposit-or-payment.js'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const merchantId = 'merchant-1'
const merchantUserId = 'customer-9'
const start = '2026-11-21T14:00:00.000Z'

let side: SqliteCommandSide | undefined
afterEach(async () => {
  await side?.close()
  side = undefined
})

const perUser = (idempotencyKey: string): CreatePaymentRequest => ({
  amount: '10.5',
  currency: 'USDT',
  network: 'TRON',
  idempotencyKey,
  addressMode: 'PER_USER',
  merchantUserId,
})

function depositObservation(address: string, fields: Partial<DepositObservation> = {}): DepositObservation {
  return {
    kind: 'deposit',
    network: 'TRON',
    merchantId,
    merchantUserId,
    address,
    txHash: 'tx-1',
    transferIndex: 0,
    currency: 'USDT',
    decimals: 6,
    amountUnits: '10500000',
    blockHeight: 100,
    blockTime: '2026-11-21T14:10:03.000Z',
    confirmations: 1,
    requiredConfirmations: 20,
    final: false,
    status: 'seen',
    dropReason: null,
    observedAt: '2026-11-21T14:10:06.000Z',
    ...fields,
  }
}

describe('a deposit observation of a PER_USER payment’s transfer', () => {
  it('pays the payment whose time on the address holds its block time, every observation of it', async () => {
    const clock = createManualClock(start)
    side = openSqliteCommandSide({ clock })
    await side.addMerchant(merchantId)
    const { handler, eventStore } = side
    // the customer's first payment, paid and confirmed; then the next one, on the same address
    const first = await handler.createPayment({ merchantId, request: perUser('order-1') })
    const address = first.payment.created.address
    await handler.recordObservation({
      kind: 'transfer',
      network: 'TRON',
      paymentId: first.payment.created.paymentId,
      txHash: 'tx-first',
      transferIndex: 0,
      address,
      amountUnits: '10500000',
      blockHeight: 50,
      blockTime: '2026-11-21T14:00:03.000Z',
      confirmations: 20,
      final: true,
      status: 'seen',
      dropReason: null,
      observedAt: '2026-11-21T14:01:00.000Z',
    })
    clock.set('2026-11-21T14:10:00.000Z')
    const second = await handler.createPayment({ merchantId, request: perUser('order-2') })
    expect(second.payment.created.address).toBe(address)

    // paid at once; the indexer, not knowing the second payment yet, reports a deposit
    const seen = await paymentTransferOf(eventStore, clock, depositObservation(address))
    expect(seen).toMatchObject({
      kind: 'transfer',
      paymentId: second.payment.created.paymentId,
      txHash: 'tx-1',
    })
    await handler.recordObservation(seen ?? expect.fail('not the payment’s'))
    const final = await paymentTransferOf(
      eventStore,
      clock,
      depositObservation(address, { confirmations: 20, final: true }),
    )
    expect(final?.paymentId).toBe(second.payment.created.paymentId)
    await handler.recordObservation(final ?? expect.fail('not the payment’s'))
    const read = await handler.getPayment({ merchantId, paymentId: second.payment.created.paymentId })
    expect(read?.payment).toMatchObject({ status: 'confirmed', receivedUnits: '10500000' })
    // final now, and still counting it: a redelivered observation goes to it too
    expect(
      (await paymentTransferOf(eventStore, clock, depositObservation(address, { final: true })))?.paymentId,
    ).toBe(second.payment.created.paymentId)

    // another asset to the address, or the same asset once the payment is final: deposits
    expect(
      await paymentTransferOf(
        eventStore,
        clock,
        depositObservation(address, { txHash: 'tx-trx', currency: 'TRX' }),
      ),
    ).toBeNull()
    expect(
      await paymentTransferOf(eventStore, clock, depositObservation(address, { txHash: 'tx-later' })),
    ).toBeNull()
    // in the first payment's time, which is final: a deposit
    expect(
      await paymentTransferOf(
        eventStore,
        clock,
        depositObservation(address, { txHash: 'tx-old', blockTime: '2026-11-21T14:05:00.000Z' }),
      ),
    ).toBeNull()
  })

  it('leaves a transfer recorded as a deposit a deposit, also when the payment hears of it, and an address without payments to deposits', async () => {
    const clock = createManualClock(start)
    side = openSqliteCommandSide({ clock })
    await side.addMerchant(merchantId)
    const { handler, eventStore, deposits } = side
    const deposit = depositObservation('TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf', { blockTime: start })
    expect(await paymentTransferOf(eventStore, clock, deposit)).toBeNull()
    await deposits.record(deposit)

    // a payment on the address afterwards: the transfer recorded as a deposit stays one
    const { payment } = await handler.createPayment({ merchantId, request: perUser('order-3') })
    const atItsAddress = depositObservation(payment.created.address, {
      blockTime: '2026-11-21T14:00:05.000Z',
      txHash: 'tx-deposit',
    })
    await deposits.record(atItsAddress)
    expect(await paymentTransferOf(eventStore, clock, { ...atItsAddress, confirmations: 2 })).toBeNull()
    // the indexer's rescan for the payment reports the same transfer as the payment's: not counted twice
    await handler.recordObservation({
      kind: 'transfer',
      network: 'TRON',
      paymentId: payment.created.paymentId,
      txHash: 'tx-deposit',
      transferIndex: 0,
      address: payment.created.address,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: '2026-11-21T14:00:05.000Z',
      confirmations: 20,
      final: true,
      status: 'seen',
      dropReason: null,
      observedAt: '2026-11-21T14:01:00.000Z',
    })
    const read = await handler.getPayment({ merchantId, paymentId: payment.created.paymentId })
    expect(read?.payment).toMatchObject({ status: 'pending', receivedUnits: null })
  })

  it('waits for a payment whose claim was just appended, and passes over one that never came', async () => {
    const clock = createManualClock(start)
    side = openSqliteCommandSide({ clock })
    const { eventStore } = side
    const address = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
    // a create that claimed the address and has not appended its PaymentCreated yet
    await eventStore.appendToStream(
      addressClaimStreamId(address, { network: 'TRON' }),
      [
        {
          eventId: crypto.randomUUID(),
          type: 'AddressClaimed',
          data: {
            paymentId: crypto.randomUUID(),
            address,
            network: 'TRON',
            currency: 'USDT',
            claimedAt: start,
          },
          metadata: { schemaVersion: 1 },
        },
      ],
      'no_stream',
    )
    const deposit = depositObservation(address, { blockTime: start })
    await expect(paymentTransferOf(eventStore, clock, deposit)).rejects.toBeInstanceOf(
      ClaimedPaymentNotCreatedYetError,
    )
    // its create crashed between the appends: past the claim's grace the transfer is a deposit
    clock.set('2026-11-21T14:01:01.000Z')
    expect(await paymentTransferOf(eventStore, clock, deposit)).toBeNull()
  })
})

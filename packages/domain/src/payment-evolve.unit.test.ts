import { describe, expect, it } from 'vitest'
import { evolvePayment, initialPaymentState, type PaymentEvent, type PaymentState } from './payment.js'
import {
  at,
  dropped,
  eventsFor,
  foldPayment,
  foreignFunds,
  paymentCreated,
  paymentId,
  settled,
  transferDetected,
  withdrawn,
} from './testing/payment-fixtures.js'

const fold = (events: PaymentEvent[], from: PaymentState = initialPaymentState): PaymentState =>
  events.reduce(evolvePayment, from)

describe('evolvePayment', () => {
  it('opens a pending payment with nothing received', () => {
    const created = paymentCreated()
    expect(fold([created])).toEqual({
      status: 'pending',
      created: created.data,
      transfers: [],
      lateTransfers: [],
      foreignFunds: [],
      sweeps: [],
      txHash: null,
      receivedUnits: null,
      confirmedAt: null,
      closedAt: null,
      failureReason: null,
    })
  })

  it('appends detected transfers, totals them and names the latest', () => {
    const state = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '4000000', blockHeight: 100 }),
      transferDetected({ txHash: 'tx-2', amountUnits: '3000000', blockHeight: 120, confirmations: 2 }),
      transferDetected({ txHash: 'tx-3', amountUnits: '1000000', blockHeight: 110 }),
    ])
    expect(state.transfers).toEqual([
      {
        txHash: 'tx-1',
        transferIndex: 0,
        amountUnits: '4000000',
        blockHeight: 100,
        blockTime: at(5),
        confirmations: 1,
        final: false,
        withdrawn: false,
      },
      {
        txHash: 'tx-2',
        transferIndex: 0,
        amountUnits: '3000000',
        blockHeight: 120,
        blockTime: at(5),
        confirmations: 2,
        final: false,
        withdrawn: false,
      },
      {
        txHash: 'tx-3',
        transferIndex: 0,
        amountUnits: '1000000',
        blockHeight: 110,
        blockTime: at(5),
        confirmations: 1,
        final: false,
        withdrawn: false,
      },
    ])
    expect(state.receivedUnits).toBe('8000000')
    expect(state.txHash).toBe('tx-2')
    expect(state.status).toBe('pending')
  })

  it('takes the transfer detected last as the latest among transfers of one block', () => {
    const state = foldPayment([paymentCreated(), transferDetected(), transferDetected({ txHash: 'tx-2' })])
    expect(state.txHash).toBe('tx-2')
  })

  it('updates the confirmations of one transfer', () => {
    const state = foldPayment([
      paymentCreated(),
      transferDetected(),
      transferDetected({ txHash: 'tx-2', blockHeight: 101 }),
      {
        type: 'TransferConfirmationsUpdated',
        data: {
          paymentId,
          txHash: 'tx-1',
          transferIndex: 0,
          confirmations: 9,
          final: false,
          updatedAt: at(7),
        },
      },
    ])
    expect(state.transfers.map((transfer) => transfer.confirmations)).toEqual([9, 1])
  })

  it('flags a withdrawn transfer and leaves it out of the total and of txHash', () => {
    const state = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '4000000' }),
      transferDetected({ txHash: 'tx-2', amountUnits: '3000000', blockHeight: 120 }),
      withdrawn({ txHash: 'tx-2' }),
    ])
    expect(state.transfers.map((transfer) => transfer.withdrawn)).toEqual([false, true])
    expect(state.receivedUnits).toBe('4000000')
    expect(state.txHash).toBe('tx-1')
  })

  it('keeps the latest detected transfer as txHash and a zero total once all are withdrawn', () => {
    const state = foldPayment([paymentCreated(), transferDetected(), withdrawn({ txHash: 'tx-1' })])
    expect(state.receivedUnits).toBe('0')
    expect(state.txHash).toBe('tx-1')
  })

  it('replaces a withdrawn transfer detected again with its new block, counted, in detection order', () => {
    const state = foldPayment([
      paymentCreated(),
      transferDetected({ amountUnits: '4000000' }),
      transferDetected({ txHash: 'tx-2', amountUnits: '3000000', blockHeight: 101 }),
      withdrawn(),
      transferDetected({ amountUnits: '4000000', blockHeight: 103, blockTime: at(7), confirmations: 2 }),
    ])
    expect(state.transfers).toEqual([
      {
        txHash: 'tx-2',
        transferIndex: 0,
        amountUnits: '3000000',
        blockHeight: 101,
        blockTime: at(5),
        confirmations: 1,
        final: false,
        withdrawn: false,
      },
      {
        txHash: 'tx-1',
        transferIndex: 0,
        amountUnits: '4000000',
        blockHeight: 103,
        blockTime: at(7),
        confirmations: 2,
        final: false,
        withdrawn: false,
      },
    ])
    expect(state.receivedUnits).toBe('7000000')
    expect(state.txHash).toBe('tx-1')
  })

  it.each([
    ['PaymentConfirmed', 'confirmed'],
    ['PaymentUnderpaid', 'underpaid'],
    ['PaymentOverpaid', 'overpaid'],
  ] as const)('%s sets the status and confirmedAt', (type, status) => {
    const state = foldPayment([
      paymentCreated(),
      transferDetected({ confirmations: 20 }),
      settled(type, { confirmedAt: at(9) }),
    ])
    expect(state.status).toBe(status)
    expect(state.confirmedAt).toBe(at(9))
    expect(state.closedAt).toBeNull()
  })

  it('forgets a dropped transfer: nothing seen any more', () => {
    const state = foldPayment([paymentCreated(), transferDetected(), withdrawn(), dropped()])
    expect(state).toMatchObject({ status: 'pending', transfers: [], receivedUnits: null, txHash: null })
  })

  it('records foreign funds once, without touching the status or the received total', () => {
    const state = foldPayment([paymentCreated(), foreignFunds(), foreignFunds()])
    expect(state).toMatchObject({ status: 'pending', receivedUnits: null })
    expect(state.foreignFunds).toEqual([
      {
        txHash: 'tx-trx',
        transferIndex: 0,
        currency: 'TRX',
        decimals: 6,
        amountUnits: '7000000',
        blockTime: at(5),
      },
    ])
  })

  it('closes an expired, canceled or failed payment at its time', () => {
    expect(foldPayment(eventsFor('expired'))).toMatchObject({
      status: 'expired',
      closedAt: at(31),
      failureReason: null,
    })
    expect(foldPayment(eventsFor('canceled'))).toMatchObject({ status: 'canceled', closedAt: at(3) })
    expect(foldPayment(eventsFor('failed'))).toMatchObject({
      status: 'failed',
      closedAt: at(32),
      failureReason: 'TRANSFER_DROPPED',
    })
  })

  it('appends late funds without touching the status or the received total', () => {
    const state = foldPayment([
      ...eventsFor('expired'),
      {
        type: 'LateFundsReceived',
        data: {
          paymentId,
          txHash: 'tx-9',
          transferIndex: 2,
          amountUnits: '700',
          blockHeight: 300,
          blockTime: at(40),
          statusAtArrival: 'expired',
          receivedAt: at(41),
        },
      },
    ])
    expect(state.lateTransfers).toEqual([
      { txHash: 'tx-9', transferIndex: 2, amountUnits: '700', blockTime: at(40) },
    ])
    expect(state.status).toBe('expired')
    expect(state.receivedUnits).toBeNull()
    expect(state.txHash).toBeNull()
  })

  describe('with events that do not fit the state', () => {
    it('ignores anything before the payment was created', () => {
      expect(fold([transferDetected(), settled('PaymentConfirmed')])).toEqual(initialPaymentState)
    })

    it('ignores a second creation', () => {
      const first = fold([paymentCreated()])
      expect(evolvePayment(first, paymentCreated({ amount: '99' }))).toBe(first)
    })

    it('ignores a transfer detected twice and updates for an unknown transfer', () => {
      const state = fold([paymentCreated(), transferDetected()])
      expect(evolvePayment(state, transferDetected())).toBe(state)
      expect(evolvePayment(state, withdrawn({ txHash: 'tx-unknown' }))).toBe(state)
    })

    it('ignores an event type it does not know', () => {
      const state = fold([paymentCreated()])
      const unknown = { type: 'PaymentRefunded', data: { paymentId } } as unknown as PaymentEvent
      expect(evolvePayment(state, unknown)).toBe(state)
    })
  })
})

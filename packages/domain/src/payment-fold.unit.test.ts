import { describe, expect, it } from 'vitest'
import { initialPaymentState, type PaymentEvent } from './payment.js'
import { evolvePayment } from './payment-evolve.js'
import {
  BrokenPaymentStreamError,
  type FoldedPayment,
  foldPaymentEvent,
  type RecordedPaymentEvent,
} from './payment-fold.js'
import { at, paymentCreated, paymentId } from './testing/payment-fixtures.js'
import {
  canceledStream as canceledStreamOf,
  confirmedStream as confirmedStreamOf,
} from './testing/payment-streams.js'

const confirmedStream = confirmedStreamOf(paymentId)
const canceledStream = canceledStreamOf(paymentId)

/** the event at `revision` of its stream, recorded `revision` minutes after 14:00 */
const recorded = (events: PaymentEvent[], revision: number): RecordedPaymentEvent => {
  const event = events[revision]
  if (!event) throw new Error(`no event at revision ${revision}`)
  return { paymentId, revision, recordedAt: at(revision), ...event }
}

function fold(folded: FoldedPayment | null, revision: number): FoldedPayment {
  const next = foldPaymentEvent(folded, recorded(confirmedStream, revision))
  if (next === 'skip') throw new Error(`revision ${revision} was skipped`)
  return next
}

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('it did not throw')
}

describe('foldPaymentEvent', () => {
  it('given nothing, when PaymentCreated at revision 0 comes, then the payment starts', () => {
    expect(foldPaymentEvent(null, recorded(confirmedStream, 0))).toEqual({
      paymentId,
      merchantId: 'merchant-1',
      revision: 0,
      state: evolvePayment(initialPaymentState, paymentCreated({ paymentId })),
      updatedAt: at(0),
    })
  })

  it('given a payment, when the next revision comes, then it is folded in and stamped with its time', () => {
    expect(fold(fold(null, 0), 1)).toMatchObject({
      revision: 1,
      updatedAt: at(1),
      state: { status: 'pending', receivedUnits: '10500000', txHash: 'tx-1' },
    })
  })

  it('folds a whole stream to the state the decider’s own fold gives', () => {
    let folded: FoldedPayment | null = null
    for (let revision = 0; revision < confirmedStream.length; revision++) folded = fold(folded, revision)
    expect(folded).toEqual({
      paymentId,
      merchantId: 'merchant-1',
      revision: 3,
      state: confirmedStream.reduce(evolvePayment, initialPaymentState),
      updatedAt: at(3),
    })
  })

  it('skips a revision already folded: a duplicate or an older event', () => {
    const folded = fold(fold(null, 0), 1)
    expect(foldPaymentEvent(folded, recorded(confirmedStream, 1))).toBe('skip')
    expect(foldPaymentEvent(folded, recorded(confirmedStream, 0))).toBe('skip')
  })

  it('continues from a write-through that got ahead, skipping what it covers', () => {
    const writeThrough = {
      paymentId,
      merchantId: 'merchant-1',
      revision: 1,
      state: canceledStream.slice(0, 2).reduce(evolvePayment, initialPaymentState) as FoldedPayment['state'],
      updatedAt: '2026-11-21T14:02:00.250Z',
    }
    expect(foldPaymentEvent(writeThrough, recorded(canceledStream, 1))).toBe('skip')
    expect(foldPaymentEvent(writeThrough, recorded(canceledStream, 2))).toMatchObject({
      revision: 2,
      updatedAt: at(2),
      state: { status: 'canceled', lateTransfers: [{ txHash: 'tx-1', amountUnits: '10500000' }] },
    })
  })

  it('refuses a first event that is not at revision 0, as poison naming the payment and revisions', () => {
    const thrown = thrownBy(() => foldPaymentEvent(null, recorded(confirmedStream, 2)))
    expect(thrown).toBeInstanceOf(BrokenPaymentStreamError)
    expect(thrown).toMatchObject({
      poison: true,
      message: `payment ${paymentId}: event TransferConfirmationsUpdated at revision 2 arrived with nothing folded; revision 0 is missing`,
    })
  })

  it('refuses a gap after the folded revision', () => {
    const thrown = thrownBy(() => foldPaymentEvent(fold(null, 0), recorded(confirmedStream, 2)))
    expect(thrown).toBeInstanceOf(BrokenPaymentStreamError)
    expect((thrown as Error).message).toMatch(
      /payment 0b5c1a8e.*revision 2 arrived with the payment folded up to revision 0; revision 1 is missing/,
    )
  })

  it('refuses a stream whose revision 0 is not PaymentCreated', () => {
    const detected = { ...recorded(confirmedStream, 1), revision: 0 }
    const thrown = thrownBy(() => foldPaymentEvent(null, detected))
    expect(thrown).toBeInstanceOf(BrokenPaymentStreamError)
    expect((thrown as Error).message).toMatch(/starts with TransferDetected/)
  })
})

import { paymentEventMessages } from '@chainpay/contracts/testing'
import { evolvePayment, initialPaymentState } from '@chainpay/domain'
import { at, paymentCreated, paymentId } from '@chainpay/domain/testing'
import { isPoisonMessage, type PaymentDocument, PoisonMessageError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { projectPaymentEvent } from './payment-document.js'
import { canceledStream, confirmedStream } from './testing/payment-messages.js'

const confirmed = paymentEventMessages(confirmedStream(paymentId))

function message(revision: number) {
  const found = confirmed[revision]
  if (!found) throw new Error(`no message at revision ${revision}`)
  return found
}

function project(document: PaymentDocument | null, revision: number): PaymentDocument {
  const projected = projectPaymentEvent(document, message(revision))
  if (projected === 'skip') throw new Error(`revision ${revision} was skipped`)
  return projected
}

describe('projectPaymentEvent', () => {
  it('starts the document from PaymentCreated at revision 0', () => {
    const created = paymentCreated({ paymentId })
    expect(projectPaymentEvent(null, message(0))).toEqual({
      paymentId,
      merchantId: 'merchant-1',
      revision: 0,
      state: evolvePayment(initialPaymentState, created),
      updatedAt: at(0),
    })
  })

  it('folds the next revision into the document and stamps it with the event’s time', () => {
    const document = project(project(null, 0), 1)
    expect(document).toMatchObject({
      revision: 1,
      updatedAt: at(1),
      state: { status: 'pending', receivedUnits: '10500000', txHash: 'tx-1' },
    })
  })

  it('folds a whole stream to the state the decider’s own fold gives', () => {
    let document: PaymentDocument | null = null
    for (const next of confirmed) document = project(document, next.revision)
    expect(document).toEqual({
      paymentId,
      merchantId: 'merchant-1',
      revision: 3,
      state: confirmedStream(paymentId).reduce(evolvePayment, initialPaymentState),
      updatedAt: at(3),
    })
    expect(document?.state.status).toBe('confirmed')
  })

  it('skips a revision the document already holds: a duplicate or an older event', () => {
    const document = project(project(null, 0), 1)
    expect(projectPaymentEvent(document, message(1))).toBe('skip')
    expect(projectPaymentEvent(document, message(0))).toBe('skip')
  })

  it('continues from a write-through that got ahead, skipping what it covers', () => {
    const [created, canceled, late] = paymentEventMessages(canceledStream(paymentId))
    if (!created || !canceled || !late) throw new Error('the canceled stream has three events')
    const writeThrough: PaymentDocument = {
      paymentId,
      merchantId: 'merchant-1',
      revision: 1,
      state: canceledStream(paymentId)
        .slice(0, 2)
        .reduce(evolvePayment, initialPaymentState) as PaymentDocument['state'],
      updatedAt: '2026-11-21T14:02:00.250Z',
    }
    expect(projectPaymentEvent(writeThrough, canceled)).toBe('skip')
    expect(projectPaymentEvent(writeThrough, late)).toMatchObject({
      revision: 2,
      updatedAt: at(2),
      state: { status: 'canceled', lateTransfers: [{ txHash: 'tx-1', amountUnits: '10500000' }] },
    })
  })

  it('throws poison on a first event that is not at revision 0, naming the payment and revisions', () => {
    const thrown = thrownBy(() => projectPaymentEvent(null, message(2)))
    expect(thrown).toBeInstanceOf(PoisonMessageError)
    expect(isPoisonMessage(thrown)).toBe(true)
    expect((thrown as Error).message).toBe(
      `payment ${paymentId}: event TransferConfirmationsUpdated at revision 2 arrived with no document; revision 0 is missing`,
    )
  })

  it('throws poison on a gap after the document’s revision', () => {
    const document = project(null, 0)
    const thrown = thrownBy(() => projectPaymentEvent(document, message(2)))
    expect(thrown).toBeInstanceOf(PoisonMessageError)
    expect((thrown as Error).message).toMatch(
      /payment 0b5c1a8e.*revision 2 arrived with a document at revision 0; revision 1 is missing/,
    )
  })

  it('throws poison on a stream whose revision 0 is not PaymentCreated', () => {
    const detected = { ...message(1), revision: 0 }
    const thrown = thrownBy(() => projectPaymentEvent(null, detected))
    expect(thrown).toBeInstanceOf(PoisonMessageError)
    expect((thrown as Error).message).toMatch(/starts with TransferDetected/)
  })
})

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('it did not throw')
}

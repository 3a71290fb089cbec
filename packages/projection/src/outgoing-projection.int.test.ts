// The refunds and payouts projection on the embedded bus and read model: each item's newest revision,
// through duplicates, reordering across items, and a write-through that got ahead.

import { type OutgoingEventMessage, outgoingEventBusMessage } from '@chainpay/contracts'
import { createRootLogger } from '@chainpay/platform'
import { Topics } from '@chainpay/ports'
import { sampleOutgoingDocument } from '@chainpay/ports/testing'
import { createSqliteBus, createSqliteOutgoingReadModel, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createOutgoingProjection } from './outgoing-projection.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const message = (document: ReturnType<typeof sampleOutgoingDocument>): OutgoingEventMessage => ({
  eventId: `${document.item.id}-${document.revision}`,
  streamId: `${document.item.kind}-${document.item.id}`,
  revision: document.revision,
  recordedAt: document.item.updatedAt,
  type: 'Any',
  item: document.item,
})

describe('createOutgoingProjection', () => {
  it("keeps each item's newest revision through duplicates and a write-through that got ahead", async () => {
    const db = openSqliteDatabase(':memory:')
    const logger = createRootLogger({ service: 'projection-test', level: 'silent' })
    const bus = createSqliteBus(db, { logger, pollIntervalMs: 20 })
    const readModel = createSqliteOutgoingReadModel(db)
    cleanups.push(
      () => db.close(),
      () => bus.close(),
    )
    const service = createOutgoingProjection({ bus, readModel, logger })
    await service.start()
    cleanups.push(() => service.stop())

    const refund = (revision: number, status: 'awaiting_address' | 'ready' | 'canceled') =>
      sampleOutgoingDocument('re_1', revision, { status })
    const payout = (revision: number, status: 'ready' | 'sending' | 'sent') =>
      sampleOutgoingDocument('po_1', revision, { kind: 'payout', status })
    // the gateway wrote the cancel through before the projection saw it
    await readModel.save(refund(2, 'canceled'))
    await bus.publish(
      Topics.outgoingEvents,
      [
        refund(0, 'awaiting_address'),
        payout(0, 'ready'),
        refund(1, 'ready'),
        payout(1, 'sending'),
        payout(0, 'ready'),
      ]
        .map(message)
        .map(outgoingEventBusMessage),
    )
    await vi.waitFor(async () => expect((await readModel.get('payout', 'po_1'))?.revision).toBe(1), {
      timeout: 10_000,
    })
    await bus.publish(Topics.outgoingEvents, [outgoingEventBusMessage(message(payout(2, 'sent')))])
    await vi.waitFor(async () => expect(await readModel.get('payout', 'po_1')).toEqual(payout(2, 'sent')), {
      timeout: 10_000,
    })
    expect(await readModel.get('refund', 're_1')).toEqual(refund(2, 'canceled'))
  })
})

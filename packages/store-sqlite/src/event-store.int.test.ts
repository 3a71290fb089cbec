import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuplicateEventIdError, type NewEvent, StoreUnavailableError } from '@chainpay/ports'
import { describeEventStoreContract } from '@chainpay/ports/testing'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openSqliteDatabase } from './database.js'
import { createSqliteEventStore } from './event-store.js'

describeEventStoreContract('SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-es-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.db'))
  const store = createSqliteEventStore(db, { pollIntervalMs: 20 })
  return {
    store,
    async teardown() {
      await store.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describeEventStoreContract('SQLite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  const store = createSqliteEventStore(db)
  return {
    store,
    async teardown() {
      await store.close()
      db.close()
    },
  }
})

describe('createSqliteEventStore on a shared file', () => {
  let dir: string
  let path: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chainpay-es-'))
    path = join(dir, 'chainpay.db')
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('keeps every event after the file is closed and reopened', async () => {
    const first = openSqliteDatabase(path)
    const event = newEvent()
    const appended = await createSqliteEventStore(first).appendToStream('payment-1', [event], 'no_stream')
    first.close()

    const reopened = openSqliteDatabase(path)
    const store = createSqliteEventStore(reopened)
    const [read] = await store.readStream('payment-1')
    expect(read).toMatchObject({ eventId: event.eventId, data: event.data, position: appended.position })
    expect(await store.appendToStream('payment-1', [newEvent()], 0)).toMatchObject({
      nextExpectedRevision: 1,
    })
    reopened.close()
  })

  it('shows appends through one connection to another connection on the file', async () => {
    const [writerDb, readerDb] = [openSqliteDatabase(path), openSqliteDatabase(path)]
    const writer = createSqliteEventStore(writerDb)
    const reader = createSqliteEventStore(readerDb)
    const event = newEvent()
    await writer.appendToStream('payment-2', [event], 'no_stream')
    expect((await reader.readStream('payment-2')).map((e) => e.eventId)).toEqual([event.eventId])
    expect((await reader.readAll(null, 10)).map((e) => e.eventId)).toEqual([event.eventId])
    const error = await reader.appendToStream('payment-2', [newEvent()], 'no_stream').catch((e) => e)
    expect(error).toMatchObject({ name: 'WrongExpectedRevisionError', actual: 0 })
    writerDb.close()
    readerDb.close()
  })

  it('notices appends through another connection by polling while listeners exist', async () => {
    const [writerDb, readerDb] = [openSqliteDatabase(path), openSqliteDatabase(path)]
    const writer = createSqliteEventStore(writerDb)
    const reader = createSqliteEventStore(readerDb, { pollIntervalMs: 10 })
    let notified = 0
    const unsubscribe = reader.onAppended(() => notified++)
    await writer.appendToStream('payment-3', [newEvent()], 'no_stream')
    await vi.waitFor(() => expect(notified).toBeGreaterThan(0), { timeout: 10_000 })
    unsubscribe()
    await reader.close()
    writerDb.close()
    readerDb.close()
  })
})

describe('createSqliteEventStore readiness', () => {
  it('answers while its table can be read, not while it cannot, nor once the database is closed; never rejects', async () => {
    const db = openSqliteDatabase(':memory:')
    const store = createSqliteEventStore(db)
    expect(await store.answers()).toBe(true)
    db.exec('ALTER TABLE es_events RENAME TO es_events_away')
    expect(await store.answers()).toBe(false)
    db.exec('ALTER TABLE es_events_away RENAME TO es_events')
    expect(await store.answers()).toBe(true)
    db.close()
    expect(await store.answers()).toBe(false)
    await store.close()
  })
})

describe('createSqliteEventStore close', () => {
  it('stops notifying listeners', async () => {
    const db = openSqliteDatabase(':memory:')
    const store = createSqliteEventStore(db)
    let notified = 0
    store.onAppended(() => notified++)
    await store.close()
    await expect(store.appendToStream('payment-4', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    )
    // listeners run as microtasks: all of them have run once a macrotask comes round
    await new Promise((resolve) => setImmediate(resolve))
    expect(notified).toBe(0)
    db.close()
  })

  it('rejects an event id already used in another stream, writing nothing (ids are unique store-wide)', async () => {
    const db = openSqliteDatabase(':memory:')
    const store = createSqliteEventStore(db)
    const event = newEvent()
    await store.appendToStream('payment-5', [event], 'no_stream')
    const error = await store.appendToStream('payment-6', [event], 'no_stream').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DuplicateEventIdError)
    expect(error).toMatchObject({ streamId: 'payment-6', eventId: event.eventId })
    expect(await store.readStream('payment-6')).toEqual([])
    db.close()
  })

  it('rejects a position it did not hand out', async () => {
    const db = openSqliteDatabase(':memory:')
    const store = createSqliteEventStore(db)
    await expect(store.readAll('C:12/P:10', 10)).rejects.toThrow(/not a SQLite event store position/)
    db.close()
  })
})

function newEvent(): NewEvent {
  return { eventId: randomUUID(), type: 'PaymentCreated', data: { paymentId: randomUUID() } }
}

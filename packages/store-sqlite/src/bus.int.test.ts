import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ConsumedMessage, deadLetterTopic, PoisonMessageError } from '@chainpay/ports'
import { describeBusContract } from '@chainpay/ports/testing'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSqliteBus } from './bus.js'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { groupCommitOf } from './group-commit.js'

describeBusContract('SQLite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-bus-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.db'))
  const bus = createSqliteBus(db, { logger: recordingLogger().logger })
  return {
    bus,
    async teardown() {
      await bus.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

describeBusContract('SQLite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  const bus = createSqliteBus(db, { logger: recordingLogger().logger })
  return {
    bus,
    async teardown() {
      await bus.close()
      db.close()
    },
  }
})

describe('createSqliteBus on a shared file', () => {
  let dir: string
  let path: string
  let topic: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'chainpay-bus-'))
    path = join(dir, 'chainpay.db')
    topic = `topic-${randomUUID()}`
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('resumes a group from its committed offset after the file is reopened', async () => {
    const firstDb = openSqliteDatabase(path)
    const firstBus = createSqliteBus(firstDb, { logger: recordingLogger().logger })
    const before: string[] = []
    await firstBus.subscribe({ topic, groupId: 'projection', handle: async (m) => void before.push(m.value) })
    await firstBus.publish(topic, [message('a'), message('b')])
    await eventually(() => expect(before).toEqual(['a', 'b']))
    await firstBus.close()
    firstDb.close()

    const db = openSqliteDatabase(path)
    const bus = createSqliteBus(db, { logger: recordingLogger().logger })
    await bus.publish(topic, [message('c')])
    const after: string[] = []
    await bus.subscribe({ topic, groupId: 'projection', handle: async (m) => void after.push(m.value) })
    await eventually(() => expect(after).toEqual(['c']))
    await bus.close()
    db.close()
  })

  it('delivers messages published through another connection, by polling', async () => {
    const [consumerDb, publisherDb] = [openSqliteDatabase(path), openSqliteDatabase(path)]
    const consumer = createSqliteBus(consumerDb, { logger: recordingLogger().logger, pollIntervalMs: 10 })
    const publisher = createSqliteBus(publisherDb, { logger: recordingLogger().logger })
    const received: string[] = []
    await consumer.subscribe({ topic, groupId: 'notifier', handle: async (m) => void received.push(m.value) })
    await publisher.publish(topic, [message('from elsewhere')])
    await eventually(() => expect(received).toEqual(['from elsewhere']))
    await consumer.close()
    consumerDb.close()
    publisherDb.close()
  })
})

describe('createSqliteBus offsets in group commits', () => {
  it("commits a waiting batch's offsets with its handlers' writes, and its last offset before stopping", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpay-bus-'))
    const db = openSqliteDatabase(join(dir, 'chainpay.db'))
    try {
      db.exec('CREATE TABLE handled (value TEXT PRIMARY KEY)')
      const bus = createSqliteBus(db, { logger: recordingLogger().logger })
      const topic = `topic-${randomUUID()}`
      const values = Array.from({ length: 40 }, (_, i) => `m${i}`)
      await bus.publish(topic, values.map(message))
      const group = groupCommitOf(db)
      const before = group.counts().commits
      const insert = db.prepare('INSERT INTO handled (value) VALUES (?)')
      await bus.subscribe({
        topic,
        groupId: 'projection',
        handle: async (m) => void (await group.run(() => insert.run(m.value))),
      })
      const handled = () => db.prepare('SELECT COUNT(*) AS n FROM handled').get()?.n
      await eventually(() => expect(handled()).toBe(40))
      await bus.close()
      // one commit per handler's write; the offsets ride along, but for the last one
      expect(group.counts().commits - before).toBeLessThanOrEqual(41)
      const offset = db.prepare("SELECT position FROM bus_offsets WHERE group_id = 'projection'").get()
      const last = db.prepare('SELECT MAX(position) AS position FROM bus_messages WHERE topic = ?').get(topic)
      expect(offset?.position).toBe(last?.position)
    } finally {
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('createSqliteBus failures', () => {
  let db: DatabaseSync
  let topic: string
  beforeEach(() => {
    db = openSqliteDatabase(':memory:')
    topic = `topic-${randomUUID()}`
  })
  afterEach(() => {
    db.close()
  })

  it('logs an error and records the source offset of a dead-lettered poison message', async () => {
    const { logger, errors } = recordingLogger()
    const bus = createSqliteBus(db, { logger })
    const failed: ConsumedMessage[] = []
    await bus.subscribe({
      topic,
      groupId: 'projection',
      handle: async (m) => {
        failed.push(m)
        throw new PoisonMessageError('projection rejected it')
      },
    })
    const letters: ConsumedMessage[] = []
    const dead = deadLetterTopic(topic)
    await bus.subscribe({ topic: dead, groupId: 'operator', handle: async (m) => void letters.push(m) })
    await bus.publish(topic, [message('poison')])
    await eventually(() => expect(letters).toHaveLength(1))
    const offset = failed[0]?.offset
    expect(failed).toHaveLength(1)
    expect(letters[0]?.headers).toEqual({
      'dead-letter-error': 'projection rejected it',
      'dead-letter-source-offset': offset,
    })
    expect(errors).toEqual([
      expect.objectContaining({
        topic,
        groupId: 'projection',
        offset,
        attempts: 1,
        error: 'projection rejected it',
        deadLetterTopic: dead,
      }),
    ])
    await bus.close()
  })

  it('logs failed attempts 1, 2, 4 and 8 of a transient failure, then that the message got through', async () => {
    const { logger, warnings, errors } = recordingLogger()
    const bus = createSqliteBus(db, { logger })
    let attempts = 0
    const handled: string[] = []
    await bus.subscribe({
      topic,
      groupId: 'projection',
      retryDelayMs: 1,
      maxRetryDelayMs: 2,
      handle: async (m) => {
        if (++attempts <= 9) throw new Error('read model unavailable')
        handled.push(m.value)
      },
    })
    await bus.publish(topic, [message('a')])
    await eventually(() => expect(handled).toEqual(['a']))
    const failure = {
      topic,
      groupId: 'projection',
      offset: expect.any(String),
      error: 'read model unavailable',
    }
    expect(warnings).toEqual([
      { ...failure, attempt: 1, retryInMs: 1 },
      { ...failure, attempt: 2, retryInMs: 2 },
      { ...failure, attempt: 4, retryInMs: 2 },
      { ...failure, attempt: 8, retryInMs: 2 },
      { topic, groupId: 'projection', offset: expect.any(String), attempts: 10 },
    ])
    expect(errors).toEqual([])
    await bus.close()
  })

  it('logs an error when a message runs out of its maxAttempts', async () => {
    const { logger, errors } = recordingLogger()
    const bus = createSqliteBus(db, { logger })
    const handled: string[] = []
    await bus.subscribe({
      topic,
      groupId: 'notifier',
      maxAttempts: 2,
      retryDelayMs: 1,
      handle: async (m) => {
        if (m.value === 'stuck') throw new Error('still down')
        handled.push(m.value)
      },
    })
    await bus.publish(topic, [message('stuck'), message('next')])
    await eventually(() => expect(handled).toEqual(['next']))
    expect(errors).toEqual([expect.objectContaining({ topic, attempts: 2, error: 'still down' })])
    await bus.close()
  })

  it('reports a subscription whose reads of the log keep failing until they work again, and not a failing handler', async () => {
    const { logger } = recordingLogger()
    const bus = createSqliteBus(db, { logger, pollIntervalMs: 10 })
    const handled: string[] = []
    await bus.subscribe({
      topic,
      groupId: 'projection',
      handle: async (m) => {
        handled.push(m.value)
        if (m.value === 'refused') throw new Error('the read model is down')
      },
      retryDelayMs: 1,
      maxAttempts: 3,
    })
    // a handler that fails holds its message, yet the subscription reads and consumes
    await bus.publish(topic, [message('refused')])
    await eventually(() => expect(handled).toEqual(['refused', 'refused', 'refused']))
    expect(bus.subscriptionFailures()).toEqual([])

    // the log itself cannot be read: the subscription takes nothing, whatever is published
    db.exec('ALTER TABLE bus_messages RENAME TO bus_messages_away')
    await eventually(() =>
      expect(bus.subscriptionFailures()).toEqual([
        `${topic} (group projection): reading the log failed: no such table: bus_messages`,
      ]),
    )
    db.exec('ALTER TABLE bus_messages_away RENAME TO bus_messages')
    await bus.publish(topic, [message('after')])
    await eventually(() => expect(handled).toContain('after'))
    expect(bus.subscriptionFailures()).toEqual([])
    await bus.close()
  })

  it('refuses meaningless retry options', async () => {
    const bus = createSqliteBus(db, { logger: recordingLogger().logger })
    const handle = async () => {}
    await expect(bus.subscribe({ topic, groupId: 'g', handle, maxAttempts: 0 })).rejects.toThrow(RangeError)
    await expect(bus.subscribe({ topic, groupId: 'g', handle, retryDelayMs: -1 })).rejects.toThrow(
      /retryDelayMs/,
    )
    await expect(bus.subscribe({ topic, groupId: 'g', handle, maxRetryDelayMs: Number.NaN })).rejects.toThrow(
      /maxRetryDelayMs/,
    )
    await bus.close()
  })
})

describe('createSqliteBus retention', () => {
  let db: DatabaseSync
  afterEach(() => db.close())
  const rows = (topic: string) =>
    Number(db.prepare('SELECT COUNT(*) AS n FROM bus_messages WHERE topic = ?').get(topic)?.n)

  // on a file the five deployables share, a service not started yet has no group to count
  it('keeps every message unless told to prune: a group that subscribes later still reads them all', async () => {
    db = openSqliteDatabase(':memory:')
    const bus = createSqliteBus(db, { logger: recordingLogger().logger, keptMessages: 3 })
    const topic = 'payments'
    const first: string[] = []
    await bus.subscribe({ topic, groupId: 'first', handle: async (m) => void first.push(m.value) })
    const values = Array.from({ length: 20 }, (_, index) => `m${index}`)
    for (const value of values) await bus.publish(topic, [message(value)])
    await eventually(() => expect(first).toEqual(values))
    const later: string[] = []
    await bus.subscribe({ topic, groupId: 'later', handle: async (m) => void later.push(m.value) })
    await eventually(() => expect(later).toEqual(values))
    expect(rows(topic)).toBe(20)
    await bus.close()
  })

  it('deletes what every group of a topic consumed, but for the newest kept messages, and nothing a group still has to read', async () => {
    db = openSqliteDatabase(':memory:')
    const bus = createSqliteBus(db, {
      logger: recordingLogger().logger,
      pruneConsumed: true,
      keptMessages: 3,
    })
    const topic = 'payments'
    const fast: string[] = []
    await bus.subscribe({ topic, groupId: 'fast', handle: async (m) => void fast.push(m.value) })
    // a group that subscribed and has not consumed anything yet holds every message
    let releaseSlow: () => void = () => {}
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve
    })
    const slow: string[] = []
    await bus.subscribe({
      topic,
      groupId: 'slow',
      handle: async (m) => {
        await slowGate
        slow.push(m.value)
      },
    })
    const values = Array.from({ length: 250 }, (_, index) => `m${index}`)
    for (const value of values) await bus.publish(topic, [message(value)])
    await eventually(() => expect(fast).toEqual(values))
    expect(rows(topic)).toBe(250)

    releaseSlow()
    await eventually(() => expect(slow).toEqual(values))
    await eventually(() => expect(rows(topic)).toBe(3))
    // a group that subscribes later reads the kept messages
    const late: string[] = []
    await bus.subscribe({ topic, groupId: 'late', handle: async (m) => void late.push(m.value) })
    await eventually(() => expect(late).toEqual(['m247', 'm248', 'm249']))
    await bus.close()
  })

  it('keeps every message of a topic no group reads (dead letters)', async () => {
    db = openSqliteDatabase(':memory:')
    const bus = createSqliteBus(db, {
      logger: recordingLogger().logger,
      pruneConsumed: true,
      keptMessages: 1,
    })
    const topic = 'payments'
    await bus.subscribe({
      topic,
      groupId: 'projection',
      handle: async () => {
        throw new PoisonMessageError('never')
      },
    })
    for (const value of ['a', 'b', 'c']) await bus.publish(topic, [message(value)])
    await eventually(() => expect(rows(deadLetterTopic(topic))).toBe(3))
    await eventually(() => expect(rows(topic)).toBe(1))
    await bus.close()
  })
})

function message(value: string) {
  return { key: 'payment-1', value, headers: {} }
}

function eventually(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 10_000, interval: 10 })
}

/** the two logger methods the bus uses, recording what it logs */
function recordingLogger() {
  const warnings: unknown[] = []
  const errors: unknown[] = []
  const logger = {
    warn: (...args: unknown[]) => void warnings.push(args[0]),
    error: (...args: unknown[]) => void errors.push(args[0]),
  }
  return { logger, warnings, errors }
}

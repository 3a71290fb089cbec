import { EventEmitter } from 'node:events'
import { setImmediate } from 'node:timers/promises'
import type { Logger } from '@chainpay/platform'
import {
  type Bus,
  type BusMessage,
  type BusSubscription,
  type ConsumedMessage,
  deadLetterTopic,
  isPoisonMessage,
  pauseUnlessAborted,
  retryDelayAfter,
  retryPolicyOf,
  type SubscribeOptions,
  shouldLogFailure,
  translateFailures,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

export interface SqliteBusOptions {
  /** only warn and error are used, so any pino logger fits */
  logger: Pick<Logger, 'warn' | 'error'>
  /** how often an idle subscription looks for messages published through other connections */
  pollIntervalMs?: number
  /**
   * Delete what every group of a topic consumed (default false: keep everything). Only for a file
   * one process owns and whose groups all subscribe when it starts (standalone): a group counts from
   * its first subscription, so on a file several processes share, a service that has not started yet
   * would find its messages gone.
   */
  pruneConsumed?: boolean
  /**
   * with pruneConsumed, the newest messages of a topic kept even once every group consumed them;
   * default SQLITE_BUS_KEPT_MESSAGES
   */
  keptMessages?: number
}

/**
 * Messages kept per topic after every group of the topic consumed them (docs/operations.md,
 * "Retention"): the log is a transport, the event store is the record.
 */
export const SQLITE_BUS_KEPT_MESSAGES = 1_000
/** consumed messages deleted per prune, at most: a prune never holds the write lock for long */
const pruneBatch = 500
/** a subscription whose log ran dry prunes what it handled at most this often */
const pruneRestMs = 1000

const batchSize = 100
const defaultPollIntervalMs = 250
/** how long a subscription loop rests after an unexpected failure (a busy or closing database) */
const failurePauseMs = 1000

type Row = Record<string, unknown>

/**
 * The bus on SQLite: one durable log of messages in publish order (so in order per key, too) and
 * one committed offset per (group, topic). Each subscription is a loop that takes the messages
 * waiting for it and handles them one at a time, woken at once by publishes through this bus and by
 * polling for anyone else's. Offsets and publishes are group commits (group-commit.ts): a message's
 * offset is written once its handler is done, in the transaction that carries the next message's
 * writes (and whatever else this process writes in that turn), so a batch of waiting messages costs
 * its handlers' commits and no commit of its own for the offsets; a crash between a handler's write
 * and its offset's commit hands the message over again, as before. A failing
 * message holds its whole group until it succeeds (or is poison, or runs out of maxAttempts): the
 * log is one sequence, so keeping the order of a key means keeping the order of all.
 * close() stops every subscription; the database belongs to the caller, who closes it.
 */
export function createSqliteBus(db: DatabaseSync, options: SqliteBusOptions): Bus {
  migrateSqliteComponent(db, 'bus', busMigrations)
  const { logger } = options
  const pollIntervalMs = options.pollIntervalMs ?? defaultPollIntervalMs
  const keptMessages = options.keptMessages ?? SQLITE_BUS_KEPT_MESSAGES
  if (!Number.isSafeInteger(keptMessages) || keptMessages < 1) {
    throw new RangeError(`SQLite bus: keptMessages must be a positive integer, got ${keptMessages}`)
  }
  const statements = {
    insert: db.prepare(
      'INSERT INTO bus_messages (topic, key, headers, value, published_at) VALUES (?, ?, ?, ?, ?)',
    ),
    readBatch: db.prepare(
      'SELECT * FROM bus_messages WHERE topic = ? AND position > ? ORDER BY position LIMIT ?',
    ),
    loadOffset: db.prepare('SELECT position FROM bus_offsets WHERE group_id = ? AND topic = ?'),
    // max(): an offset never moves back, even if two subscriptions of one group race
    commitOffset: db.prepare(
      `INSERT INTO bus_offsets (group_id, topic, position, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (group_id, topic)
       DO UPDATE SET position = max(position, excluded.position), updated_at = excluded.updated_at`,
    ),
    // a group counts for the prune from its subscription on, before it committed anything
    registerGroup: db.prepare(
      `INSERT INTO bus_offsets (group_id, topic, position, updated_at) VALUES (?, ?, 0, ?)
       ON CONFLICT (group_id, topic) DO NOTHING`,
    ),
    // What every group of the topic consumed (up to the lowest offset), but for the newest
    // `kept` messages of the topic, oldest first and at most `limit`; both bounds read the index
    // bus_messages_by_topic. A topic no group reads (a dead-letter topic) keeps everything.
    pruneConsumed: db.prepare(
      `DELETE FROM bus_messages WHERE position IN (
         SELECT position FROM bus_messages
         WHERE topic = :topic
           AND position <= (SELECT MIN(position) FROM bus_offsets WHERE topic = :topic)
           AND position < (SELECT position FROM bus_messages WHERE topic = :topic
             ORDER BY position DESC LIMIT 1 OFFSET :kept)
         ORDER BY position LIMIT :limit)`,
    ),
  }
  const group = groupCommitOf(db)
  const published = new EventEmitter().setMaxListeners(0)
  const running = new Set<BusSubscription>()
  /** the subscriptions whose latest read of the log failed, with why: for subscriptionFailures() */
  const failing = new Map<object, string>()

  const insertMessages = (topic: string, messages: BusMessage[]) => {
    const now = new Date().toISOString()
    for (const m of messages) statements.insert.run(topic, m.key, JSON.stringify(m.headers), m.value, now)
  }
  const commitOffset = (groupId: string, topic: string, position: number) =>
    statements.commitOffset.run(groupId, topic, position, new Date().toISOString())
  // a prune that fails (the file busy) is no failed read: the next batch prunes what this one left
  const pruneConsumed = (topic: string, groupId: string) => {
    try {
      statements.pruneConsumed.run({ topic, kept: keptMessages - 1, limit: pruneBatch })
    } catch (error) {
      logger.warn(
        { err: error, topic, groupId },
        'deleting consumed bus messages failed; the next read retries',
      )
    }
  }

  const startSubscription = (subscription: SubscribeOptions): BusSubscription => {
    const { topic, groupId, handle } = subscription
    const policy = retryPolicyOf(subscription)
    const stopping = new AbortController()
    let idle: AbortController | undefined
    statements.registerGroup.run(groupId, topic, new Date().toISOString())
    let offset = Number(statements.loadOffset.get(groupId, topic)?.position ?? 0)
    const onPublished = (publishedTopic: string) => {
      if (publishedTopic === topic) idle?.abort()
    }

    const deadLetter = (message: ConsumedMessage, position: number, error: unknown, attempts: number) => {
      const reason = errorText(error)
      const headers = {
        ...message.headers,
        'dead-letter-error': reason,
        'dead-letter-source-offset': message.offset,
      }
      const target = deadLetterTopic(topic)
      inTransaction(db, () => {
        insertMessages(target, [{ key: message.key, value: message.value, headers }])
        commitOffset(groupId, topic, position)
      })
      published.emit('published', target)
      logger.error(
        { topic, groupId, offset: message.offset, attempts, error: reason, deadLetterTopic: target },
        isPoisonMessage(error)
          ? 'bus message dead-lettered: it can never be handled'
          : 'bus message dead-lettered: it still failed after maxAttempts',
      )
    }

    /**
     * handles one message until it succeeds or is dead-lettered; false when stopping left it
     * unhandled. The offset of a handled message is the caller's to commit.
     */
    const deliver = async (row: Row): Promise<boolean> => {
      const position = Number(row.position)
      const message = toConsumedMessage(row)
      const context = { topic, groupId, offset: message.offset }
      let lastLoggedAt = Number.NEGATIVE_INFINITY
      for (let attempt = 1; ; attempt++) {
        // through then(): a handler that throws synchronously fails like one that rejects
        const failure = await Promise.resolve()
          .then(() => handle(message))
          .then(
            () => undefined,
            (error: unknown) => ({ error }),
          )
        if (failure === undefined) {
          if (attempt > 1) {
            logger.warn({ ...context, attempts: attempt }, 'bus message handled after failed attempts')
          }
          return true
        }
        if (isPoisonMessage(failure.error) || attempt >= policy.maxAttempts) {
          deadLetter(message, position, failure.error, attempt)
          return true
        }
        const delayMs = retryDelayAfter(attempt, policy)
        const now = Date.now()
        if (shouldLogFailure(attempt, now - lastLoggedAt)) {
          lastLoggedAt = now
          logger.warn(
            { ...context, attempt, error: errorText(failure.error), retryInMs: delayMs },
            'bus message failed; it is retried and the messages after it wait',
          )
        }
        // stopping between attempts leaves the message uncommitted: the next subscriber gets it
        if (stopping.signal.aborted) return false
        await pauseUnlessAborted(delayMs, [stopping.signal])
        if (stopping.signal.aborted) return false
      }
    }

    const failure = {}
    /** messages this subscription handled since its last prune, and when that was */
    let unpruned = 0
    let prunedAt = 0
    const prune = () => {
      pruneConsumed(topic, groupId)
      unpruned = 0
      prunedAt = Date.now()
    }
    const loop = async () => {
      while (!stopping.signal.aborted) {
        try {
          const rows = statements.readBatch.all(topic, offset, batchSize)
          failing.delete(failure)
          if (rows.length === 0) {
            if (options.pruneConsumed === true && unpruned > 0 && Date.now() - prunedAt >= pruneRestMs)
              prune()
            idle = new AbortController()
            await pauseUnlessAborted(pollIntervalMs, [stopping.signal, idle.signal])
            idle = undefined
            continue
          }
          // each handled message's offset goes into the next group commit, which also carries the
          // next message's writes; only the batch's last offset is waited for
          let offsetCommitted: Promise<unknown> = Promise.resolve()
          for (const row of rows) {
            if (stopping.signal.aborted || !(await deliver(row))) break
            const position = Number(row.position)
            offset = position
            unpruned++
            offsetCommitted.catch(() => {})
            offsetCommitted = group.run(() => commitOffset(groupId, topic, position))
          }
          await offsetCommitted
          // once a batch's worth was handled, and when the log runs dry after a rest: deleting keeps
          // pace with consuming (a prune deletes up to 500), and a log that a message at a time
          // keeps busy is not pruned after every message (the prune's bound reads `kept` index
          // entries: 4 to 5 % of standalone's thread under creates, docs/benchmarks.md)
          if (options.pruneConsumed === true && unpruned >= batchSize) prune()
          // handlers that settle at once never leave the microtask queue: let timers and I/O run
          await setImmediate()
        } catch (error) {
          failing.set(failure, `${topic} (group ${groupId}): reading the log failed: ${errorText(error)}`)
          logger.error({ err: error, topic, groupId }, 'bus subscription failed; it resumes after a pause')
          await pauseUnlessAborted(failurePauseMs, [stopping.signal])
        }
      }
      failing.delete(failure)
      published.off('published', onPublished)
    }

    published.on('published', onPublished)
    const done = loop()
    return {
      async stop() {
        stopping.abort()
        await done
      },
    }
  }

  return translateFailures(
    {
      async publish(topic, messages) {
        if (messages.length === 0) return
        await group.run(() => insertMessages(topic, messages))
        published.emit('published', topic)
      },

      async subscribe(subscribeOptions) {
        const subscription = startSubscription(subscribeOptions)
        running.add(subscription)
        return {
          async stop() {
            running.delete(subscription)
            await subscription.stop()
          },
        }
      },

      subscriptionFailures() {
        return [...failing.values()]
      },

      async close() {
        const stopping = [...running].map((subscription) => subscription.stop())
        running.clear()
        await Promise.all(stopping)
      },
    },
    translateSqliteFailure,
  )
}

/** the bus component's schema versions (schema-versions.ts) */
export const busMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
    CREATE TABLE IF NOT EXISTS bus_messages (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      topic TEXT NOT NULL,
      key TEXT NOT NULL,
      headers TEXT NOT NULL,
      value TEXT NOT NULL,
      published_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS bus_messages_by_topic ON bus_messages (topic, position);
    CREATE TABLE IF NOT EXISTS bus_offsets (
      group_id TEXT NOT NULL,
      topic TEXT NOT NULL,
      position INTEGER NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (group_id, topic)
    ) STRICT;
      `),
  },
]

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function toConsumedMessage(row: Row): ConsumedMessage {
  return {
    topic: String(row.topic),
    key: String(row.key),
    value: String(row.value),
    headers: JSON.parse(String(row.headers)),
    offset: String(row.position),
  }
}

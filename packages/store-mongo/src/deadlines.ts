import { type DueDeadline, type PaymentDeadlineStore, translateFailures } from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError, upsertOne } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface DeadlineDocument {
  _id: string
  network: string
  expiresAt: string
  attempts: number
  retryAt: string | null
}

interface WatchDocument {
  _id: string
  watchedAt: string
}

export const deadlineIndexes: IndexSpec[] = [
  { collection: mongoCollections.paymentDeadlines, name: 'by_expiry', key: { expiresAt: 1, _id: 1 } },
  {
    collection: mongoCollections.paymentDeadlines,
    name: 'by_network_expiry',
    key: { network: 1, expiresAt: 1, _id: 1 },
  },
]

/** due() reads passed deadlines in pages of at least this many while it looks for watched ones */
const minimumPageSize = 100

/**
 * Expiry deadlines of open payments in collection payment_deadlines (`_id` paymentId), with the
 * watcher's marks in payment_deadline_watches. The marks have a collection of their own because they
 * arrive from another consumer, possibly first, and an insert of a mark never touches the deadline's
 * document: a concurrent update of one document is not safe on FerretDB v1 (see concurrency.ts).
 * There is no join ($lookup) on FerretDB, so due() matches deadlines to marks page by page.
 */
export function createMongoDeadlineStore(db: Db): PaymentDeadlineStore {
  const deadlines = db.collection<DeadlineDocument>(mongoCollections.paymentDeadlines)
  const watches = db.collection<WatchDocument>(mongoCollections.paymentDeadlineWatches)
  const writes = createPerKeyQueue()

  /** the ids among `page` that the watcher has marked */
  const watchedIds = async (page: DeadlineDocument[]): Promise<Set<string>> => {
    const marks = await watches
      .find({ _id: { $in: page.map((deadline) => deadline._id) } }, { projection: { _id: 1 } })
      .toArray()
    return new Set(marks.map((mark) => mark._id))
  }

  return translateFailures(
    {
      upsert(deadline) {
        return writes.run(deadline.paymentId, async () => {
          await upsertOne(
            deadlines,
            { _id: deadline.paymentId },
            {
              $set: { network: deadline.network, expiresAt: deadline.expiresAt },
              $setOnInsert: { attempts: 0, retryAt: null },
            },
          )
        })
      },

      remove(paymentId) {
        return writes.run(paymentId, async () => {
          // the deadline first: an interruption in between leaves a mark without a deadline, which
          // due() never returns, rather than a deadline that waits for a mark already given
          await deadlines.deleteOne({ _id: paymentId })
          await watches.deleteOne({ _id: paymentId })
        })
      },

      markWatched(paymentId, at) {
        return writes.run(paymentId, async () => {
          try {
            await watches.insertOne({ _id: paymentId, watchedAt: at })
          } catch (error) {
            // already marked: the first mark is the one kept
            if (!isDuplicateKeyError(error)) throw error
          }
        })
      },

      retryLater(paymentId, retryAt) {
        return writes.run(paymentId, async () => {
          await deadlines.updateOne({ _id: paymentId }, { $inc: { attempts: 1 }, $set: { retryAt } })
        })
      },

      async due({ expiredBy, now, limit, network }) {
        if (limit <= 0) return []
        const filter: Filter<DeadlineDocument> = {
          ...(network === undefined ? {} : { network }),
          expiresAt: { $lte: expiredBy },
          $or: [{ retryAt: null }, { retryAt: { $lte: now } }],
        }
        const pageSize = Math.max(limit, minimumPageSize)
        const cursor = deadlines.find(filter, { sort: { expiresAt: 1, _id: 1 }, batchSize: pageSize })
        const found: DueDeadline[] = []
        const takeWatched = async (page: DeadlineDocument[]) => {
          const watched = await watchedIds(page)
          for (const deadline of page) {
            if (found.length < limit && watched.has(deadline._id)) found.push(toDueDeadline(deadline))
          }
        }
        try {
          let page: DeadlineDocument[] = []
          for await (const deadline of cursor) {
            page.push(deadline)
            if (page.length < pageSize) continue
            await takeWatched(page)
            page = []
            if (found.length >= limit) return found
          }
          if (page.length > 0) await takeWatched(page)
          return found
        } finally {
          await cursor.close()
        }
      },
    },
    translateMongoFailure,
  )
}

function toDueDeadline(document: DeadlineDocument): DueDeadline {
  return {
    paymentId: document._id,
    network: document.network,
    expiresAt: document.expiresAt,
    attempts: document.attempts,
  }
}

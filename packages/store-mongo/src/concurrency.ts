// FerretDB v1 applies an update (updateOne, findOneAndUpdate, $inc included) as read, modify, write
// in its own process without a lock: two concurrent updates of one document can both read the old
// version, and the later write silently undoes the earlier one. Measured against v1.24: 100
// concurrent `$inc` upserts of one counter returned 19 distinct values, and racing conditional
// `{ revision: { $lt: r } }` updates left a lower revision in place. What it does enforce atomically
// is `_id` (and unique index) uniqueness on insert.
//
// So the adapters (a) keep every uniqueness promise on inserts of a natural `_id`, and (b) send the
// writes of one key from one process one after another. On MongoDB itself the conditional updates
// are atomic anyway; on FerretDB, (b) covers writers inside one process, which is how the services
// write (one consumer per partition, one expirer, one allocator per process).

import {
  type Collection,
  type Document,
  type Filter,
  MongoServerError,
  type UpdateFilter,
  type UpdateResult,
} from 'mongodb'

/** the server refused an insert (or an upsert's insert) because the `_id` or a unique key exists */
export function isDuplicateKeyError(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000
}

export interface PerKeyQueue {
  /** runs `work` once every earlier work of the same key has settled; keys do not wait for each other */
  run<T>(key: string, work: () => Promise<T>): Promise<T>
}

export function createPerKeyQueue(): PerKeyQueue {
  const tails = new Map<string, Promise<void>>()
  return {
    run(key, work) {
      const previous = tails.get(key) ?? Promise.resolve()
      const result = previous.then(work)
      // the queue only waits on the outcome; the caller gets the result, rejection included
      const tail = result.then(
        () => {},
        () => {},
      )
      tails.set(key, tail)
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key)
      })
      return result
    },
  }
}

/**
 * updateOne with upsert, sent once more when it lost the race to insert the document: the second
 * try finds the document and updates it.
 */
export async function upsertOne<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  update: UpdateFilter<T>,
): Promise<UpdateResult<T>> {
  try {
    return await collection.updateOne(filter, update, { upsert: true })
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error
    return collection.updateOne(filter, update, { upsert: true })
  }
}

import { type CheckpointStore, translateFailures } from '@chainpay/ports'
import type { Db } from 'mongodb'
import { mongoCollections } from './collections.js'
import { upsertOne } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface CheckpointDocument {
  _id: string
  position: string
  updatedAt: string
}

/** Named positions in collection checkpoints, one document per name, kept verbatim as strings. */
export function createMongoCheckpointStore(db: Db): CheckpointStore {
  const checkpoints = db.collection<CheckpointDocument>(mongoCollections.checkpoints)
  return translateFailures(
    {
      async load(name) {
        const document = await checkpoints.findOne({ _id: name })
        return document === null ? null : document.position
      },
      async store(name, position) {
        await upsertOne(
          checkpoints,
          { _id: name },
          { $set: { position, updatedAt: new Date().toISOString() } },
        )
      },
    },
    translateMongoFailure,
  )
}

import { type AddressIndexAllocator, translateFailures } from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

/** one handed-out index; the `_id` makes a second claim of it fail */
interface AddressIndexClaim {
  _id: string
  network: string
  index: number
}

export const addressAllocatorIndexes: IndexSpec[] = [
  { collection: mongoCollections.addressIndexes, name: 'by_network_index', key: { network: 1, index: -1 } },
]

/** gives up after this many indexes in a row were claimed by other processes */
const maxClaimAttempts = 100

/**
 * Address derivation indexes from collection address_indexes, starting at 0 per network. An index is
 * handed out by inserting its claim (`_id` `${network}:${index}`), never by incrementing a counter: a
 * counter's `$inc` is not atomic on FerretDB v1 (see concurrency.ts), an insert of an existing `_id`
 * fails everywhere. So two processes never hand out one index, and an index is never reused.
 */
export function createMongoAddressAllocator(db: Db): AddressIndexAllocator {
  const claims = db.collection<AddressIndexClaim>(mongoCollections.addressIndexes)
  // one allocation per network at a time in this process; other processes are met by the claims
  const allocations = createPerKeyQueue()
  /** the index after this process's last claim, per network: usually free, so one insert suffices */
  const nextCandidate = new Map<string, number>()

  const afterHighestClaim = async (network: string): Promise<number> => {
    const highest = await claims.findOne({ network }, { sort: { index: -1 }, projection: { index: 1 } })
    return highest === null ? 0 : highest.index + 1
  }

  const claimNext = async (network: string): Promise<number> => {
    let candidate = nextCandidate.get(network) ?? (await afterHighestClaim(network))
    for (let attempt = 1; attempt <= maxClaimAttempts; attempt += 1) {
      try {
        await claims.insertOne({ _id: `${network}:${candidate}`, network, index: candidate })
        nextCandidate.set(network, candidate + 1)
        return candidate
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error
        // another process got there first: go past everything claimed so far
        candidate = Math.max(candidate + 1, await afterHighestClaim(network))
      }
    }
    throw new Error(`no free address index for ${network} after ${maxClaimAttempts} attempts`)
  }

  return translateFailures(
    {
      allocate(network) {
        return allocations.run(network, () => claimNext(network))
      },
    },
    translateMongoFailure,
  )
}

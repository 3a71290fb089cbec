import {
  type AddressFamily,
  type AddressIndexAllocator,
  allocationKey,
  networksCountedBefore,
  translateFailures,
} from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

/** one handed-out index of a key's address family (a chain and every network on it) */
interface FamilyIndexClaim {
  _id: string
  /** allocationKey's name: the chain for the operator's keys, `chain/keyId` for a merchant wallet's */
  family: string
  index: number
}

/** one index handed out by the allocator of before, which counted per network; read, never written */
interface NetworkIndexClaim {
  _id: string
  network: string
  index: number
}

export const addressAllocatorIndexes: IndexSpec[] = [
  { collection: mongoCollections.addressIndexes, name: 'by_family_index', key: { family: 1, index: -1 } },
  // the claims of before, per network: read to start each family above them
  { collection: mongoCollections.addressIndexes, name: 'by_network_index', key: { network: 1, index: -1 } },
]

/** gives up after this many indexes in a row were claimed by other processes */
const maxClaimAttempts = 100

/**
 * The `_id` of a family's claim. A network name is upper-case letters, digits and `_`, so no claim of
 * before (`${network}:${index}`) starts with `family:`.
 */
export function familyClaimId(family: string, index: number): string {
  return `family:${family}:${index}`
}

/**
 * Address derivation indexes from collection address_indexes, starting at 0 per address family. An
 * index is handed out by inserting its claim (`_id` `family:${allocationKey}:${index}`), never by
 * incrementing a counter: a counter's `$inc` is not atomic on FerretDB v1 (see concurrency.ts), an
 * insert of an existing `_id` fails everywhere. So two processes never hand out one index, and an
 * index is never reused.
 *
 * The same collection holds the claims of before, one per index and network (`${network}:${index}`,
 * mainnet and its test network counted apart, and so handed out the same addresses). A family starts
 * above the highest index any of its networks claimed that way, read whenever this process looks for
 * the family's highest claim (its first allocation, and after another process got an index first).
 */
export function createMongoAddressAllocator(db: Db): AddressIndexAllocator {
  const claims = db.collection<FamilyIndexClaim>(mongoCollections.addressIndexes)
  const networkClaims = db.collection<NetworkIndexClaim>(mongoCollections.addressIndexes)
  // one allocation per family at a time in this process; other processes are met by the claims
  const allocations = createPerKeyQueue()
  /**
   * the index after this process's last claim, per family and the networks it was given: usually
   * free, so one insert suffices; a family given other networks looks again
   */
  const nextCandidate = new Map<string, number>()

  const afterHighestClaim = async (key: string, oldNetworks: readonly string[]): Promise<number> => {
    let next = 0
    const highest = await claims.findOne({ family: key }, { sort: { index: -1 }, projection: { index: 1 } })
    if (highest !== null) next = highest.index + 1
    for (const network of oldNetworks) {
      const old = await networkClaims.findOne({ network }, { sort: { index: -1 }, projection: { index: 1 } })
      if (old !== null) next = Math.max(next, old.index + 1)
    }
    return next
  }

  const claimNext = async (family: AddressFamily, keyId: string | undefined): Promise<number> => {
    const key = allocationKey(family, keyId)
    const oldNetworks = networksCountedBefore(family, keyId)
    const cacheKey = `${key}:${oldNetworks.join(',')}`
    let candidate = nextCandidate.get(cacheKey) ?? (await afterHighestClaim(key, oldNetworks))
    for (let attempt = 1; attempt <= maxClaimAttempts; attempt += 1) {
      try {
        await claims.insertOne({ _id: familyClaimId(key, candidate), family: key, index: candidate })
        nextCandidate.set(cacheKey, candidate + 1)
        return candidate
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error
        // another process got there first: go past everything claimed so far
        candidate = Math.max(candidate + 1, await afterHighestClaim(key, oldNetworks))
      }
    }
    throw new Error(`no free address index for ${key} after ${maxClaimAttempts} attempts`)
  }

  return translateFailures(
    {
      async raiseTo(family, next, keyId) {
        if (!Number.isSafeInteger(next) || next < 0) throw new Error(`not an address index: ${next}`)
        const key = allocationKey(family, keyId)
        return allocations.run(key, async () => {
          const highest = await claims.findOne(
            { family: key },
            { sort: { index: -1 }, projection: { index: 1 } },
          )
          const before = highest === null ? 0 : highest.index + 1
          if (next > before) {
            // a claim of next - 1: every later claim of this process goes past it
            try {
              await claims.insertOne({ _id: familyClaimId(key, next - 1), family: key, index: next - 1 })
            } catch (error) {
              if (!isDuplicateKeyError(error)) throw error
            }
            for (const cached of nextCandidate.keys())
              if (cached.startsWith(`${key}:`)) nextCandidate.delete(cached)
          }
          return before
        })
      },
      async allocate(family, keyId) {
        return allocations.run(allocationKey(family, keyId), () => claimNext(family, keyId))
      },
    },
    translateMongoFailure,
  )
}

// Each merchant's received net per asset on MongoDB, FerretDB v1 included (ports/received-net.ts;
// docs/capacity.md, "Refunds and payouts"). FerretDB v1 has no transactions and no atomic
// compare-and-set on an update; an insert of a new `_id` is its one atomic step (as the webhook leases,
// deliveries.ts). So a total is a chain of versions, one document each (received_net, `_id`
// `${merchantId}:${network}:${currency}#${version}`): a count inserts the next version, holding the
// new total and the payment's counted net at its revision, and of two counts that raced for one version
// only one insert succeeds; the other reads the chain again. The newest version is the total; the
// newest version naming a payment is what was counted of it. A crash before the insert counted
// nothing, after it everything: the redelivery finds the payment's revision counted. Amounts are
// decimal strings, added as bigints: exact at any size.

import type { OpenPayment } from '@chainpay/domain'
import { type ReceivedNetTotals, receivedNetCountOf, translateFailures } from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface TotalVersion {
  _id: string
  key: string
  merchantId: string
  network: string
  currency: string
  decimals: number
  version: number
  /** the merchant's received net of the asset after this version */
  units: string
  /** the payment whose count made this version, at `revision`, counted as `paymentUnits` */
  paymentId: string
  revision: number
  paymentUnits: string
}

interface AssetRecord {
  _id: string
  merchantId: string
  network: string
  currency: string
}

const versionsOf = mongoCollections.receivedNet
const assetsOf = mongoCollections.receivedNetAssets

export const receivedNetIndexes: IndexSpec[] = [
  { collection: versionsOf, name: `${versionsOf}_head`, key: { key: 1, version: -1 } },
  { collection: versionsOf, name: `${versionsOf}_by_payment`, key: { paymentId: 1, revision: -1 } },
  { collection: assetsOf, name: `${assetsOf}_by_merchant`, key: { merchantId: 1 } },
]

export function createMongoReceivedNetTotals(db: Db): ReceivedNetTotals {
  const versions = db.collection<TotalVersion>(versionsOf)
  const assets = db.collection<AssetRecord>(assetsOf)
  const writes = createPerKeyQueue()
  const counted = (paymentId: string) => versions.findOne({ paymentId }, { sort: { revision: -1 } })
  const head = (key: string) => versions.findOne({ key }, { sort: { version: -1 } })

  return translateFailures(
    {
      count(entry) {
        return writes.run(entry.paymentId, async () => {
          const key = `${entry.merchantId}:${entry.network}:${entry.currency}`
          for (;;) {
            // the head first, then the payment: a count of this payment by another process that
            // lands after the head was read takes a version above it, so this insert clashes and
            // reads again; read the other way round, it would not be seen and the payment would be
            // counted twice (the per-key queue serialises counts within one process only)
            const current = await head(key)
            const before = await counted(entry.paymentId)
            if (before !== null && before.revision >= entry.revision) return
            const delta = entry.netUnits - BigInt(before?.paymentUnits ?? '0')
            if (delta === 0n) return
            if (current === null) {
              // the asset's first count: listed for totalsOf (an insert that finds it listed is done)
              await assets
                .insertOne({
                  _id: key,
                  merchantId: entry.merchantId,
                  network: entry.network,
                  currency: entry.currency,
                })
                .catch((error: unknown) => {
                  if (!isDuplicateKeyError(error)) throw error
                })
            }
            const version = (current?.version ?? 0) + 1
            try {
              await versions.insertOne({
                _id: `${key}#${version}`,
                key,
                merchantId: entry.merchantId,
                network: entry.network,
                currency: entry.currency,
                decimals: entry.decimals,
                version,
                units: (BigInt(current?.units ?? '0') + delta).toString(),
                paymentId: entry.paymentId,
                revision: entry.revision,
                paymentUnits: entry.netUnits.toString(),
              })
              return
            } catch (error) {
              // another payment's count took this version: read the chain again
              if (!isDuplicateKeyError(error)) throw error
            }
          }
        })
      },
      async totalsOf(merchantId, network) {
        const listed = await assets
          .find({ merchantId, ...(network === undefined ? {} : { network }) })
          .toArray()
        const totals = []
        for (const asset of listed) {
          const current = await head(asset._id)
          if (current === null) continue
          totals.push({
            network: current.network,
            currency: current.currency,
            decimals: current.decimals,
            units: BigInt(current.units),
          })
        }
        return totals.sort((a, b) => `${a.network}:${a.currency}`.localeCompare(`${b.network}:${b.currency}`))
      },
      async countedOf(paymentId) {
        const before = await counted(paymentId)
        return before === null ? 0n : BigInt(before.paymentUnits)
      },
    },
    translateMongoFailure,
  )
}

/**
 * An existing database: every funded payment the read model holds, counted once (a count is
 * idempotent, so a migration cut short and run again counts nothing twice).
 */
export async function backfillReceivedNet(db: Db): Promise<void> {
  const totals = createMongoReceivedNetTotals(db)
  const funded = db
    .collection<{ _id: string; revision: number; state: unknown }>(mongoCollections.paymentsRead)
    .find({ funded: true })
  for await (const record of funded) {
    // the count reads no merchant keys: the escaped state will do
    await totals.count(receivedNetCountOf({ state: record.state as OpenPayment, revision: record.revision }))
  }
}

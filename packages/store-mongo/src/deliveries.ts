import {
  DELIVERY_ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type DeliveryStatus,
  finishedAtOf,
  finishedByAttempt,
  targetHostOf,
  translateFailures,
  type WebhookDelivery,
  type WebhookDeliveryStore,
} from '@chainpay/ports'
import type { Collection, Db, Filter, ObjectId } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { isDuplicateKeyError } from './concurrency.js'
import { escapeKeys, unescapeKeys } from './document-keys.js'
import { translateMongoFailure } from './mongo-failures.js'

// one document per lease taken, deleted by retention long after it ran out: see takeLease
const webhookLeases = mongoCollections.webhookLeases

interface DeliveryDocument {
  _id: string
  paymentId: string
  merchantId: string
  eventType: string
  sequence: number
  /** key-escaped: it carries the merchant's metadata */
  payload: Record<string, unknown>
  targetUrl: string | null
  /**
   * targetHostOf the delivery, what its concurrency is bounded by; absent on deliveries recorded
   * before the bound, whose host is worked out from targetUrl when read (hostOf)
   */
  targetHost?: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: string | null
  createdAt: string
  deliveredAt: string | null
  lastError: string | null
  /**
   * while a worker sends it; a hint for the due query and the count of attempts in flight per host,
   * the lease documents decide who sends it
   */
  leasedUntil: string | null
  /** the number of the latest lease taken on it, 0 before the first */
  leaseNumber: number
  /**
   * when it was delivered or failed (or enqueued finished), what retention goes by; null while
   * pending; absent on deliveries recorded before retention (fillFinishedAt)
   */
  finishedAt?: string | null
  /** the event id when it differs from _id (a target after the first); absent otherwise */
  eventId?: string
  /** the target, absent on deliveries recorded before several targets and for the callbackUrl */
  endpointId?: string | null
}

interface AttemptDocument {
  _id?: ObjectId
  deliveryId: string
  attempt: number
  at: string
  statusCode: number | null
  durationMs: number
  error: string | null
  /** absent on attempts recorded before it was kept, and when there was no URL */
  url?: string
}

interface LeaseDocument {
  /** `${deliveryId}#${number}` */
  _id: string
  deliveryId: string
  number: number
  leasedUntil: string
  /** taken, then given back unused because the delivery was no longer due */
  released: boolean
}

export const deliveryIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.webhookDeliveries,
    name: 'webhook_deliveries_due',
    key: { status: 1, nextAttemptAt: 1 },
  },
  {
    collection: mongoCollections.webhookDeliveries,
    name: 'webhook_deliveries_by_payment',
    key: { paymentId: 1, sequence: 1 },
  },
  {
    // the deliveries in flight, counted per target host by every claim
    collection: mongoCollections.webhookDeliveries,
    name: 'webhook_deliveries_leased',
    key: { status: 1, leasedUntil: 1 },
  },
  {
    // a merchant's deliveries page by page, newest first (listByMerchant)
    collection: mongoCollections.webhookDeliveries,
    name: 'webhook_deliveries_by_merchant',
    key: { merchantId: 1, createdAt: -1, _id: -1 },
  },
  {
    collection: mongoCollections.webhookAttempts,
    name: 'webhook_attempts_by_delivery',
    key: { deliveryId: 1, at: 1 },
  },
  ...retentionIndexes(),
]

/** what retention's range queries (pruneFinished) walk: the finished deliveries and the leases by age */
function retentionIndexes(): IndexSpec[] {
  return [
    {
      collection: mongoCollections.webhookDeliveries,
      name: 'webhook_deliveries_finished',
      key: { finishedAt: 1 },
    },
    {
      collection: mongoCollections.webhookLeases,
      name: 'webhook_leases_by_end',
      key: { leasedUntil: 1 },
    },
  ]
}

const FINISHED_STATUSES: DeliveryStatus[] = ['delivered', 'failed', 'no_target']

// the order in which due deliveries are offered, as in the SQLite adapter; _id makes it total
const DUE_ORDER = { nextAttemptAt: 1, createdAt: 1, sequence: 1, _id: 1 } as const

/** a filter on one value by equality (which FerretDB's PostgreSQL backend filters in SQL), else $in */
function oneOrAny(values: string[]): string | { $in: string[] } {
  return values.length === 1 && values[0] !== undefined ? values[0] : { $in: values }
}

/** DUE_ORDER as a comparison, for deliveries read by id */
function dueOrder(a: DeliveryDocument, b: DeliveryDocument): number {
  for (const field of ['nextAttemptAt', 'createdAt', 'sequence', '_id'] as const) {
    const [x, y] = [a[field] ?? '', b[field] ?? '']
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}
// candidates read and checked for their place in line per round trip
const MIN_PAGE = 32

/**
 * The webhook delivery log in collections webhook_deliveries (_id deliveryId) and webhook_attempts,
 * with the claims in webhook_leases.
 *
 * FerretDB v1 applies a conditional update as read, modify, write without a lock (concurrency.ts),
 * so a `findOneAndUpdate({ leasedUntil: free })` lets two notifiers both claim one delivery; that
 * was measured. What it enforces is `_id` uniqueness on insert, so a claim is the insert of lease
 * number n + 1 of the delivery, which exactly one worker wins; the lease fields on the delivery only
 * steer the due query. As with the SQLite adapter, a worker that dies lets its lease run out.
 */
export function createMongoDeliveryStore(db: Db): WebhookDeliveryStore {
  const deliveries: Collection<DeliveryDocument> = db.collection(mongoCollections.webhookDeliveries)
  const attempts: Collection<AttemptDocument> = db.collection(mongoCollections.webhookAttempts)
  const leases: Collection<LeaseDocument> = db.collection(webhookLeases)
  // once per process, before its first prune
  let filledFinishedAt: Promise<void> | undefined

  const dueAt = (now: string): Filter<DeliveryDocument> => ({
    status: 'pending',
    nextAttemptAt: { $lte: now },
  })

  /**
   * The lowest pending sequence of each payment's line to each target (lineOf). A pending delivery
   * with a lower sequence holds back the rest of its line, even while it waits for its own retry, so
   * that one payment's webhooks arrive at each target in event order. A separate query: FerretDB v1
   * has no $lookup.
   */
  async function firstInLine(paymentIds: string[]): Promise<Map<string, number>> {
    const payments = [...new Set(paymentIds)]
    // one payment (a claim by id) by equality (oneOrAny)
    const pending = deliveries.find(
      { paymentId: oneOrAny(payments), status: 'pending' },
      { projection: { _id: 0, paymentId: 1, sequence: 1, endpointId: 1 } },
    )
    const lowest = new Map<string, number>()
    for await (const document of pending) {
      const line = lineOf(document)
      const known = lowest.get(line)
      if (known === undefined || document.sequence < known) lowest.set(line, document.sequence)
    }
    return lowest
  }

  /**
   * Takes the next lease of a delivery by inserting it: only one insert of an `_id` succeeds, on
   * FerretDB too. Lease numbers are handed out one after another (n + 1 is tried only once n is
   * known), so when the delivery's own leaseNumber lags behind (a worker died between its insert and
   * its update), the walk goes on past leases that have run out and stops at one still held.
   * Returns the lease taken, or null when another worker holds one.
   */
  async function takeLease(candidate: DeliveryDocument, now: string, leasedUntil: string) {
    for (let number = candidate.leaseNumber + 1; ; number += 1) {
      const lease: LeaseDocument = {
        _id: `${candidate._id}#${number}`,
        deliveryId: candidate._id,
        number,
        leasedUntil,
        released: false,
      }
      try {
        await leases.insertOne(lease)
        return lease
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error
      }
      const taken = await leases.findOne({ _id: lease._id })
      const runOut = taken !== null && (taken.released || taken.leasedUntil < now)
      if (!runOut) return null
    }
  }

  /**
   * The attempts in flight per target host, over every notifier: the pending deliveries whose lease
   * has not run out. A claim that another worker makes meanwhile is not seen, so two notifiers that
   * claim at the same moment may together pass a host's bound by what each took.
   */
  async function inFlightPerHost(now: string, hosts?: string[]): Promise<Map<string, number>> {
    const leased = deliveries.find(
      {
        status: 'pending',
        leasedUntil: { $gte: now },
        ...(hosts === undefined ? {} : { targetHost: oneOrAny([...new Set(hosts)]) }),
      },
      { projection: { _id: 0, targetHost: 1, targetUrl: 1, merchantId: 1 } },
    )
    const counts = new Map<string, number>()
    for await (const document of leased) {
      const host = hostOf(document)
      counts.set(host, (counts.get(host) ?? 0) + 1)
    }
    return counts
  }

  async function claim(candidate: DeliveryDocument, now: string, leasedUntil: string) {
    const lease = await takeLease(candidate, now, leasedUntil)
    if (lease === null) return null
    // still due: since the due query, another worker may have recorded its attempt or an operator
    // may have redelivered it
    const leased = await deliveries.findOneAndUpdate(
      { _id: candidate._id, ...dueAt(now) },
      { $set: { leasedUntil }, $max: { leaseNumber: lease.number } },
      { returnDocument: 'after' },
    )
    if (leased === null) {
      // given back, so that the next claim need not wait for it to run out
      await leases.updateOne({ _id: lease._id }, { $set: { released: true } })
      return null
    }
    return toDelivery(leased)
  }

  return translateFailures(
    {
      async enqueue(delivery) {
        try {
          await deliveries.insertOne({
            _id: delivery.deliveryId,
            paymentId: delivery.paymentId,
            merchantId: delivery.merchantId,
            eventType: delivery.eventType,
            sequence: delivery.sequence,
            payload: escapeKeys(delivery.payload) as Record<string, unknown>,
            targetUrl: delivery.targetUrl,
            targetHost: targetHostOf(delivery),
            status: delivery.status,
            attempts: delivery.attempts,
            nextAttemptAt: delivery.nextAttemptAt,
            createdAt: delivery.createdAt,
            deliveredAt: delivery.deliveredAt,
            lastError: delivery.lastError,
            leasedUntil: null,
            leaseNumber: 0,
            finishedAt: finishedAtOf(delivery),
            ...(delivery.eventId === undefined ? {} : { eventId: delivery.eventId }),
            ...(delivery.endpointId === undefined || delivery.endpointId === null
              ? {}
              : { endpointId: delivery.endpointId }),
          })
          return true
        } catch (error) {
          if (isDuplicateKeyError(error)) return false
          throw error
        }
      },

      async claimDue(now, { limit, leaseMs, perTargetHost, among }) {
        const claimed: WebhookDelivery[] = []
        if (limit <= 0) return claimed
        const leasedUntil = new Date(Date.parse(now) + leaseMs).toISOString()
        const unleased = { $or: [{ leasedUntil: null }, { leasedUntil: { $lt: now } }] }
        // the deliveries named, each found by its _id (the one filter FerretDB v1 answers without
        // reading the collection); only their hosts' leases are counted
        const named =
          among === undefined
            ? undefined
            : (
                await Promise.all(
                  among.map((deliveryId) =>
                    deliveries.findOne({ _id: deliveryId, ...dueAt(now), ...unleased }),
                  ),
                )
              ).filter((candidate) => candidate !== null)
        if (named?.length === 0) return claimed
        // in flight per host, with what this claim takes; a host at its bound is passed over, its
        // deliveries left due for when one of its attempts is recorded
        const inFlight = await inFlightPerHost(now, named?.map(hostOf))
        const fullHosts = new Set(
          [...inFlight].filter(([, count]) => count >= perTargetHost).map(([host]) => host),
        )

        const claimPage = async (page: DeliveryDocument[]) => {
          const lowest = await firstInLine(page.map((candidate) => candidate.paymentId))
          for (const candidate of page) {
            if (claimed.length >= limit) return
            if (lowest.get(lineOf(candidate)) !== candidate.sequence) continue
            const host = hostOf(candidate)
            if (fullHosts.has(host)) continue
            const delivery = await claim(candidate, now, leasedUntil)
            if (delivery === null) continue
            claimed.push(delivery)
            const hostInFlight = (inFlight.get(host) ?? 0) + 1
            inFlight.set(host, hostInFlight)
            if (hostInFlight >= perTargetHost) fullHosts.add(host)
          }
        }
        if (named !== undefined) {
          await claimPage(named.sort(dueOrder))
          return claimed
        }

        // Held-back candidates and those of hosts at their bound do not count towards `limit`, so the
        // due deliveries are read page after page, each after the last one read (in DUE_ORDER), until
        // enough are claimed or none are left. Each page leaves out the hosts at their bound by then,
        // so the deliveries of a host that hangs are not read again and again (a delivery recorded
        // before targetHost existed is matched by $nin, and passed over here instead).
        const pageSize = Math.max(limit, MIN_PAGE)
        let last: DeliveryDocument | undefined
        while (claimed.length < limit) {
          const page = await deliveries
            .find({
              ...dueAt(now),
              $and: [unleased, ...(last === undefined ? [] : [after(last)])],
              ...(fullHosts.size > 0 ? { targetHost: { $nin: [...fullHosts] } } : {}),
            })
            .sort(DUE_ORDER)
            .limit(pageSize)
            .toArray()
          await claimPage(page)
          last = page.at(-1)
          if (page.length < pageSize) break
        }
        return claimed
      },

      async recordAttempt(attempt, outcome) {
        // The attempt first: should the process die before the delivery moves on, its lease runs out
        // and it is sent again (at least once), rather than moved on with its attempt unrecorded.
        const { insertedId } = await attempts.insertOne({
          deliveryId: attempt.deliveryId,
          attempt: attempt.attempt,
          at: attempt.at,
          statusCode: attempt.statusCode,
          durationMs: attempt.durationMs,
          error: attempt.error,
          ...(attempt.url === undefined ? {} : { url: attempt.url }),
        })
        const moved = await deliveries.updateOne(
          { _id: attempt.deliveryId },
          {
            $set: {
              status: outcome.status,
              nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
              lastError: attempt.error,
              leasedUntil: null,
              finishedAt: finishedByAttempt(attempt.at, outcome),
              ...(outcome.status === 'delivered' ? { deliveredAt: outcome.deliveredAt } : {}),
            },
            $inc: { attempts: 1 },
          },
        )
        if (moved.matchedCount === 0) {
          await attempts.deleteOne({ _id: insertedId })
          throw new Error(`no webhook delivery ${attempt.deliveryId} to record an attempt for`)
        }
        // the latest DELIVERY_ATTEMPTS_KEPT stay (in listAttempts' order), the older ones go
        const [firstGone] = await attempts
          .find({ deliveryId: attempt.deliveryId }, { projection: { at: 1 } })
          .sort({ at: -1, _id: -1 })
          .skip(DELIVERY_ATTEMPTS_KEPT)
          .limit(1)
          .toArray()
        if (firstGone !== undefined) {
          await attempts.deleteMany({
            deliveryId: attempt.deliveryId,
            $or: [{ at: { $lt: firstGone.at } }, { at: firstGone.at, _id: { $lte: firstGone._id } }],
          })
        }
      },

      async get(deliveryId) {
        const document = await deliveries.findOne({ _id: deliveryId })
        return document === null ? null : toDelivery(document)
      },

      async listByPayment(paymentId) {
        const documents = await deliveries
          .find({ paymentId })
          .sort({ sequence: 1, createdAt: 1, _id: 1 })
          .toArray()
        return documents.map(toDelivery)
      },

      async listByMerchant(merchantId, { paymentId, status, limit, after }) {
        const filter: Filter<DeliveryDocument> = {
          merchantId,
          ...(paymentId === undefined ? {} : { paymentId }),
          ...(status === undefined ? {} : { status }),
          ...(after === undefined
            ? {}
            : {
                $or: [
                  { createdAt: { $lt: after.createdAt } },
                  { createdAt: after.createdAt, _id: { $lt: after.deliveryId } },
                ],
              }),
        }
        const page = await deliveries.find(filter).sort({ createdAt: -1, _id: -1 }).limit(limit).toArray()
        return page.map(toDelivery)
      },

      async listAttempts(deliveryId) {
        // In the order made: each attempt starts once the one before it was recorded and its retry
        // came due (or its lease ran out), so `at` orders them, whichever worker's clock it is; a
        // redelivery numbers its attempts from 1 again, hence not `attempt`.
        const documents = await attempts.find({ deliveryId }).sort({ at: 1, _id: 1 }).toArray()
        return documents.map(toAttempt)
      },

      async redeliver(deliveryId, now) {
        // attempts back to 0: the retry schedule starts over. The lease is left alone: a pending
        // delivery that a worker is sending right now stays its.
        const { matchedCount } = await deliveries.updateOne(
          { _id: deliveryId },
          { $set: { status: 'pending', attempts: 0, nextAttemptAt: now, finishedAt: null } },
        )
        return matchedCount === 1
      },

      async pruneFinished(finishedBefore, limit) {
        // a fill that failed (a blip) is tried again by the next prune, not kept as failed for good
        filledFinishedAt ??= fillFinishedAt(deliveries).catch((error: unknown) => {
          filledFinishedAt = undefined
          throw error
        })
        await filledFinishedAt
        const finished = await deliveries
          .find(
            { finishedAt: { $lt: finishedBefore }, status: { $in: FINISHED_STATUSES } },
            { projection: { _id: 1 } },
          )
          .sort({ finishedAt: 1 })
          .limit(limit)
          .toArray()
        const ids = finished.map((document) => document._id)
        if (ids.length > 0) {
          // The deliveries first: a delivery must not be listed without its attempts. (A crash in
          // between leaves attempts of no delivery, which the admin API never lists.)
          await deliveries.deleteMany({ _id: { $in: ids }, status: { $in: FINISHED_STATUSES } })
          // one redelivered meanwhile is pending again, kept, and keeps its attempts
          const kept = await deliveries.distinct('_id', { _id: { $in: ids } })
          const deleted = ids.filter((id) => !kept.includes(id))
          await attempts.deleteMany({ deliveryId: { $in: deleted } })
        }
        // Leases that ran out before the cutoff, of pruned deliveries and of earlier claims of
        // pending ones alike: a claim walks on from the delivery's own leaseNumber (takeLease), and
        // none reads a delivery it found this long ago, so none of them is looked at again.
        const ranOut = await leases
          .find({ leasedUntil: { $lt: finishedBefore } }, { projection: { _id: 1 } })
          .sort({ leasedUntil: 1 })
          .limit(limit)
          .toArray()
        if (ranOut.length > 0) {
          await leases.deleteMany({ _id: { $in: ranOut.map((lease) => lease._id) } })
        }
        return ids.length + ranOut.length
      },
    },
    translateMongoFailure,
  )
}

/**
 * Deliveries recorded before retention have no finishedAt: each gets it once (delivered: when;
 * otherwise its creation), pending ones null, so that the range query of pruneFinished finds them.
 * Idempotent, and a no-op once every delivery has the field.
 */
async function fillFinishedAt(deliveries: Collection<DeliveryDocument>): Promise<void> {
  const unfilled = deliveries.find(
    { finishedAt: { $exists: false } },
    { projection: { _id: 1, status: 1, deliveredAt: 1, createdAt: 1 } },
  )
  for await (const document of unfilled) {
    const finishedAt = finishedAtOf(document)
    await deliveries.updateOne(
      { _id: document._id, finishedAt: { $exists: false } },
      { $set: { finishedAt } },
    )
  }
}

/** the deliveries after `last` in DUE_ORDER: the next page of the due query */
function after(last: DeliveryDocument): Filter<DeliveryDocument> {
  const { nextAttemptAt, createdAt, sequence, _id } = last
  return {
    $or: [
      { nextAttemptAt: { $gt: nextAttemptAt } },
      { nextAttemptAt, createdAt: { $gt: createdAt } },
      { nextAttemptAt, createdAt, sequence: { $gt: sequence } },
      { nextAttemptAt, createdAt, sequence, _id: { $gt: _id } },
    ],
  }
}

function hostOf(document: Pick<DeliveryDocument, 'targetHost' | 'targetUrl' | 'merchantId'>): string {
  return document.targetHost ?? targetHostOf(document)
}

/** a payment's line to one target: the deliveries that go out to it in event order */
function lineOf(document: Pick<DeliveryDocument, 'paymentId' | 'endpointId'>): string {
  return JSON.stringify([document.paymentId, document.endpointId ?? null])
}

function toDelivery(document: DeliveryDocument): WebhookDelivery {
  return {
    deliveryId: document._id,
    paymentId: document.paymentId,
    merchantId: document.merchantId,
    eventType: document.eventType,
    sequence: document.sequence,
    payload: unescapeKeys(document.payload),
    targetUrl: document.targetUrl,
    status: document.status,
    attempts: document.attempts,
    nextAttemptAt: document.nextAttemptAt,
    createdAt: document.createdAt,
    deliveredAt: document.deliveredAt,
    lastError: document.lastError,
    ...(document.eventId === undefined ? {} : { eventId: document.eventId }),
    ...(document.endpointId === undefined || document.endpointId === null
      ? {}
      : { endpointId: document.endpointId }),
  }
}

function toAttempt(document: AttemptDocument): DeliveryAttempt {
  return {
    deliveryId: document.deliveryId,
    attempt: document.attempt,
    at: document.at,
    statusCode: document.statusCode,
    durationMs: document.durationMs,
    error: document.error,
    ...(typeof document.url === 'string' ? { url: document.url } : {}),
  }
}

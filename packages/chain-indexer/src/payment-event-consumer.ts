// Keeps the watch sets in step with the payments: every PaymentCreated of a network indexed here
// watches the payment's receiving address (the token account for SPL) until its late funds window
// closes, and the event that makes a payment final closes its entry (decisions 19: a final payment
// is no longer followed one by one; funds that arrive after it are still reported). Other events
// change nothing.
// A message that can never be handled (malformed, or of an asset this indexer does not know) is
// poison, so that the bus dead-letters it instead of holding the payments behind it; a failure to
// store the watch is not, and is retried.

import { PaymentEventHeaders, parsePaymentEventMessage } from '@chainpay/contracts'
import {
  type AssetRegistry,
  type PaymentCreatedData,
  type PaymentEventType,
  resolveAsset,
} from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  type ConsumedMessage,
  consumerService,
  PoisonMessageError,
  Topics,
  type WatchedAddress,
} from '@chainpay/ports'
import type { WatchSet } from './watch-set.js'

/** how long after expiry an address stays watched for late funds: 7 days */
export const DEFAULT_LATE_FUNDS_WINDOW_MS = 7 * 24 * 60 * 60 * 1000

/**
 * the events after which a payment takes no transfer any more (docs/api.md, "Lifecycle"): final.
 * PaymentUnderpaid is not one: the payment may still be completed until its expiresAt.
 */
export const CLOSING_EVENTS: ReadonlySet<PaymentEventType> = new Set<PaymentEventType>([
  'PaymentConfirmed',
  'PaymentOverpaid',
  'PaymentUnderpaidFinalized',
  'PaymentExpired',
  'PaymentCanceled',
  'PaymentFailed',
])

export interface PaymentEventConsumerOptions {
  bus: Bus
  registry: AssetRegistry
  /** one per network indexed in this process; events of other networks are ignored */
  watchSets: WatchSet[]
  logger: Logger
  lateFundsWindowMs?: number
  /** default `chain-indexer` */
  groupId?: string
  /** told about every address that was not watched before, right after it entered the watch set */
  onWatched?: (address: WatchedAddress) => void
  /** told about every watched payment that became final, right after its entry was closed */
  onClosed?: (address: WatchedAddress) => void
}

export interface PaymentEventConsumer extends Service {
  /** what the subscription does with one message; exposed so that tests can drive it */
  handle(message: ConsumedMessage): Promise<void>
}

export function createPaymentEventConsumer(options: PaymentEventConsumerOptions): PaymentEventConsumer {
  const { bus, registry, logger } = options
  const lateFundsWindowMs = options.lateFundsWindowMs ?? DEFAULT_LATE_FUNDS_WINDOW_MS
  const watchSets = new Map(options.watchSets.map((watchSet) => [watchSet.network, watchSet]))
  async function handle(message: ConsumedMessage): Promise<void> {
    // The header spares parsing the many events that change nothing here; without it, parse and see.
    const type = message.headers[PaymentEventHeaders.eventType]
    if (type !== undefined && type !== 'PaymentCreated' && !CLOSING_EVENTS.has(type as PaymentEventType))
      return
    // throws MessageFormatError, which is poison
    const event = parsePaymentEventMessage(message.value)
    if (CLOSING_EVENTS.has(event.type)) {
      // the payment's own network is not in the event: the watch set that holds it closes it
      for (const watchSet of watchSets.values()) {
        const closed = await watchSet.close(event.paymentId, event.recordedAt)
        if (closed !== undefined) options.onClosed?.(closed)
      }
      return
    }
    if (event.type !== 'PaymentCreated') return
    const watchSet = watchSets.get(event.data.network)
    if (watchSet === undefined) return
    let address: WatchedAddress
    try {
      address = watchedAddressOf(event.data, registry, lateFundsWindowMs)
    } catch (error) {
      throw new PoisonMessageError(
        `payment event ${event.eventId}: cannot watch payment ${event.paymentId}: ${(error as Error).message}`,
        { cause: error },
      )
    }
    if (await watchSet.watch(address)) {
      logger.debug(
        { network: address.network, address: address.address, paymentId: address.paymentId },
        'watching address',
      )
      options.onWatched?.(address)
    }
  }

  const consumer = consumerService(bus, {
    name: 'chain indexer payment event consumer',
    logger,
    logFields: { networks: [...watchSets.keys()] },
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'chain-indexer',
    handle,
  })
  return { ...consumer, handle }
}

/**
 * the address a new payment is paid to, watched for its asset until its late funds window closes;
 * for SPL its token account, with the owner the Solana address watcher follows
 */
export function watchedAddressOf(
  created: PaymentCreatedData,
  registry: AssetRegistry,
  lateFundsWindowMs: number = DEFAULT_LATE_FUNDS_WINDOW_MS,
): WatchedAddress {
  const { network, currency, tokenStandard } = created
  const asset = resolveAsset(registry, { network, currency, tokenStandard })
  const expiresAtMs = Date.parse(created.expiresAt)
  if (Number.isNaN(expiresAtMs)) {
    throw new RangeError(`payment ${created.paymentId}: expiresAt is not a time: ${created.expiresAt}`)
  }
  return {
    network,
    address: created.tokenAccount ?? created.address,
    paymentId: created.paymentId,
    assetContract: asset.contract,
    watchUntil: new Date(expiresAtMs + lateFundsWindowMs).toISOString(),
    paymentCreatedAt: created.createdAt,
    requiredConfirmations: created.requiredConfirmations,
    watchingReportedAt: null,
    closedAt: null,
    ...(created.tokenAccount === null ? {} : { owner: created.address }),
  }
}

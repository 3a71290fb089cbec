// Keeps the watch sets in step with the payments: every PaymentCreated of a network indexed here
// watches the payment's receiving address (the token account for SPL) until its late funds window
// closes. Other events change nothing: funds that arrive after a payment closed are still reported.
// A message that can never be handled (malformed, or of an asset this indexer does not know) is
// poison, so that the bus dead-letters it instead of holding the payments behind it; a failure to
// store the watch is not, and is retried.

import { PaymentEventHeaders, parsePaymentEventMessage } from '@chainpay/contracts'
import { type AssetRegistry, type PaymentCreatedData, resolveAsset } from '@chainpay/domain'
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
    // The header spares parsing the many events that are not creations; without it, parse and see.
    const type = message.headers[PaymentEventHeaders.eventType]
    if (type !== undefined && type !== 'PaymentCreated') return
    // throws MessageFormatError, which is poison
    const event = parsePaymentEventMessage(message.value)
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
    ...(created.tokenAccount === null ? {} : { owner: created.address }),
  }
}

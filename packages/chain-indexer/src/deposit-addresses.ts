// Customers' deposit addresses (decisions.md section 22; docs/chains.md, "Customers' deposit
// addresses"): watched for as long as they exist, in a map beside the payments' watch set (a lookup
// per transfer, so the work per block does not grow with their number), backed by the
// ChainIndexerStore so that a restart resumes with the same set. A transfer of a registry asset to
// one of them that no open payment of the address counts is a deposit: it is tracked with the
// lifecycle of a payment's transfer (transfer-lifecycle.ts) under a payee id that names the
// customer, and reported as a deposit observation (observations.ts).

import { PaymentEventHeaders, parseDepositAddressEventMessage } from '@chainpay/contracts'
import { type AssetRegistry, findNetwork } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  type ChainIndexerStore,
  type ChainTransfer,
  type ConsumedMessage,
  consumerService,
  PoisonMessageError,
  Topics,
  type TrackedTransfer,
  type WatchedDepositAddress,
} from '@chainpay/ports'
import { depositPayeeId } from './deposit-payees.js'
import { foreignAssetOf, type Payee, type PayeeOf } from './payees.js'

/**
 * a deposit address read within this of its creation has what came to it since (before its watch)
 * found: TRON's rescan of its blocks (deposit-backfill.ts), Solana's first check. One read later (a
 * consumer reset or far behind, the first start of a version that watches them, which reads every
 * address ever created) is followed from how it is then: its history is not read, as the payments it
 * had may be forgotten (their transfers would be taken for deposits) and a rescan of days of blocks
 * would hold the scan
 */
export const DEPOSIT_BACKFILL_MAX_AGE_MS = 24 * 60 * 60 * 1000

export interface DepositWatch {
  readonly network: string
  readonly size: number
  /** adds the store's deposit addresses to memory; call once before matching */
  load(): Promise<void>
  /** watches a deposit address: the store first, then memory; true when memory did not hold it yet */
  watch(address: WatchedDepositAddress): Promise<boolean>
  get(address: string): WatchedDepositAddress | undefined
  /** every deposit address watched */
  addresses(): string[]
}

export function createDepositWatch(options: { network: string; store: ChainIndexerStore }): DepositWatch {
  const { network, store } = options
  const watched = new Map<string, WatchedDepositAddress>()
  return {
    network,
    get size() {
      return watched.size
    },
    async load() {
      for (const entry of await store.listDepositAddresses(network)) watched.set(entry.address, entry)
    },
    async watch(entry) {
      if (entry.network !== network) {
        throw new Error(`deposit watch of ${network}: cannot watch an address of ${entry.network}`)
      }
      if (watched.has(entry.address)) return false
      await store.watchDepositAddress(entry)
      watched.set(entry.address, entry)
      return true
    },
    get(address) {
      return watched.get(address)
    },
    addresses() {
      return [...watched.keys()]
    },
  }
}

/**
 * The payee of a transfer once deposit addresses are watched: the open payment of the address when
 * the transfer is its asset; else, at a deposit address, a deposit of whatever registry asset it is
 * (decisions.md section 22: "otherwise it is a deposit"), including what arrives after the payment
 * became final; else what `payeeOf` says (foreign funds, late funds of a payment's own address).
 */
export function createDepositPayeeOf(
  rules: { network: string; registry: AssetRegistry; treasuries?: ReadonlySet<string> },
  deposits: Pick<DepositWatch, 'get'>,
  payeeOf: PayeeOf,
): (
  transfer: ChainTransfer,
) => Payee | Pick<TrackedTransfer, 'paymentId' | 'requiredConfirmations' | 'foreign'> | undefined {
  const assetOf = foreignAssetOf(rules)
  const treasuries = rules.treasuries ?? new Set<string>()
  const definition = findNetwork(rules.registry, rules.network)
  if (definition === undefined) throw new Error(`deposits: network ${rules.network} is not in the registry`)
  return (transfer) => {
    const payee = payeeOf(transfer)
    if (payee !== undefined && payee.foreign === null && (payee.closedAt ?? null) === null) return payee
    if (!transfer.success || transfer.internal === true) return payee
    if (transfer.from !== null && treasuries.has(transfer.from)) return payee
    const entry = deposits.get(transfer.owner ?? transfer.to)
    const asset = entry && assetOf(transfer)
    if (entry === undefined || asset === undefined) return payee
    return {
      paymentId: depositPayeeId(entry),
      requiredConfirmations: definition.requiredConfirmations,
      foreign: asset,
    }
  }
}

/**
 * Watches every deposit address created for a chain family served here, on each of its networks,
 * from Topics.depositEvents. Other event types on the topic change nothing; a message that cannot be
 * parsed is poison.
 */
export function createDepositAddressConsumer(options: {
  bus: Bus
  registry: AssetRegistry
  watches: DepositWatch[]
  logger: Logger
  groupId: string
  /**
   * watches an address its watch does not hold yet, in place of `watch.watch` (the block-scanning
   * indexer: after the backfill of its blocks, deposit-backfill.ts); true when it was watched
   */
  watchNew?: (watch: DepositWatch, entry: WatchedDepositAddress, createdAt: string) => Promise<boolean>
}): Service & { handle(message: ConsumedMessage): Promise<void> } {
  const { bus, registry, logger } = options
  async function handle(message: ConsumedMessage): Promise<void> {
    const type = message.headers[PaymentEventHeaders.eventType]
    if (type !== undefined && type !== 'DepositAddressCreated') return
    let created: ReturnType<typeof parseDepositAddressEventMessage>
    try {
      created = parseDepositAddressEventMessage(message.value)
    } catch (error) {
      throw new PoisonMessageError(`deposit event: ${(error as Error).message}`, { cause: error })
    }
    if (created.type !== 'DepositAddressCreated') return
    const { chain, address, merchantId, merchantUserId } = created.data
    for (const watch of options.watches) {
      if (findNetwork(registry, watch.network)?.chain !== chain) continue
      const entry = { network: watch.network, address, merchantId, merchantUserId }
      const { watchNew } = options
      const watched =
        watchNew !== undefined && watch.get(address) === undefined
          ? await watchNew(watch, entry, created.data.createdAt)
          : await watch.watch(entry)
      if (watched) {
        logger.debug({ network: watch.network, address }, 'watching deposit address')
      }
    }
  }
  const consumer = consumerService(bus, {
    name: 'chain indexer deposit address consumer',
    logger,
    topic: Topics.depositEvents,
    groupId: options.groupId,
    handle,
  })
  return { ...consumer, handle }
}

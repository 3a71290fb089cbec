// Deposit addresses per customer (docs/api.md, "Deposit addresses"; decisions.md section 22): the
// address of (merchant, merchantUserId, chain family), derived once from the merchant's wallet (or
// the operator's) on the deposit branch (docs/treasury.md, "Derivation paths") and recorded by
// DepositAddressCreated on a stream named by the three, appended at "no stream": of concurrent
// creates one wins and the others read its address back (their derivation index is left unused).

import { createHash, randomUUID } from 'node:crypto'
import { DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION, parseDepositAddressEvent } from '@chainpay/contracts'
import {
  type AssetRegistry,
  addressFamily,
  type Chain,
  type DepositAddressState,
  DomainError,
  decideDepositAddress,
  evolveDepositAddress,
  initialDepositAddressState,
  toDepositAddressStreamId,
  validateDepositAddressRequest,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type AddressIndexAllocator,
  type DepositAddressCommands,
  type DepositAddressView,
  type EnsureDepositAddressOutcome,
  type EventStore,
  type MerchantStore,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import type { DerivedAddress } from '@chainpay/wallet'
import type { WalletDeriver } from './merchant-wallets.js'
import { storedSchemaVersion } from './payment-stream.js'

export interface DepositAddressHandlerDeps {
  eventStore: EventStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  allocator: AddressIndexAllocator
  /** the operator's wallet's deposit branch, and the public identity of its key of a chain */
  operator: {
    deriveDepositAddress(chain: Chain, index: number): DerivedAddress
    keyIdOf(chain: Chain): string
  }
  merchantWallets?: { deriverFor(merchantId: string): Promise<WalletDeriver | null> }
  /** the networks served (a request names one of them) */
  registry: AssetRegistry
  /** the whole registry: the family's networks */
  familyRegistry?: AssetRegistry
  clock: Clock
  logger: Logger
  newId?: () => string
}

/**
 * The key id a wallet's deposit indexes are counted under (AddressIndexAllocator): its own sequence,
 * apart from the payment addresses' of the same key. `deposits0` + 40 hex: a '0' no Solana address
 * (base58) holds, and a length no TRON key fingerprint (64 hex) has, so it never meets a key's own.
 */
export function depositKeyIdOf(keyId: string): string {
  return `deposits0${createHash('sha256').update(keyId, 'utf8').digest('hex').slice(0, 40)}`
}

export function depositAddressView(state: DepositAddressState): DepositAddressView | null {
  if (state.status === 'none') return null
  const { merchantId, merchantUserId, chain, address, derivationPath, walletId, createdAt } = state.created
  return { merchantId, merchantUserId, chain, address, derivationPath, walletId, createdAt }
}

export async function loadDepositAddress(
  eventStore: EventStore,
  streamId: string,
): Promise<DepositAddressState> {
  const recorded = await eventStore.readStream(streamId)
  return recorded.map(toDepositAddressEvent).reduce(evolveDepositAddress, initialDepositAddressState)
}

export function toDepositAddressEvent(recorded: RecordedEvent) {
  return parseDepositAddressEvent(recorded.type, storedSchemaVersion(recorded), recorded.data)
}

export interface DepositAddressHandler extends DepositAddressCommands {
  /** the customer's address of the family, created now if it had none: a PER_USER payment's address */
  depositAddressFor(merchantId: string, merchantUserId: string, chain: Chain): Promise<DepositAddressView>
}

export function createDepositAddressHandler(deps: DepositAddressHandlerDeps): DepositAddressHandler {
  const { eventStore, merchants, allocator, operator, registry, clock, logger } = deps
  const familyRegistry = deps.familyRegistry ?? registry
  const newId = deps.newId ?? randomUUID

  const derive = async (merchantId: string, chain: Chain) => {
    const family = addressFamily(familyRegistry, chain)
    const wallet = (await deps.merchantWallets?.deriverFor(merchantId)) ?? null
    if (wallet === null) {
      const index = await allocator.allocate(family, depositKeyIdOf(operator.keyIdOf(chain)))
      return { index, walletId: 'operator', ...operator.deriveDepositAddress(chain, index) }
    }
    const index = await allocator.allocate(family, depositKeyIdOf(wallet.keyIdOf(chain)))
    return { index, walletId: wallet.walletId, ...wallet.deriveDepositAddress(chain, index) }
  }

  /** the customer's address of the family, created now if it had none */
  const ensure = async (
    merchantId: string,
    merchantUserId: string,
    chain: Chain,
  ): Promise<EnsureDepositAddressOutcome> => {
    const streamId = toDepositAddressStreamId(merchantId, merchantUserId, chain)
    const existing = depositAddressView(await loadDepositAddress(eventStore, streamId))
    if (existing !== null) return { depositAddress: existing, outcome: 'existing' }
    const derived = await derive(merchantId, chain)
    const events = decideDepositAddress(
      {
        type: 'CreateDepositAddress',
        data: { merchantId, merchantUserId, chain, ...derived, createdAt: isoNow(clock) },
      },
      initialDepositAddressState,
    )
    try {
      await eventStore.appendToStream(
        streamId,
        events.map((event) => ({
          eventId: newId(),
          type: event.type,
          data: event.data,
          metadata: { schemaVersion: DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION },
        })),
        'no_stream',
      )
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error
      // a concurrent create won: its address is the user's, this index stays unused
      logger.debug({ merchantId, chain, index: derived.index }, 'deposit address created concurrently')
      const won = depositAddressView(await loadDepositAddress(eventStore, streamId))
      if (won === null) throw error
      return { depositAddress: won, outcome: 'existing' }
    }
    const created = depositAddressView(events.reduce(evolveDepositAddress, initialDepositAddressState))
    if (created === null) throw new Error('a created deposit address folds to none')
    logger.info(
      { merchantId, chain, address: created.address, derivationPath: created.derivationPath },
      'deposit address created',
    )
    return { depositAddress: created, outcome: 'created' }
  }

  return {
    async ensureDepositAddress({ merchantId, request }) {
      if ((await merchants.getMerchant(merchantId)) === null) {
        throw new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
      }
      const { merchantUserId, chain } = validateDepositAddressRequest(request, registry)
      return ensure(merchantId, merchantUserId, chain)
    },
    depositAddressFor: async (merchantId, merchantUserId, chain) =>
      (await ensure(merchantId, merchantUserId, chain)).depositAddress,
  }
}

// The command side of a payment: read its stream, decide, append with optimistic concurrency, and
// on a conflicting append read again and decide again. Decisions are idempotent, so a retry never
// doubles anything. A create's merchant and fee policy come from the merchant store, never from the
// caller (docs/architecture.md, "The command API").

import { randomUUID } from 'node:crypto'
import {
  type ForeignFundsObservation,
  recordForeignFundsCommand,
  recordTransferObservationCommand,
  type TransferObservation,
} from '@chainpay/contracts'
import {
  type Asset,
  type AssetRegistry,
  addressFamily,
  type CreateRequestPolicy,
  DomainError,
  decidePayment,
  evolvePayment,
  findNetwork,
  type LockedRate,
  type OpenPayment,
  type PaymentEvent,
  type PaymentState,
  paymentIdForIdempotencyKey,
  type ReceivingAddress,
  requestFingerprint,
  type Sweep,
  toPaymentStreamId,
  validateCreatePaymentRequest,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type AddressIndexAllocator,
  type CreatePaymentInput,
  type CreatePaymentOutcome,
  type EventStore,
  type MerchantStore,
  type PaymentCommands,
  type PaymentSnapshot,
  type RecordSweepOutcome,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import { type RateService, RateUnavailableError } from '@chainpay/rates'
import { associatedTokenAccount } from '@chainpay/wallet'
import { attributedElsewhere } from './address-attribution.js'
import { createAddressClaims } from './address-claims.js'
import type { AddressPool } from './address-pool.js'
import type { DepositAddressHandler } from './deposit-address-handler.js'
import { recordedAsDeposit } from './deposit-or-payment.js'
import type { WalletDeriver } from './merchant-wallets.js'
import { type LoadedPayment, loadPayment, toNewEvent, toPaymentEvent } from './payment-stream.js'

export interface PaymentCommandHandlerDeps {
  eventStore: EventStore
  /** where a create's merchant and its fee policy are looked up */
  merchants: Pick<MerchantStore, 'getMerchant'>
  allocator: AddressIndexAllocator
  /** the operator's wallet: every merchant's payments derive from it unless it has a wallet of its own */
  deriver: { derive(asset: Asset, index: number): ReceivingAddress }
  /** the operator's addresses derived ahead of need (address-pool.ts); derived on the spot without */
  addressPool?: Pick<AddressPool, 'take'>
  /** merchants' own wallets (docs/api.md, "Merchant wallets"); none when absent */
  merchantWallets?: { deriverFor(merchantId: string): Promise<WalletDeriver | null> }
  /** the networks served: a create on another network is UNSUPPORTED_ASSET */
  registry: AssetRegistry
  /**
   * the whole registry, before it was narrowed to the networks served: every network of a chain is in
   * that chain's address family (docs/chains.md, "Addresses: one sequence per chain family");
   * `registry` when absent
   */
  familyRegistry?: AssetRegistry
  policy: CreateRequestPolicy
  /**
   * locks the rate of a payment priced in fiat (docs/api.md, "Prices in fiat"); without it such a
   * create is 503 RATE_UNAVAILABLE
   */
  rates?: Pick<RateService, 'lockRate'>
  /**
   * customers' deposit addresses, the addresses of PER_USER payments (docs/api.md, "Deposit
   * addresses"); without them such a create is refused
   */
  depositAddresses?: Pick<DepositAddressHandler, 'depositAddressFor'>
  clock: Clock
  /** ids of payments without an idempotency key and of events; crypto.randomUUID by default */
  newId?: () => string
  logger: Logger
  /** how often a command is decided again after a conflicting append; default 10 */
  maxConflictRetries?: number
}

/**
 * 'expired': the payment expired, or its underpaid total became final; 'not_due': a pending payment
 * with no transfer before its deadline; 'settling': past the deadline, a counted transfer still
 * awaits its confirmations (pending or underpaid), so the payment may yet become underpaid, and
 * final; 'closed': nothing more can happen at the deadline (settled, closed, or underpaid and final)
 */
export type ExpireResult = 'expired' | 'not_due' | 'settling' | 'closed'

export interface PaymentCommandHandler extends PaymentCommands {
  /** an observation of an unknown payment is logged and ignored: retrying it would never help */
  /** a transfer of the payment's asset, or foreign funds, to the payment's address */
  recordObservation(observation: TransferObservation | ForeignFundsObservation): Promise<void>
  expire(paymentId: string, chainTime: string): Promise<ExpireResult>
  /**
   * a payment of an invoice, for the customer's pick (invoice-handler.ts): created like any other
   * from `request`, with the invoice's id and its expiry (docs/api.md, "Invoices")
   */
  createInvoicePayment(
    input: CreatePaymentInput & { invoice: { invoiceId: string; expiresAt: string } },
  ): Promise<CreatePaymentOutcome>
}

const DEFAULT_MAX_CONFLICT_RETRIES = 10

export function createPaymentCommandHandler(deps: PaymentCommandHandlerDeps): PaymentCommandHandler {
  const { eventStore, merchants, allocator, deriver, registry, policy, clock, logger } = deps
  const familyRegistry = deps.familyRegistry ?? registry
  const newId = deps.newId ?? randomUUID
  const maxConflictRetries = deps.maxConflictRetries ?? DEFAULT_MAX_CONFLICT_RETRIES
  const addressClaims = createAddressClaims({
    eventStore,
    clock,
    newId,
    paymentState: async (paymentId) => (await loadPayment(eventStore, paymentId)).state,
  })

  /** decides on the current state and appends what was decided, re-reading after each conflict */
  const execute = async (
    paymentId: string,
    decide: (current: LoadedPayment) => Promise<PaymentEvent[]> | PaymentEvent[],
  ): Promise<LoadedPayment & { appended: PaymentEvent[] }> => {
    for (let attempt = 0; ; attempt++) {
      const current = await loadPayment(eventStore, paymentId)
      const events = await decide(current)
      if (events.length === 0) return { ...current, appended: [] }
      const expected = current.revision === -1 ? 'no_stream' : current.revision
      try {
        const result = await eventStore.appendToStream(
          toPaymentStreamId(paymentId),
          events.map((event) => toNewEvent(event, newId())),
          expected,
        )
        const state = events.reduce(evolvePayment, current.state)
        return { state, revision: result.nextExpectedRevision, appended: events }
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxConflictRetries) throw error
        logger.debug({ paymentId, attempt: attempt + 1, expected }, 'conflicting append; deciding again')
      }
    }
  }

  /** the rate service's rate, its refusal the merchant's 503 RATE_UNAVAILABLE */
  const lockRateFor = async (base: string, quote: string | undefined): Promise<LockedRate> => {
    if (deps.rates === undefined || quote === undefined) {
      throw new DomainError('RATE_UNAVAILABLE', 'prices in fiat are not served here: send amount instead')
    }
    try {
      return await deps.rates.lockRate({ base, quote })
    } catch (error) {
      if (!(error instanceof RateUnavailableError)) throw error
      throw new DomainError(
        'RATE_UNAVAILABLE',
        `no usable rate of ${base} in ${quote} right now (${error.message}); try again shortly or send amount instead`,
      )
    }
  }

  const requiredConfirmations = (asset: Asset): number => {
    const network = findNetwork(registry, asset.network)
    if (!network)
      throw new Error(`asset registry: network ${asset.network} of ${asset.currency} is not defined`)
    return network.requiredConfirmations
  }

  const create = async (
    { merchantId, request: body }: CreatePaymentInput,
    invoice?: { invoiceId: string; expiresAt: string },
  ): Promise<CreatePaymentOutcome> => {
    const merchant = await merchants.getMerchant(merchantId)
    if (merchant === null) {
      // the gateway only asks for merchants it authenticated: another caller, or a gateway on
      // another merchant store than this payment-command's
      logger.warn({ merchantId }, 'create refused: no such merchant in the merchant store')
      throw new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
    }
    const { feePolicy } = merchant
    // the one place a create's body is validated (docs/api.md, "Validation")
    const { request, asset, price } = validateCreatePaymentRequest(body, registry, policy)
    const paymentId =
      request.idempotencyKey === undefined
        ? newId()
        : paymentIdForIdempotencyKey(merchantId, request.idempotencyKey)
    const fingerprint = requestFingerprint(request)
    // kept across conflict retries: an index is spent at most once per call
    let allocated: ReceivingAddress | undefined
    const freshAddress = async () => {
      allocated ??=
        request.addressMode === 'PER_USER'
          ? await customerAddress(merchantId, request.merchantUserId, asset, paymentId)
          : await allocate(merchantId, asset)
      return allocated
    }
    // a fiat price's rate, locked once per call and before an address is spent: no rate, nothing created
    let locked: LockedRate | undefined
    const lockRate = async () => {
      locked ??= await lockRateFor(asset.currency, price?.currency)
      return locked
    }
    const result = await execute(paymentId, async ({ state }) => {
      // an existing stream is decided on as it is, without locking a rate or spending an address on it
      const rate = state.status === 'none' && price !== null ? await lockRate() : undefined
      const receivingAddress = state.status === 'none' ? await freshAddress() : storedAddress(state)
      return decidePayment(
        {
          type: 'CreatePayment',
          data: {
            paymentId,
            merchantId,
            request,
            requestFingerprint: fingerprint,
            asset,
            feePolicy,
            receivingAddress,
            requiredConfirmations: requiredConfirmations(asset),
            ...(rate === undefined ? {} : { rate }),
            ...(merchant.underpaymentTolerancePercent === undefined
              ? {}
              : { underpaymentTolerancePercent: merchant.underpaymentTolerancePercent }),
            ...(invoice === undefined ? {} : { invoice }),
            now: isoNow(clock),
          },
        },
        state,
      )
    })
    const snapshot = toSnapshot(result)
    return { outcome: result.appended.length > 0 ? 'created' : 'replayed', ...snapshot }
  }

  return {
    createPayment: (input) => create(input),

    createInvoicePayment: ({ invoice, ...input }) => create(input, invoice),

    async cancelPayment({ merchantId, paymentId, canceledBy = 'merchant' }): Promise<PaymentSnapshot> {
      const result = await execute(paymentId, ({ state }) =>
        decidePayment(
          { type: 'CancelPayment', data: { paymentId, merchantId, canceledBy, now: isoNow(clock) } },
          state,
        ),
      )
      return toSnapshot(result)
    },

    async getPayment({ merchantId, paymentId }): Promise<PaymentSnapshot | null> {
      const current = await loadPayment(eventStore, paymentId)
      if (current.state.status === 'none' || current.state.created.merchantId !== merchantId) return null
      return { payment: current.state, revision: current.revision }
    },

    async getPaymentHistory({ merchantId, paymentId }) {
      const recorded = await eventStore.readStream(toPaymentStreamId(paymentId))
      const entries = recorded.map((stored) => ({
        eventId: stored.eventId,
        recordedAt: stored.recordedAt,
        event: toPaymentEvent(stored),
      }))
      const first = entries[0]?.event
      if (first?.type !== 'PaymentCreated' || first.data.merchantId !== merchantId) return null
      return entries
    },

    async recordSweep(input): Promise<RecordSweepOutcome> {
      const { paymentId } = input
      const result = await execute(paymentId, ({ state }) =>
        decidePayment(
          {
            type: 'RecordSweep',
            data: { ...input, nativeAsset: nativeAssetOf(state), now: isoNow(clock) },
          },
          state,
        ),
      )
      const snapshot = toSnapshot(result)
      const sweep = snapshot.payment.sweeps.find(
        (recorded: Sweep) => recorded.txHash === input.txHash && recorded.currency === input.currency,
      )
      // the decider either recorded the sweep, found the same one, or threw
      if (sweep === undefined) throw new DomainError('INTERNAL_ERROR', 'the recorded sweep is missing')
      if (result.appended.length > 0) {
        logger.info(
          { paymentId, txHash: sweep.txHash, currency: sweep.currency, amountUnits: sweep.amountUnits },
          'sweep recorded',
        )
      }
      return { outcome: result.appended.length > 0 ? 'recorded' : 'replayed', sweep, ...snapshot }
    },

    async recordObservation(observation): Promise<void> {
      const { paymentId } = observation
      await execute(paymentId, async ({ state }) => {
        // a customer's address: a transfer of another of its payments is not this one's
        const elsewhere =
          state.status !== 'none' && observation.kind === 'transfer'
            ? await attributedElsewhere(eventStore, state, observation)
            : null
        // a customer's address: a transfer recorded as a deposit is never also this payment's
        // (deposit-or-payment.ts; the indexer may report it both ways, in either order)
        const deposit =
          elsewhere === null &&
          state.status !== 'none' &&
          state.created.addressMode === 'PER_USER' &&
          (await recordedAsDeposit(eventStore, observation))
        if (deposit) {
          logger.info(
            { paymentId, network: observation.network, txHash: observation.txHash },
            'chain observation of a transfer recorded as a deposit ignored',
          )
          return []
        }
        if (elsewhere !== null) {
          logger.info(
            { paymentId, network: observation.network, txHash: observation.txHash, reason: elsewhere },
            'chain observation of another payment of the address ignored',
          )
          return []
        }
        const mismatch = observationMismatch(observation, state)
        if (mismatch !== null) {
          logger.warn(
            { paymentId, network: observation.network, txHash: observation.txHash, reason: mismatch },
            'chain observation ignored',
          )
          return []
        }
        const now = isoNow(clock)
        const command =
          observation.kind === 'transfer'
            ? recordTransferObservationCommand(paymentId, observation, now)
            : recordForeignFundsCommand(paymentId, observation, now)
        return decidePayment(command, state)
      })
    },

    async expire(paymentId, chainTime): Promise<ExpireResult> {
      const result = await execute(paymentId, ({ state }) =>
        decidePayment({ type: 'ExpirePayment', data: { paymentId, now: isoNow(clock), chainTime } }, state),
      )
      if (result.appended.length > 0) return 'expired'
      if (result.state.status === 'none') {
        logger.warn({ paymentId }, 'expiry of an unknown payment; nothing to expire')
        return 'closed'
      }
      const { state } = result
      if (state.status === 'pending') return state.transfers.length === 0 ? 'not_due' : 'settling'
      return state.status === 'underpaid' && state.closedAt === null ? 'settling' : 'closed'
    },
  }

  /** the coin a sweep's fee is paid in: the native asset of the payment's network, served or not */
  function nativeAssetOf(state: PaymentState): { currency: string; decimals: number } | null {
    if (state.status === 'none') return null
    const native = familyRegistry.assets.find(
      (asset) => asset.network === state.created.network && asset.tokenStandard === 'NATIVE',
    )
    return native === undefined ? null : { currency: native.currency, decimals: native.decimals }
  }

  /**
   * A PER_USER payment's address: the customer's deposit address of the asset's family (created now
   * if it had none), claimed for this payment as the pair's one open payment (address-claims.ts)
   */
  async function customerAddress(
    merchantId: string,
    merchantUserId: string | undefined,
    asset: Asset,
    paymentId: string,
  ): Promise<ReceivingAddress> {
    if (deps.depositAddresses === undefined || merchantUserId === undefined) {
      throw new DomainError('VALIDATION_ERROR', 'addressMode: PER_USER is not served here')
    }
    const deposit = await deps.depositAddresses.depositAddressFor(merchantId, merchantUserId, asset.chain)
    await addressClaims.claim({ paymentId, address: deposit.address, asset })
    const tokenAccount =
      asset.chain === 'SOLANA' && asset.tokenStandard === 'SPL' && asset.contract !== null
        ? associatedTokenAccount(deposit.address, asset.contract)
        : null
    return {
      address: deposit.address,
      tokenAccount,
      derivationPath: deposit.derivationPath,
      walletId: deposit.walletId,
    }
  }

  /**
   * One index of the asset's chain family: the networks of a chain derive the same address from the
   * same index, so a testnet payment must never get an index a mainnet one had (docs/chains.md,
   * "Addresses: one sequence per chain family"). Of the merchant's own wallet when it has one, which
   * counts its indexes on its own.
   */
  async function allocate(merchantId: string, asset: Asset): Promise<ReceivingAddress> {
    const wallet = (await deps.merchantWallets?.deriverFor(merchantId)) ?? null
    const family = addressFamily(familyRegistry, asset.chain)
    if (wallet === null) {
      const pooled = (await deps.addressPool?.take(family, asset)) ?? null
      return pooled ?? deriver.derive(asset, await allocator.allocate(family))
    }
    return wallet.derive(asset, await allocator.allocate(family, wallet.keyIdOf(asset.chain)))
  }
}

function storedAddress(payment: OpenPayment): ReceivingAddress {
  const { address, tokenAccount, derivationPath, walletId } = payment.created
  return { address, tokenAccount, derivationPath, walletId }
}

function toSnapshot({ state, revision }: LoadedPayment): PaymentSnapshot {
  // every command that gets here either found the payment or created it; the decider threw otherwise
  if (state.status === 'none') throw new DomainError('INTERNAL_ERROR', 'payment state is missing')
  return { payment: state, revision }
}

/**
 * why an observation does not belong to the payment it names; null when it does. The payment's
 * address is its own, its token account, and on Solana every token account its address owns
 * (decisions 16 and 19), which the observation names as `owner`.
 */
function observationMismatch(
  observation: TransferObservation | ForeignFundsObservation,
  state: PaymentState,
): string | null {
  if (state.status === 'none') return 'unknown payment'
  const { network, address, tokenAccount } = state.created
  if (observation.network !== network) return `the payment is on ${network}, not ${observation.network}`
  const own = observation.address === address || observation.address === tokenAccount
  if (!own && observation.owner !== address) {
    const owner = observation.owner === undefined ? '' : ` owned by ${observation.owner}`
    return `the payment's address is ${address}, not ${observation.address}${owner}`
  }
  return null
}

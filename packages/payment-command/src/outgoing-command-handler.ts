// The command side of refunds and payouts (docs/api.md, "Refunds and payouts"): each one's own stream,
// and the merchant's ledger stream as the one point where creates are serialized (merchant-ledger.ts
// in @chainpay/domain): a create reserves its amount on the ledger with the expected revision, decided
// again after a conflicting append, and only then writes its own stream. A cancel or a failure writes
// its own stream first and then releases the reservation; both steps are idempotent, so a retry of
// either after a crash completes it. Reads are answered from the event store, the source of truth.

import { randomUUID } from 'node:crypto'
import {
  type Asset,
  type AssetRegistry,
  type Chain,
  DomainError,
  decideLedger,
  decidePayout,
  decideRefund,
  evolveLedger,
  findNetwork,
  fractionDigits,
  holdsFunds,
  isDecimalAmount,
  type LedgerCommand,
  type LedgerEntry,
  type LedgerEvent,
  type LedgerState,
  OPERATOR_WALLET_ID,
  type Outgoing,
  type OutgoingKind,
  type OutgoingLifecycleCommand,
  type OutgoingState,
  paymentFinalFunds,
  paymentIdForIdempotencyKey,
  paymentWalletId,
  type RefundEvent,
  type RefundHistoryEntry,
  requestFingerprint,
  toLedgerStreamId,
  toUnits,
  validatePayoutRequest,
  validateRefundRequest,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type CreateOutgoingOutcome,
  type EventStore,
  type MerchantBalance,
  type MerchantStore,
  type OutgoingCommands,
  type OutgoingPage,
  type OutgoingSnapshot,
  type ReceivedNetTotals,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import {
  evolveOutgoing,
  type Loaded,
  loadLedger,
  loadOutgoing,
  type OutgoingEvent,
  outgoingStreamId,
  toNewOutgoingEvent,
  toOutgoingEvent,
} from './outgoing-streams.js'
import { loadPayment } from './payment-stream.js'

export interface OutgoingCommandHandlerDeps {
  eventStore: EventStore
  /**
   * each merchant's received net per asset, the running totals the projection keeps: they may lag
   * the event store, never lead it, so a balance read there is never more than the truth (docs/api.md,
   * "Balances"; docs/capacity.md, "Refunds and payouts")
   */
  receivedNet: Pick<ReceivedNetTotals, 'totalsOf' | 'countedOf'>
  /** the merchant's own wallet, which pays its payouts; the operator's when none */
  merchantWallets?: { deriverFor(merchantId: string): Promise<{ walletId: string } | null> }
  /** every merchant, for the operator's list of what is to be sent */
  merchants: Pick<MerchantStore, 'listMerchants'>
  /** the whole registry: refunds of a network no longer served still need its asset */
  registry: AssetRegistry
  clock: Clock
  newId?: () => string
  logger: Logger
  /** how often a command is decided again after a conflicting append; default 50 (many creates race) */
  maxConflictRetries?: number
}

export function createOutgoingCommandHandler(deps: OutgoingCommandHandlerDeps): OutgoingCommands {
  const { eventStore, registry, clock, logger } = deps
  const newId = deps.newId ?? randomUUID
  const maxConflictRetries = deps.maxConflictRetries ?? 50

  async function appendDecided<State, Event extends OutgoingEvent | LedgerEvent>(
    streamId: string,
    load: () => Promise<Loaded<State>>,
    decide: (state: State) => Event[],
    evolve: (state: State, event: Event) => State,
  ): Promise<Loaded<State> & { appended: Event[] }> {
    for (let attempt = 0; ; attempt++) {
      const current = await load()
      const events = decide(current.state)
      if (events.length === 0) return { ...current, appended: [] }
      try {
        const result = await eventStore.appendToStream(
          streamId,
          events.map((event) => toNewOutgoingEvent(event, newId())),
          current.revision === -1 ? 'no_stream' : current.revision,
        )
        return {
          state: events.reduce(evolve, current.state),
          revision: result.nextExpectedRevision,
          appended: events,
        }
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxConflictRetries) throw error
        logger.debug({ streamId, attempt: attempt + 1 }, 'conflicting append; deciding again')
      }
    }
  }

  const chainOf = (network: string): Chain => {
    const definition = findNetwork(registry, network)
    if (definition === undefined)
      throw new DomainError('INTERNAL_ERROR', `network ${network} is not in the registry`)
    return definition.chain
  }

  const decideItem =
    (kind: OutgoingKind, chain: Chain) =>
    (command: Parameters<typeof decideRefund>[0], state: OutgoingState) =>
      kind === 'refund'
        ? decideRefund(command, state, chain)
        : decidePayout(command as Parameters<typeof decidePayout>[0], state, chain)

  /** appends what `command` decides on the item's stream */
  const executeItem = (
    kind: OutgoingKind,
    id: string,
    chain: Chain,
    command: Parameters<typeof decideRefund>[0],
  ) =>
    appendDecided<OutgoingState, OutgoingEvent>(
      outgoingStreamId(kind, id),
      () => loadOutgoing(eventStore, kind, id),
      (state) => decideItem(kind, chain)(command, state),
      (state, event) => evolveOutgoing(kind, state, event),
    )

  const executeLedger = (merchantId: string, command: LedgerCommand) =>
    appendDecided(
      toLedgerStreamId(merchantId),
      () => loadLedger(eventStore, merchantId),
      (state: LedgerState) => decideLedger(command, state),
      evolveLedger,
    )

  /**
   * the merchant's received net per asset key `${network}:${currency}`, from the read side's running
   * totals: one read, whatever the number of the merchant's payments
   */
  async function receivedNet(
    merchantId: string,
    network?: string,
  ): Promise<Map<string, { units: bigint; decimals: number }>> {
    const totals = await deps.receivedNet.totalsOf(merchantId, network)
    return new Map(
      totals.map((total) => [
        `${total.network}:${total.currency}`,
        { units: total.units, decimals: total.decimals },
      ]),
    )
  }

  /** reserves on the ledger, then writes the item's stream; an existing item is a replay or a reuse */
  async function create(
    kind: OutgoingKind,
    merchantId: string,
    idempotencyKey: string,
    chain: Chain,
    command: Parameters<typeof decideRefund>[0],
    reserve: (id: string, created: Record<string, unknown>) => Promise<void>,
  ): Promise<CreateOutgoingOutcome> {
    const id = paymentIdForIdempotencyKey(merchantId, `${kind}\n${idempotencyKey}`)
    const existing = await loadOutgoing(eventStore, kind, id)
    if (existing.state.status !== 'none') {
      decideItem(kind, chain)(command, existing.state)
      return { outcome: 'replayed', item: existing.state, revision: existing.revision }
    }
    // what the item's stream will hold, recorded with the reservation (merchant-ledger.ts)
    const [createdEvent] = decideItem(kind, chain)(command, existing.state)
    await reserve(id, { ...(createdEvent?.data ?? {}) })
    const result = await executeItem(kind, id, chain, command)
    if (result.state.status === 'none') throw new DomainError('INTERNAL_ERROR', `${kind} state is missing`)
    if (result.appended.length > 0)
      logger.info(
        { kind, id, merchantId, amount: result.state.amount, currency: result.state.currency },
        `${kind} created`,
      )
    return {
      outcome: result.appended.length > 0 ? 'created' : 'replayed',
      item: result.state,
      revision: result.revision,
    }
  }

  /**
   * after a cancel or a failure the amount counts as available (and refundable) again; after a
   * completion it stays spent, and the ledger no longer counts the item as open
   */
  async function releaseIfDone(item: Outgoing): Promise<void> {
    if (item.status === 'completed') {
      await executeLedger(item.merchantId, {
        type: 'Settle',
        data: { merchantId: item.merchantId, kind: item.kind, id: item.id, now: isoNow(clock) },
      })
      return
    }
    if (holdsFunds(item)) return
    await executeLedger(item.merchantId, {
      type: 'Release',
      data: {
        merchantId: item.merchantId,
        kind: item.kind,
        id: item.id,
        reason: item.status === 'failed' ? 'failed' : 'canceled',
        now: isoNow(clock),
      },
    })
  }

  async function lifecycle(
    kind: OutgoingKind,
    id: string,
    command: OutgoingLifecycleCommand,
    merchantId?: string,
  ): Promise<OutgoingSnapshot> {
    const current = await loadOutgoing(eventStore, kind, id)
    if (
      current.state.status === 'none' ||
      (merchantId !== undefined && current.state.merchantId !== merchantId)
    )
      throw new DomainError(
        kind === 'refund' ? 'REFUND_NOT_FOUND' : 'PAYOUT_NOT_FOUND',
        `${kind} ${id} not found`,
      )
    const result = await executeItem(kind, id, chainOf(current.state.network), command)
    const item = result.state as Outgoing
    await releaseIfDone(item)
    if (result.appended.length > 0) logger.info({ kind, id, status: item.status }, `${kind} ${item.status}`)
    return { item, revision: result.revision }
  }

  /**
   * The item of a reservation. A crash between the reservation and the item's first event leaves the
   * reservation alone: its stream is written here from what the reservation recorded (the same
   * event a retry of the create would write; an append that finds the stream written meanwhile
   * changes nothing).
   */
  async function loadOrMend(entry: LedgerEntry): Promise<OutgoingState> {
    const loaded = await loadOutgoing(eventStore, entry.kind, entry.id)
    if (loaded.state.status !== 'none' || entry.created === undefined) return loaded.state
    const type = entry.kind === 'refund' ? 'RefundCreated' : 'PayoutCreated'
    const event = { type, data: entry.created } as unknown as OutgoingEvent
    try {
      await eventStore.appendToStream(
        outgoingStreamId(entry.kind, entry.id),
        [toNewOutgoingEvent(event, newId())],
        'no_stream',
      )
      logger.warn(
        { kind: entry.kind, id: entry.id },
        'a reserved item without its stream: written from its reservation',
      )
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error
    }
    return (await loadOutgoing(eventStore, entry.kind, entry.id)).state
  }

  async function page(
    ids: LedgerEntry[],
    wanted: (item: Outgoing) => boolean,
    start: number,
    limit: number,
  ): Promise<OutgoingPage> {
    const data: Outgoing[] = []
    let index = start
    for (; index < ids.length && data.length < limit; index++) {
      const entry = ids[index]
      if (entry === undefined) continue
      const state = await loadOrMend(entry)
      if (state.status === 'none') continue
      if (wanted(state)) data.push(state)
    }
    const last = ids[index - 1]
    return {
      data,
      nextCursor: data.length === limit && index < ids.length && last ? encodeCursor(last.id) : null,
    }
  }

  return {
    async createRefund({ merchantId, paymentId, request: body }) {
      const payment = await loadPayment(eventStore, paymentId)
      if (payment.state.status === 'none' || payment.state.created.merchantId !== merchantId)
        throw new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
      const { created } = payment.state
      const asset = registry.assets.find(
        (candidate) => candidate.network === created.network && candidate.currency === created.currency,
      )
      if (asset === undefined)
        throw new DomainError(
          'UNSUPPORTED_ASSET',
          `${created.currency} on ${created.network} is no longer supported`,
        )
      const request = validateRefundRequest(body, asset)
      const fingerprint = requestFingerprint({ paymentId, ...request })
      const now = isoNow(clock)
      const command = {
        type: 'CreateRefund' as const,
        data: {
          id: '',
          paymentId,
          merchantId,
          network: created.network,
          currency: created.currency,
          decimals: created.decimals,
          amount: request.amount,
          address: request.address ?? null,
          reason: request.reason ?? null,
          walletId: paymentWalletId(created),
          idempotencyKey: request.idempotencyKey,
          requestFingerprint: fingerprint,
          now,
        },
      }
      command.data.id = paymentIdForIdempotencyKey(merchantId, `refund\n${request.idempotencyKey}`)
      return create(
        'refund',
        merchantId,
        request.idempotencyKey,
        asset.chain,
        command,
        async (id, createdData) => {
          const funds = paymentFinalFunds(payment.state as Exclude<typeof payment.state, { status: 'none' }>)
          if (funds.grossUnits === 0n) {
            throw new DomainError(
              'REFUND_NOT_ALLOWED',
              `payment ${paymentId} is ${payment.state.status}: a refund is allowed once funds of the payment are final (confirmed, overpaid, underpaid made final, late funds)`,
            )
          }
          const totals = await receivedNet(merchantId, created.network)
          const total = totals.get(`${created.network}:${created.currency}`)
          // this payment's share from the source of truth, the others' from the read side: the most
          // of it the total may hold is read after the total, so `others` is never more than theirs
          const counted = await deps.receivedNet.countedOf(paymentId)
          const others = (total?.units ?? 0n) - counted
          await executeLedger(merchantId, {
            type: 'Reserve',
            data: {
              merchantId,
              kind: 'refund',
              id,
              paymentId,
              network: created.network,
              currency: created.currency,
              amountUnits: toUnits(request.amount, created.decimals).toString(),
              decimals: created.decimals,
              refundableUnits: funds.grossUnits,
              receivedNetUnits: others + funds.netUnits,
              created: createdData,
              now,
            },
          })
        },
      )
    },

    async createPayout({ merchantId, request: body }) {
      const { request, asset } = validatePayoutRequest(body, registry)
      const fingerprint = requestFingerprint(request)
      const now = isoNow(clock)
      const wallet = (await deps.merchantWallets?.deriverFor(merchantId)) ?? null
      const id = paymentIdForIdempotencyKey(merchantId, `payout\n${request.idempotencyKey}`)
      const command = {
        type: 'CreatePayout' as const,
        data: {
          id,
          merchantId,
          network: asset.network,
          currency: asset.currency,
          decimals: asset.decimals,
          amount: request.amount,
          address: request.address,
          metadata: request.metadata ?? {},
          walletId: wallet?.walletId ?? OPERATOR_WALLET_ID,
          idempotencyKey: request.idempotencyKey,
          requestFingerprint: fingerprint,
          now,
        },
      }
      return create(
        'payout',
        merchantId,
        request.idempotencyKey,
        asset.chain,
        command as never,
        async (_id, createdData) => {
          const totals = await receivedNet(merchantId, asset.network)
          await executeLedger(merchantId, {
            type: 'Reserve',
            data: {
              merchantId,
              kind: 'payout',
              id,
              paymentId: null,
              network: asset.network,
              currency: asset.currency,
              amountUnits: toUnits(request.amount, asset.decimals).toString(),
              decimals: asset.decimals,
              refundableUnits: null,
              receivedNetUnits: totals.get(`${asset.network}:${asset.currency}`)?.units ?? 0n,
              created: createdData,
              now,
            },
          })
        },
      )
    },

    cancelOutgoing({ merchantId, kind, id }) {
      return lifecycle(kind, id, { type: 'Cancel', data: { merchantId, now: isoNow(clock) } }, merchantId)
    },

    async getOutgoing({ kind, id, merchantId }) {
      const current = await loadOutgoing(eventStore, kind, id)
      if (current.state.status === 'none') return null
      if (merchantId !== undefined && current.state.merchantId !== merchantId) return null
      return { item: current.state, revision: current.revision }
    },

    async listOutgoing({ merchantId, kind, limit, cursor, statuses, paymentId }) {
      const { state } = await loadLedger(eventStore, merchantId)
      // newest first: the ledger holds them in the order they were created
      const ids = state.entries
        .filter((entry) => entry.kind === kind && (paymentId === undefined || entry.paymentId === paymentId))
        .reverse()
      const start = cursor === undefined ? 0 : ids.findIndex((entry) => entry.id === decodeCursor(cursor)) + 1
      if (cursor !== undefined && start === 0)
        throw new DomainError('VALIDATION_ERROR', 'cursor: not a cursor of this list')
      return page(ids, (item) => statusWanted(statuses, item), start, limit)
    },

    async listOperatorOutgoing({ network, statuses, walletId, limit, cursor }) {
      // every merchant's ledger, in the order they were reserved (the order the procedure pays them)
      const merchants = await merchantIds()
      const ids: LedgerEntry[] = []
      for (const merchantId of merchants) {
        const { state } = await loadLedger(eventStore, merchantId)
        for (const entry of state.entries) {
          if (entry.network !== network || entry.released) continue
          // a completed one is read only when asked for: the open ones are what the procedure plans
          if (entry.settled && !statuses.includes('completed')) continue
          ids.push(entry)
        }
      }
      const start = cursor === undefined ? 0 : ids.findIndex((entry) => entry.id === decodeCursor(cursor)) + 1
      if (cursor !== undefined && start === 0)
        throw new DomainError('VALIDATION_ERROR', 'cursor: not a cursor of this list')
      return page(
        ids,
        (item) => statusWanted(statuses, item) && (walletId === undefined || item.walletId === walletId),
        start,
        limit,
      )
    },

    async giveRefundAddress({ refundId, address }) {
      const current = await loadOutgoing(eventStore, 'refund', refundId)
      if (current.state.status === 'none')
        throw new DomainError('REFUND_NOT_FOUND', `refund ${refundId} not found`)
      const result = await executeItem('refund', refundId, chainOf(current.state.network), {
        type: 'GiveAddress',
        data: { address, now: isoNow(clock) },
      })
      return { item: result.state as Outgoing, revision: result.revision }
    },

    recordOutgoingStep({ kind, id, step }) {
      const now = isoNow(clock)
      const command = ((): OutgoingLifecycleCommand => {
        switch (step.type) {
          case 'Plan':
            return { type: 'Plan', data: { planId: step.planId, now } }
          case 'Release':
            return { type: 'Release', data: { planId: step.planId, now } }
          case 'MarkSent':
            return { type: 'MarkSent', data: { planId: step.planId, txHash: step.txHash, now } }
          case 'Complete':
            return {
              type: 'Complete',
              data: { txHash: step.txHash, networkFee: networkFeeOf(step.networkFee), now },
            }
          case 'Fail':
            return { type: 'Fail', data: { txHash: step.txHash, reason: step.reason, now } }
          default: {
            const unknown: never = step
            throw new DomainError('VALIDATION_ERROR', `unknown step ${(unknown as { type: string }).type}`)
          }
        }
      })()
      return lifecycle(kind, id, command)
    },

    async getRefundHistory({ merchantId, paymentId }) {
      const { state } = await loadLedger(eventStore, merchantId)
      const refunds = state.entries.filter(
        (entry) => entry.kind === 'refund' && entry.paymentId === paymentId,
      )
      const entries: RefundHistoryEntry[] = []
      for (const refund of refunds) {
        for (const recorded of await eventStore.readStream(outgoingStreamId('refund', refund.id))) {
          const event = toOutgoingEvent('refund', recorded) as RefundEvent
          entries.push({
            eventId: recorded.eventId,
            recordedAt: recorded.recordedAt,
            type: event.type,
            data: { ...event.data },
          })
        }
      }
      return entries
    },

    async getBalances({ merchantId }) {
      const totals = await receivedNet(merchantId)
      const { state } = await loadLedger(eventStore, merchantId)
      const balances = new Map<string, MerchantBalance & { net: bigint; refunded: bigint; paidOut: bigint }>()
      const row = (network: string, currency: string, decimals: number) => {
        const key = `${network}:${currency}`
        let balance = balances.get(key)
        if (balance === undefined) {
          balance = {
            network,
            currency,
            decimals,
            receivedNetUnits: '0',
            refundedUnits: '0',
            paidOutUnits: '0',
            availableUnits: '0',
            net: 0n,
            refunded: 0n,
            paidOut: 0n,
          }
          balances.set(key, balance)
        }
        return balance
      }
      for (const [key, total] of totals) {
        const [network = '', currency = ''] = key.split(':')
        row(network, currency, total.decimals).net += total.units
      }
      for (const entry of state.entries) {
        if (entry.released) continue
        const asset = registry.assets.find(
          (candidate) => candidate.network === entry.network && candidate.currency === entry.currency,
        )
        const balance = row(entry.network, entry.currency, asset?.decimals ?? 0)
        if (entry.kind === 'refund') balance.refunded += BigInt(entry.amountUnits)
        else balance.paidOut += BigInt(entry.amountUnits)
      }
      return [...balances.values()]
        .sort((a, b) => `${a.network}:${a.currency}`.localeCompare(`${b.network}:${b.currency}`))
        .map(({ net, refunded, paidOut, ...balance }) => ({
          ...balance,
          receivedNetUnits: net.toString(),
          refundedUnits: refunded.toString(),
          paidOutUnits: paidOut.toString(),
          availableUnits: (net - refunded - paidOut).toString(),
        }))
    },
  }

  async function merchantIds(): Promise<string[]> {
    return (await deps.merchants.listMerchants()).map((merchant) => merchant.merchantId)
  }

  function networkFeeOf(fee: { currency: string; amount: string }) {
    const asset: Asset | undefined = registry.assets.find(
      (candidate) => candidate.currency === fee.currency && candidate.tokenStandard === 'NATIVE',
    )
    if (asset === undefined)
      throw new DomainError(
        'VALIDATION_ERROR',
        `networkFee.currency: ${fee.currency} is no native coin of the registry`,
      )
    if (!isDecimalAmount(fee.amount) || fractionDigits(fee.amount) > asset.decimals)
      throw new DomainError(
        'VALIDATION_ERROR',
        `networkFee.amount: expected a decimal string with at most ${asset.decimals} decimals`,
      )
    return {
      currency: asset.currency,
      decimals: asset.decimals,
      amountUnits: toUnits(fee.amount, asset.decimals).toString(),
    }
  }
}

function statusWanted(statuses: readonly string[] | undefined, item: Outgoing): boolean {
  return statuses === undefined || statuses.length === 0 || statuses.includes(item.status)
}

function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url')
}

function decodeCursor(cursor: string): string {
  return Buffer.from(cursor, 'base64url').toString('utf8')
}

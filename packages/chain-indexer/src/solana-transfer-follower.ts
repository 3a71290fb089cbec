// The transfers the Solana address watcher has seen and follows until the chain decides them
// (docs/chains.md, "Solana by address: the watcher"; "Forks: transfers in doubt"). A transfer is read
// at confirmed (one confirmation); a signatureSubscribe at finalized says, without a call, when it
// is final and at which slot. A fork sends no notification: a transfer not final when it should be
// has its status asked (getSignatureStatuses, batched), and one the node no longer knows is in doubt
// until it comes back, fails or can no longer be included. What a status means is gathered here as
// evidence; what follows from it is the one transfer lifecycle's decision (transfer-lifecycle.ts).
// Observations wait in an outbox until the bus took them; a transfer is untracked only after its
// last observation was published.

import { BLOCKHASH_EXPIRY_MS } from '@chainpay/chain-solana'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type AddressTransaction,
  type Bus,
  type BusMessage,
  type ChainIndexerStore,
  type SignatureState,
  type SolanaAddressReader,
  Topics,
  type TrackedTransfer,
} from '@chainpay/ports'
import { depositOwnerOf } from './deposit-payees.js'
import {
  type ChainEvidence,
  firstSighting,
  isInDoubt,
  type LifecycleStep,
  nextStep,
  stepObservations,
} from './transfer-lifecycle.js'

/**
 * a transfer normally finalizes some 13 s after it is confirmed, and its finality subscription says
 * so without a call; one not final after this has its status asked (a fork may have taken it back)
 */
export const FINALITY_OVERDUE_MS = 60_000
/** how often the status of a transfer in doubt is asked, until it is back, failed or expired */
export const IN_DOUBT_RECHECK_MS = 5_000
/** Solana's slot time: how soon a transfer final below its payment's requirement may reach it */
const SLOT_MS = 400
/**
 * the confirmations a finalized transaction has at least: its slot is rooted, which Tower BFT does
 * once 31 confirmed slots are voted on top of it (MAX_LOCKOUT_HISTORY); getSignatureStatuses then
 * answers `confirmations: null`, "rooted". A count past it comes from the slots seen since.
 */
export const FINALIZED_CONFIRMATIONS = 32

/** a transfer's confirmations at `slot`, the node's: at least FINALIZED_CONFIRMATIONS once final */
function confirmationsAt(slot: number, transferSlot: number, finalized: boolean): number {
  const counted = Math.max(1, slot - transferSlot + 1)
  return finalized ? Math.max(FINALIZED_CONFIRMATIONS, counted) : counted
}
/** how long close() waits for the node to confirm the unsubscriptions (the watcher's too) */
export const CLOSE_WAIT_MS = 2_000

export interface SolanaTransferFollower {
  /** reads the transfers the store tracks (a restart): their statuses are asked at the next tick */
  load(): Promise<void>
  /** whether a transaction is followed already: it is not read again */
  follows(signature: string): boolean
  /** the transfers of a transaction read at confirmed: tracked, reported seen, followed until final */
  seen(transaction: AddressTransaction, transfers: TrackedTransfer[]): Promise<void>
  /** asks the status of every transfer not final yet at the next tick (a reconnect: notifications were lost) */
  recountAll(): void
  /** true when a tick has something to do now */
  readonly due: boolean
  /** asks what is overdue, acts on what the subscriptions said, publishes, untracks what ended */
  tick(): Promise<void>
  /** transfers followed until final */
  readonly following: number
  /** ends the finality subscriptions (the process stops) */
  close(): Promise<void>
}

export interface SolanaTransferFollowerOptions {
  network: string
  reader: SolanaAddressReader
  bus: Bus
  clock: Clock
  store: ChainIndexerStore
  logger: Logger
  /** called when a subscription said something: the caller's loop runs a tick soon */
  onDue?: () => void
}

export function createSolanaTransferFollower(options: SolanaTransferFollowerOptions): SolanaTransferFollower {
  const { network, reader, bus, clock, store, logger } = options
  /** transfers seen and not final yet, by signature */
  const pending = new Map<string, TrackedTransfer[]>()
  /** when (by the clock) the status of a pending signature is asked, unless it is final by then */
  const checkAt = new Map<string, number>()
  /** pending signatures whose status the next tick asks */
  const recountDue = new Set<string>()
  /** what the finality subscriptions said, not acted on yet */
  const finalized = new Map<string, { failed: boolean; slot: number }>()
  const finalityWatches = new Map<string, () => Promise<void>>()
  /** signatures whose finality subscription notified (and so ended by itself) */
  const notified = new Set<string>()
  /** observations not published yet, in order */
  const outbox: BusMessage[] = []
  /** transfers that ended (final or dropped), untracked once their last observation is published */
  const ended: TrackedTransfer[] = []

  const nowMs = () => clock.now().getTime()

  function watchFinality(signature: string): void {
    if (finalityWatches.has(signature)) return
    finalityWatches.set(
      signature,
      reader.onFinalized(signature, (outcome) => {
        logger.debug({ txHash: signature, ...outcome }, 'finality notified')
        notified.add(signature)
        finalized.set(signature, outcome)
        options.onDue?.()
      }),
    )
  }

  function report(steps: LifecycleStep[]): void {
    outbox.push(...stepObservations(steps, isoNow(clock), logger))
  }

  /** applies the lifecycle's steps of one signature's transfers: kept (and stored) or ended */
  async function settle(signature: string, steps: LifecycleStep[]): Promise<void> {
    if (steps.length === 0) return
    // all kept before anything is reported: a store that fails has the whole step made again
    for (const step of steps) if (step.follow) await store.track(step.transfer)
    report(steps)
    const kept = (pending.get(signature) ?? []).map(
      (transfer) => steps.find((step) => sameTransfer(step.transfer, transfer))?.transfer ?? transfer,
    )
    const stillFollowed = kept.filter((transfer) =>
      steps.every((step) => !sameTransfer(step.transfer, transfer) || step.follow),
    )
    if (stillFollowed.length === kept.length) {
      pending.set(signature, kept)
      return
    }
    ended.push(...kept.filter((transfer) => !stillFollowed.includes(transfer)))
    if (stillFollowed.length > 0) pending.set(signature, stillFollowed)
    else await end(signature)
  }

  /** the steps that evidence about a signature gives its transfers */
  function stepsOf(signature: string, evidence: ChainEvidence): LifecycleStep[] {
    return (pending.get(signature) ?? []).flatMap((transfer) => nextStep(transfer, evidence) ?? [])
  }

  /**
   * What a status says of a followed signature, as evidence (docs/chains.md, "Forks: transfers in
   * doubt"); undefined when it says nothing yet. A node that does not know the signature has
   * forgotten it only if it is past its slot (a node behind knows nothing of it yet); one in doubt
   * is gone once its blockhash expired on the chain. Back on the chain, its block is read again
   * (getTransaction), which names where it is now.
   */
  async function evidenceOf(
    signature: string,
    state: SignatureState | null,
    contextSlot: number,
    chainTime: () => Promise<number>,
  ): Promise<ChainEvidence | undefined> {
    const transfers = pending.get(signature) ?? []
    const [first] = transfers
    if (first === undefined) return undefined
    if (state === null) {
      if (contextSlot < first.blockHeight) return undefined
      if (!isInDoubt(first)) return { kind: 'missing', gone: false, lookUntilHeight: first.blockHeight }
      const expiresAtMs = Math.max(
        ...transfers.map((transfer) => Date.parse(transfer.expiresAt ?? transfer.blockTime)),
      )
      // the clock first: the chain time costs calls, and cannot be past the expiry before the clock is
      if (expiresAtMs >= nowMs() || (await chainTime()) <= expiresAtMs) return undefined
      return { kind: 'missing', gone: true, lookUntilHeight: first.blockHeight }
    }
    if (state.failed) return { kind: 'failed' }
    const confirmations = confirmationsAt(contextSlot, state.slot, state.finalized)
    if (!isInDoubt(first)) return { kind: 'included', confirmations, finalOnChain: state.finalized }
    const transaction = await reader.transaction(signature)
    if (transaction === null) return undefined
    logger.info({ txHash: signature, slot: transaction.slot }, 'transfer in doubt back on chain')
    return {
      kind: 'included',
      block: {
        height: transaction.slot,
        // getTransaction does not name the block's hash; forks are followed by status, not hash
        hash: '',
        time: transaction.blockTime,
        expiresAt: new Date(Date.parse(transaction.blockTime) + BLOCKHASH_EXPIRY_MS).toISOString(),
      },
      confirmations,
      finalOnChain: state.finalized,
    }
  }

  /** when a followed signature's status is asked next, from what its transfers are now */
  function schedule(signature: string, finalCount?: number): void {
    const transfers = pending.get(signature)
    if (transfers === undefined) return
    const [first] = transfers
    if (first === undefined) return
    if (isInDoubt(first)) checkAt.set(signature, nowMs() + IN_DOUBT_RECHECK_MS)
    else if (finalCount !== undefined) {
      // final on the chain below a requirement set deeper than finality: when the count gets there
      checkAt.set(signature, nowMs() + Math.max(1, first.requiredConfirmations - finalCount) * SLOT_MS)
    } else checkAt.set(signature, nowMs() + FINALITY_OVERDUE_MS)
  }

  /** statuses of what is due, in batches: calls only for what is late, in doubt or recounted */
  async function recount(): Promise<void> {
    const now = nowMs()
    for (const [signature, at] of checkAt) if (at <= now) recountDue.add(signature)
    for (const signature of recountDue) {
      if (!pending.has(signature) || finalized.has(signature)) recountDue.delete(signature)
    }
    if (recountDue.size === 0) return
    let chainTimeMs: number | undefined
    const chainTime = async () => {
      chainTimeMs ??= Date.parse((await reader.chainTime()).blockTime)
      return chainTimeMs
    }
    const { contextSlot, states } = await reader.statuses([...recountDue])
    for (const [signature, state] of states) {
      const evidence = await evidenceOf(signature, state, contextSlot, chainTime)
      recountDue.delete(signature)
      if (evidence !== undefined) await settle(signature, stepsOf(signature, evidence))
      const finalCount = state?.finalized ? confirmationsAt(contextSlot, state.slot, true) : undefined
      schedule(signature, finalCount)
    }
  }

  /** what the finality subscriptions said: final (at the slot they name) or failed */
  async function actOnFinality(): Promise<void> {
    for (const [signature, outcome] of finalized) {
      finalized.delete(signature)
      const transfers = pending.get(signature)
      if (transfers === undefined) continue
      if (outcome.failed) {
        await settle(signature, stepsOf(signature, { kind: 'failed' }))
        continue
      }
      // final while in doubt (a status asked later has not seen it back yet): its status says where
      if (transfers.some(isInDoubt)) {
        recountDue.add(signature)
        continue
      }
      const [first] = transfers
      const confirmations = confirmationsAt(outcome.slot, first?.blockHeight ?? outcome.slot, true)
      await settle(signature, stepsOf(signature, { kind: 'included', confirmations, finalOnChain: true }))
      schedule(signature, confirmations)
    }
  }

  /** stops following a signature; its transfers are untracked once reported */
  async function end(signature: string): Promise<void> {
    pending.delete(signature)
    checkAt.delete(signature)
    recountDue.delete(signature)
    finalized.delete(signature)
    const stop = finalityWatches.get(signature)
    finalityWatches.delete(signature)
    // a subscription that notified has ended by itself (web3.js); one that did not is ended here
    if (stop !== undefined && !notified.delete(signature)) {
      await stop().catch((error: unknown) =>
        logger.warn({ err: error, txHash: signature }, 'unsubscribe failed'),
      )
    }
  }

  /** publishes the outbox, then untracks what ended: a crash in between publishes again, idempotent downstream */
  async function flush(): Promise<void> {
    if (outbox.length > 0) {
      const published = outbox.length
      await bus.publish(Topics.chainObservations, outbox.slice(0, published))
      outbox.splice(0, published)
    }
    while (ended.length > 0) {
      const [transfer] = ended as [TrackedTransfer]
      await store.untrack(network, transfer.txHash, transfer.index)
      ended.shift()
    }
  }

  return {
    get following() {
      return [...pending.values()].reduce((sum, transfers) => sum + transfers.length, 0)
    },

    get due() {
      if (recountDue.size > 0 || finalized.size > 0 || outbox.length > 0 || ended.length > 0) return true
      const now = nowMs()
      for (const at of checkAt.values()) if (at <= now) return true
      return false
    },

    follows: (signature) => pending.has(signature),

    async load() {
      // a start after a stop in the same process reads them anew
      pending.clear()
      recountDue.clear()
      checkAt.clear()
      finalized.clear()
      notified.clear()
      for (const transfer of await store.listTracked(network)) {
        pending.set(transfer.txHash, [...(pending.get(transfer.txHash) ?? []), transfer])
        recountDue.add(transfer.txHash)
        watchFinality(transfer.txHash)
      }
    },

    async seen(transaction, transfers) {
      const signature = transaction.txHash
      if (transfers.length === 0 || pending.has(signature)) return
      // read at confirmed: one confirmation, final once the node finalizes it
      const steps = transfers.map((transfer) =>
        firstSighting(transfer, { kind: 'included', confirmations: 1, finalOnChain: false }),
      )
      for (const step of steps) await store.track(step.transfer)
      // foreign funds are recorded once final: their first sighting is not news; a deposit's is
      report(
        steps.filter(
          (step) => step.transfer.foreign === null || depositOwnerOf(step.transfer.paymentId) !== undefined,
        ),
      )
      pending.set(
        signature,
        steps.map((step) => step.transfer),
      )
      schedule(signature)
      watchFinality(signature)
    },

    recountAll() {
      for (const signature of pending.keys()) recountDue.add(signature)
    },

    async tick() {
      await actOnFinality()
      await recount()
      await flush()
    },

    async close() {
      const ends = [...finalityWatches].flatMap(([signature, end]) => (notified.has(signature) ? [] : [end]))
      finalityWatches.clear()
      // Awaited while the node still answers: closing the socket under unsubscriptions in flight
      // makes web3.js 1.99 retry them in a loop that never yields. A node that does not answer is
      // not waited for longer than CLOSE_WAIT_MS.
      await settledWithin(ends, CLOSE_WAIT_MS)
    },
  }
}

const sameTransfer = (a: TrackedTransfer, b: TrackedTransfer) => a.txHash === b.txHash && a.index === b.index

/** runs every end and waits for them, at most `ms` */
export async function settledWithin(ends: Array<() => Promise<void>>, ms: number): Promise<void> {
  const settled = Promise.allSettled(ends.map((end) => end()))
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms)
    timer.unref()
  })
  await Promise.race([settled, waited])
  clearTimeout(timer)
}

// Read your writes (docs/architecture.md, "Read your writes: write-through plus fallback"): the one
// way every gateway route that writes or reads a payment does it, the merchant API's and the
// customer's page alike. After payment-command accepts a command, the state it answered goes to the
// read model at once (guarded by revision, so the projection and this write-through may land in any
// order); when the read model will not take it, the revision is remembered, with its merchant, and a
// read that finds the read model without it, or older, asks payment-command instead.

import { setTimeout as sleep } from 'node:timers/promises'
import { type Clock, isoNow } from '@chainpay/platform'
import type { PaymentCommands, PaymentDocument, PaymentReadModel, PaymentSnapshot } from '@chainpay/ports'

export interface ReadYourWrites {
  /** the state a command answered, into the read model (or remembered when it will not take it) */
  saveAfterCommand(snapshot: PaymentSnapshot, log: WarningLog): Promise<void>
  /**
   * The payment as the latest command through this gateway answered it, or newer; null when unknown.
   * `merchantId`: the caller's (another merchant's payment is unknown to it), or null for the
   * customer's page, whose token names the payment.
   */
  read(paymentId: string, merchantId: string | null): Promise<PaymentSnapshot | null>
  /**
   * A page of the merchant's read model documents as the latest commands through this gateway left
   * them: one older than a revision remembered here is read from payment-command instead. A payment
   * the read model does not hold yet is not on the page (docs/architecture.md).
   */
  page(documents: PaymentDocument[], merchantId: string): Promise<PaymentSnapshot[]>
}

interface WarningLog {
  warn(fields: object, message: string): void
}

export interface ReadYourWritesOptions {
  readModel: Pick<PaymentReadModel, 'get' | 'save'>
  commands: Pick<PaymentCommands, 'getPayment'>
  clock: Clock
  /** payments whose unsaved revision is remembered, at most; the oldest is forgotten first; default 10,000 */
  maxRemembered?: number
  /** by then the projection has stored the revision; default 10 minutes */
  rememberedForMs?: number
}

/** tries of the write-through before the revision is remembered instead, and the pause between them */
const WRITE_THROUGH_ATTEMPTS = 3
const WRITE_THROUGH_PAUSE_MS = 20

export function createReadYourWrites(options: ReadYourWritesOptions): ReadYourWrites {
  const { readModel, commands, clock } = options
  const unsaved = createUnsavedRevisions({
    clock,
    maxEntries: options.maxRemembered ?? 10_000,
    ttlMs: options.rememberedForMs ?? 10 * 60_000,
  })

  return {
    async saveAfterCommand({ payment, revision }, log) {
      const { paymentId, merchantId } = payment.created
      const document = { paymentId, merchantId, revision, state: payment, updatedAt: isoNow(clock) }
      for (let attempt = 1; ; attempt++) {
        try {
          await readModel.save(document)
          return
        } catch (error) {
          if (attempt < WRITE_THROUGH_ATTEMPTS) {
            await sleep(WRITE_THROUGH_PAUSE_MS * attempt)
            continue
          }
          // the command succeeded: answer it, and read this payment from payment-command for a while
          unsaved.remember(paymentId, revision, merchantId)
          log.warn(
            { err: error, paymentId, revision, attempts: attempt },
            'write-through to the read model failed',
          )
          return
        }
      }
    },

    async read(paymentId, merchantId) {
      const document = await readModel.get(paymentId)
      const aheadFor = unsaved.aheadOf(paymentId, document?.revision ?? -1)
      if (document !== null && aheadFor === null) {
        if (merchantId !== null && document.merchantId !== merchantId) return null
        return { payment: document.state, revision: document.revision }
      }
      // not projected yet, or older than a write the read model missed: the source of truth answers
      const owner = merchantId ?? aheadFor ?? document?.merchantId ?? null
      if (owner === null) return null
      return await commands.getPayment({ merchantId: owner, paymentId })
    },

    async page(documents, merchantId) {
      return await Promise.all(
        documents.map(async (document) => {
          const stored = { payment: document.state, revision: document.revision }
          if (unsaved.aheadOf(document.paymentId, document.revision) === null) return stored
          return (await commands.getPayment({ merchantId, paymentId: document.paymentId })) ?? stored
        }),
      )
    },
  }
}

/** The revisions this gateway wrote through without the read model storing them, with their merchant. */
export interface UnsavedRevisions {
  remember(paymentId: string, revision: number, merchantId: string): void
  /**
   * the merchant of the payment when a remembered revision of it is newer than `stored` (-1: none
   * stored); null otherwise, and it forgets the payment once the store caught up
   */
  aheadOf(paymentId: string, stored: number): string | null
}

export function createUnsavedRevisions(options: {
  clock: Clock
  maxEntries: number
  ttlMs: number
}): UnsavedRevisions {
  const { clock, maxEntries, ttlMs } = options
  // insertion order is age order: each remember() re-inserts its key
  const entries = new Map<string, { revision: number; merchantId: string; expiresAtMs: number }>()

  return {
    remember(paymentId, revision, merchantId) {
      const known = entries.get(paymentId)
      entries.delete(paymentId)
      const newest = Math.max(revision, known?.revision ?? revision)
      entries.set(paymentId, { revision: newest, merchantId, expiresAtMs: clock.now().getTime() + ttlMs })
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break
        entries.delete(oldest)
      }
    },

    aheadOf(paymentId, stored) {
      const entry = entries.get(paymentId)
      if (entry === undefined) return null
      if (entry.revision <= stored || clock.now().getTime() >= entry.expiresAtMs) {
        entries.delete(paymentId)
        return null
      }
      return entry.merchantId
    },
  }
}

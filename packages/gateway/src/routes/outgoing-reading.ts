// Read your writes for refunds and payouts (docs/architecture.md, "The refunds and payouts read
// model"), as for payments (read-your-writes.ts): every route that changes one (the merchant's create
// and cancel, the admin API's steps, the claim page's address) writes the state payment-command
// answered to the read model at once, guarded by revision, so that the projection and the
// write-through may land in any order; when the read model will not take it, the revision is
// remembered, and a read that finds the read model without it, or older, asks payment-command.

import { setTimeout as sleep } from 'node:timers/promises'
import type { Outgoing, OutgoingKind } from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import type { OutgoingCommands, OutgoingDocument, OutgoingReadModel, OutgoingSnapshot } from '@chainpay/ports'
import { createUnsavedRevisions } from './read-your-writes.js'

export interface OutgoingReading {
  /** the state a command answered, into the read model (or remembered when it will not take it) */
  saveAfterCommand(snapshot: OutgoingSnapshot, log: WarningLog): Promise<void>
  /**
   * The item as the latest command through this gateway answered it, or newer; null when unknown, or
   * another merchant's when `merchantId` is given. One the read model does not hold yet (created
   * through another gateway a moment ago) is read from payment-command.
   */
  read(kind: OutgoingKind, id: string, merchantId?: string): Promise<Outgoing | null>
  /** a page of read model documents, each one older than a revision remembered here read from payment-command */
  page(documents: OutgoingDocument[]): Promise<Outgoing[]>
}

interface WarningLog {
  warn(fields: object, message: string): void
}

export interface OutgoingReadingOptions {
  readModel: Pick<OutgoingReadModel, 'get' | 'save'>
  commands: Pick<OutgoingCommands, 'getOutgoing'>
  clock: Clock
  /** items whose unsaved revision is remembered, at most; default 10,000 */
  maxRemembered?: number
  /** by then the projection has stored the revision; default 10 minutes */
  rememberedForMs?: number
}

const WRITE_THROUGH_ATTEMPTS = 3
const WRITE_THROUGH_PAUSE_MS = 20

export function createOutgoingReading(options: OutgoingReadingOptions): OutgoingReading {
  const { readModel, commands, clock } = options
  const unsaved = createUnsavedRevisions({
    clock,
    maxEntries: options.maxRemembered ?? 10_000,
    ttlMs: options.rememberedForMs ?? 10 * 60_000,
  })
  const keyOf = (kind: OutgoingKind, id: string) => `${kind}:${id}`

  return {
    async saveAfterCommand({ item, revision }, log) {
      for (let attempt = 1; ; attempt++) {
        try {
          await readModel.save({ item, revision })
          return
        } catch (error) {
          if (attempt < WRITE_THROUGH_ATTEMPTS) {
            await sleep(WRITE_THROUGH_PAUSE_MS * attempt)
            continue
          }
          // the command succeeded: answer it, and read this item from payment-command for a while
          unsaved.remember(keyOf(item.kind, item.id), revision, item.merchantId)
          log.warn(
            { err: error, kind: item.kind, id: item.id, revision, attempts: attempt },
            'write-through to the refunds and payouts read model failed',
          )
          return
        }
      }
    },

    async read(kind, id, merchantId) {
      const document = await readModel.get(kind, id)
      const ahead = unsaved.aheadOf(keyOf(kind, id), document?.revision ?? -1) !== null
      if (document !== null && !ahead) {
        if (merchantId !== undefined && document.item.merchantId !== merchantId) return null
        return document.item
      }
      // not projected yet, or older than a write the read model missed: the source of truth answers
      const snapshot = await commands.getOutgoing({
        kind,
        id,
        ...(merchantId === undefined ? {} : { merchantId }),
      })
      return snapshot?.item ?? null
    },

    async page(documents) {
      return await Promise.all(
        documents.map(async ({ item, revision }) => {
          if (unsaved.aheadOf(keyOf(item.kind, item.id), revision) === null) return item
          const snapshot = await commands.getOutgoing({
            kind: item.kind,
            id: item.id,
            merchantId: item.merchantId,
          })
          return snapshot?.item ?? item
        }),
      )
    },
  }
}

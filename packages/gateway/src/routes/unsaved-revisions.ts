// The revisions this gateway wrote through to the read model without the read model storing them.
// While one is remembered, a GET that finds an older document there asks payment-command instead,
// so that a merchant never reads an older status than the one a command just answered.

import type { Clock } from '@chainpay/platform'

export interface UnsavedRevisions {
  remember(paymentId: string, revision: number): void
  /** true when a remembered revision of the payment is newer than `stored`; forgets it once not */
  isAhead(paymentId: string, stored: number): boolean
}

export interface UnsavedRevisionsOptions {
  clock: Clock
  /** the oldest is forgotten first beyond this; default 10 000 */
  maxEntries?: number
  /** by then the projection has stored the revision, or a GET asks payment-command anyway; default 10 min */
  ttlMs?: number
}

export function createUnsavedRevisions(options: UnsavedRevisionsOptions): UnsavedRevisions {
  const { clock } = options
  const maxEntries = options.maxEntries ?? 10_000
  const ttlMs = options.ttlMs ?? 10 * 60_000
  // insertion order is age order: each remember() re-inserts its key
  const entries = new Map<string, { revision: number; expiresAtMs: number }>()

  return {
    remember(paymentId, revision) {
      const known = entries.get(paymentId)
      entries.delete(paymentId)
      const newest = Math.max(revision, known?.revision ?? revision)
      entries.set(paymentId, { revision: newest, expiresAtMs: clock.now().getTime() + ttlMs })
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break
        entries.delete(oldest)
      }
    },

    isAhead(paymentId, stored) {
      const entry = entries.get(paymentId)
      if (entry === undefined) return false
      if (entry.revision <= stored || clock.now().getTime() >= entry.expiresAtMs) {
        entries.delete(paymentId)
        return false
      }
      return true
    },
  }
}

// onAppended for appends by anyone: one catch-up subscription to $all, shared by every listener of a
// store and open only while there are listeners. A dropped subscription is opened again, with
// backoff, after the last position it delivered, so appends made in between still wake listeners.

import type { Logger } from '@chainpay/platform'
import {
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  END,
  excludeSystemEvents,
  type KurrentDBClient,
  type Position,
} from '@kurrent/kurrentdb-client'

export interface ResubscribeDelays {
  /** wait before the first new attempt after a drop */
  initialMs: number
  /** the wait doubles on each failure in a row, up to this */
  maxMs: number
  /**
   * how long a confirmed subscription must stay open, delivering nothing, before its failures are
   * forgotten (default 30 s): a confirmation alone proves nothing, a server may confirm a subscription
   * and then reject it at once. An event it delivers forgets them at once.
   */
  healthyAfterMs?: number
}

const DEFAULT_HEALTHY_AFTER_MS = 30_000

export const DEFAULT_RESUBSCRIBE_DELAYS: ResubscribeDelays = {
  initialMs: 250,
  maxMs: 30_000,
  healthyAfterMs: DEFAULT_HEALTHY_AFTER_MS,
}

/** the wait before attempt `failures` + 1, after `failures` (>= 1) failures in a row */
export function resubscribeDelayMs(failures: number, delays: ResubscribeDelays): number {
  const doublings = Math.min(Math.max(failures - 1, 0), 30)
  return Math.min(delays.maxMs, delays.initialMs * 2 ** doublings)
}

export interface AppendWatcher {
  /** registers a listener; returns its removal */
  add(listener: () => void): () => void
  /** wakes every listener (each in its own microtask, so a throwing one does not silence the others) */
  notify(): void
  close(): void
}

export function createAppendWatcher(
  subscriptionClient: KurrentDBClient,
  options: { logger?: Logger; delays: ResubscribeDelays },
): AppendWatcher {
  const { logger, delays } = options
  // dropped on close, so that the client (and its connections) can go
  let client: KurrentDBClient | undefined = subscriptionClient
  const listeners = new Set<() => void>()
  let current: AllStreamSubscription | undefined
  let retryTimer: NodeJS.Timeout | undefined
  // forgets the failures once a confirmed subscription has stayed open for delays.healthyAfterMs
  let healthyTimer: NodeJS.Timeout | undefined
  let failures = 0
  // the last $all position a subscription delivered: the next one starts right after it
  let resumeAfter: Position | undefined
  let closed = false

  const notify = () => {
    for (const listener of listeners) queueMicrotask(listener)
  }

  const release = (subscription: AllStreamSubscription) => {
    subscription.unsubscribe().catch((error: unknown) => {
      logger?.debug({ err: error }, 'EventStoreDB $all subscription: unsubscribing failed')
    })
  }

  const subscribe = () => {
    retryTimer = undefined
    if (closed || client === undefined || listeners.size === 0) return
    // From the end there is no telling what was appended while no subscription was open: before the
    // first one went live (after the listener had last read), or between a drop and this one. So
    // the listeners are woken once it is live, to read for themselves; a relay that polls only as a
    // safety net would otherwise find such an append at its next poll (docs/benchmarks.md).
    const wakeOnConfirmation = resumeAfter === undefined
    let subscription: AllStreamSubscription
    try {
      subscription = client.subscribeToAll({
        fromPosition: resumeAfter ?? END,
        filter: excludeSystemEvents({
          checkpointReached: (_subscription, position) => {
            if (current === subscription) resumeAfter = position
          },
        }),
      })
    } catch (error) {
      scheduleResubscribe(error)
      return
    }
    current = subscription
    let dropped = false
    const drop = (error?: unknown) => {
      if (dropped) return
      dropped = true
      if (current !== subscription) return
      clearTimeout(healthyTimer)
      healthyTimer = undefined
      current = undefined
      release(subscription)
      scheduleResubscribe(error ?? new Error('the server ended the subscription'))
    }
    subscription.on('confirmation', () => {
      if (current !== subscription) return
      // not a reset of the backoff: only delivering, or staying open for a while, proves it healthy
      clearTimeout(healthyTimer)
      healthyTimer = setTimeout(() => {
        healthyTimer = undefined
        if (current === subscription) failures = 0
      }, delays.healthyAfterMs ?? DEFAULT_HEALTHY_AFTER_MS)
      healthyTimer.unref()
      if (wakeOnConfirmation) notify()
    })
    subscription.on('data', (resolved: AllStreamResolvedEvent) => {
      const event = resolved.event
      if (current !== subscription || event === undefined) return
      resumeAfter = event.position
      failures = 0
      if (!event.streamId.startsWith('$')) notify()
    })
    subscription.on('error', (error: Error) => drop(error))
    subscription.on('end', () => drop())
    subscription.on('close', () => drop())
  }

  const scheduleResubscribe = (error: unknown) => {
    failures++
    const retryInMs = resubscribeDelayMs(failures, delays)
    logger?.warn(
      { err: error, failures, retryInMs },
      'EventStoreDB $all subscription failed; subscribing again after a pause',
    )
    retryTimer = setTimeout(subscribe, retryInMs)
    retryTimer.unref()
  }

  const stop = () => {
    clearTimeout(retryTimer)
    retryTimer = undefined
    clearTimeout(healthyTimer)
    healthyTimer = undefined
    const subscription = current
    current = undefined
    if (subscription !== undefined) release(subscription)
    failures = 0
    resumeAfter = undefined
  }

  return {
    add(listener) {
      if (closed) return () => {}
      // a fresh entry per call: the same function registered twice is removed twice
      const entry = () => listener()
      listeners.add(entry)
      if (current === undefined && retryTimer === undefined) subscribe()
      return () => {
        listeners.delete(entry)
        if (listeners.size === 0) stop()
      }
    },
    notify,
    close() {
      closed = true
      listeners.clear()
      stop()
      client = undefined
    },
  }
}

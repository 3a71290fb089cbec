import { EventEmitter } from 'node:events'
import { createRootLogger } from '@chainpay/platform'
import type { KurrentDBClient } from '@kurrent/kurrentdb-client'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAppendWatcher, DEFAULT_RESUBSCRIBE_DELAYS, resubscribeDelayMs } from './append-watcher.js'

describe('resubscribeDelayMs', () => {
  it('starts at the initial wait and doubles with each failure in a row', () => {
    const delays = { initialMs: 100, maxMs: 10_000 }
    expect([1, 2, 3, 4, 5].map((failures) => resubscribeDelayMs(failures, delays))).toEqual([
      100, 200, 400, 800, 1600,
    ])
  })

  it('never waits longer than the maximum, however many failures', () => {
    const delays = { initialMs: 100, maxMs: 1000 }
    expect(resubscribeDelayMs(5, delays)).toBe(1000)
    expect(resubscribeDelayMs(10_000, delays)).toBe(1000)
    expect(resubscribeDelayMs(10_000, DEFAULT_RESUBSCRIBE_DELAYS)).toBe(DEFAULT_RESUBSCRIBE_DELAYS.maxMs)
  })
})

/**
 * A client whose every $all subscription is driven by the test: `script` runs on each new
 * subscription, after the watcher has attached its handlers.
 */
function scriptedClient(script: (subscription: EventEmitter) => void) {
  let subscriptions = 0
  const client = {
    subscribeToAll() {
      subscriptions++
      const subscription = Object.assign(new EventEmitter(), { unsubscribe: async () => {} })
      queueMicrotask(() => script(subscription))
      return subscription
    },
  }
  return { client: client as unknown as KurrentDBClient, subscriptions: () => subscriptions }
}

function warningsLogger() {
  const warnings: { failures: number; retryInMs: number }[] = []
  const logger = createRootLogger({
    service: 'append-watcher-test',
    level: 'warn',
    destination: { write: (line: string) => void warnings.push(JSON.parse(line)) },
  })
  return { logger, retryWaits: () => warnings.map((w) => w.retryInMs) }
}

const someEvent = {
  event: { streamId: 'payment-1', position: { commit: 10n, prepare: 10n } },
}

describe('createAppendWatcher backoff', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })
  const delays = { initialMs: 10, maxMs: 80, healthyAfterMs: 1000 }

  it('keeps backing off for a subscription the server confirms and then rejects', async () => {
    const { client, subscriptions } = scriptedClient((subscription) => {
      subscription.emit('confirmation')
      subscription.emit('error', new Error('access denied'))
    })
    const { logger, retryWaits } = warningsLogger()
    const watcher = createAppendWatcher(client, { logger, delays })
    watcher.add(() => {})
    for (let attempt = 0; attempt < 5; attempt++) await vi.runOnlyPendingTimersAsync()
    expect(subscriptions()).toBeGreaterThanOrEqual(5)
    expect(retryWaits().slice(0, 5)).toEqual([10, 20, 40, 80, 80])
    watcher.close()
  })

  it('starts again from the initial wait once a subscription delivered an event', async () => {
    let round = 0
    const { client } = scriptedClient((subscription) => {
      round++
      subscription.emit('confirmation')
      if (round === 3) subscription.emit('data', someEvent)
      subscription.emit('error', new Error('dropped'))
    })
    const { logger, retryWaits } = warningsLogger()
    const watcher = createAppendWatcher(client, { logger, delays })
    watcher.add(() => {})
    for (let attempt = 0; attempt < 4; attempt++) await vi.runOnlyPendingTimersAsync()
    expect(retryWaits().slice(0, 5)).toEqual([10, 20, 10, 20, 40])
    watcher.close()
  })

  it('starts again from the initial wait once a confirmed subscription stayed open for healthyAfterMs', async () => {
    let round = 0
    let healthy: EventEmitter | undefined
    const { client } = scriptedClient((subscription) => {
      round++
      subscription.emit('confirmation')
      if (round === 3) healthy = subscription
      else subscription.emit('error', new Error('dropped'))
    })
    const { logger, retryWaits } = warningsLogger()
    const watcher = createAppendWatcher(client, { logger, delays })
    watcher.add(() => {})
    await vi.runOnlyPendingTimersAsync()
    await vi.runOnlyPendingTimersAsync()
    expect(retryWaits()).toEqual([10, 20])
    // the third stays open: only a full healthyAfterMs forgets the two failures
    await vi.advanceTimersByTimeAsync(delays.healthyAfterMs - 1)
    expect(healthy).toBeDefined()
    await vi.advanceTimersByTimeAsync(1)
    healthy?.emit('error', new Error('dropped after a long while'))
    expect(retryWaits()).toEqual([10, 20, 10])
    watcher.close()
  })

  it('does not forget failures for a subscription dropped before healthyAfterMs', async () => {
    let round = 0
    let early: EventEmitter | undefined
    const { client } = scriptedClient((subscription) => {
      round++
      subscription.emit('confirmation')
      if (round === 2) early = subscription
      else subscription.emit('error', new Error('dropped'))
    })
    const { logger, retryWaits } = warningsLogger()
    const watcher = createAppendWatcher(client, { logger, delays })
    watcher.add(() => {})
    await vi.runOnlyPendingTimersAsync()
    await vi.advanceTimersByTimeAsync(delays.healthyAfterMs - 1)
    early?.emit('error', new Error('dropped'))
    expect(retryWaits()).toEqual([10, 20])
    watcher.close()
  })
})

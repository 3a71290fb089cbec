import { createRootLogger } from '@chainpay/platform'
import { type ChainBlock, type ChainClient, type ChainHead, ChainRpcError } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type CircuitBreakerState,
  type ResilientChainClientOptions,
  type RpcRetry,
  withRpcResilience,
} from './resilient-chain-client.js'

const logger = createRootLogger({ service: 'resilient-chain-client-test', level: 'silent' })

const head: ChainHead = { height: 7, hash: 'h7', time: '2026-01-01T00:00:00.000Z' }

/** one answer of the scripted endpoint: a head, or an error to throw */
type Step = ChainHead | Error

/** a chain client whose getHead answers per the script, then with the head; counts its calls */
function scriptedClient(script: Step[]): ChainClient & { calls: () => number } {
  let calls = 0
  return {
    network: 'TRON',
    calls: () => calls,
    async getHead() {
      calls += 1
      const step = script.shift() ?? head
      if (step instanceof Error) throw step
      return step
    },
    async getBlocks(): Promise<ChainBlock[]> {
      calls += 1
      return []
    },
  }
}

const rateLimited = (retryAfterMs?: number) => new ChainRpcError('rate-limited', '429', { retryAfterMs })
const unavailable = (label = '503') => new ChainRpcError('unavailable', label)

function resilient(client: ChainClient, overrides: Partial<ResilientChainClientOptions> = {}) {
  const retries: RpcRetry[] = []
  const states: CircuitBreakerState[] = []
  const wrapped = withRpcResilience(client, {
    logger,
    onRetry: (retry) => retries.push(retry),
    onStateChange: (state) => states.push(state),
    ...overrides,
  })
  return { wrapped, retries, states }
}

/** settles a call while the fake timers run its backoffs: what it returned or threw */
async function settle<T>(call: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  const outcome = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  )
  await vi.runAllTimersAsync()
  return outcome
}

describe('withRpcResilience', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('retries a 429 and waits at least its Retry-After', async () => {
    const client = scriptedClient([rateLimited(3_000), head])
    const { wrapped, retries } = resilient(client, { initialBackoffMs: 10 })

    expect(await settle(wrapped.getHead())).toEqual({ value: head })
    expect(client.calls()).toBe(2)
    expect(retries).toHaveLength(1)
    expect(retries[0]).toMatchObject({ method: 'getHead', failure: 'rate-limited', attempt: 1 })
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(3_000)
  })

  it('backs off within the bounds between retries of timeouts and 5xx', async () => {
    const client = scriptedClient([new ChainRpcError('timeout', 'slow'), unavailable(), unavailable(), head])
    const { wrapped, retries } = resilient(client, { initialBackoffMs: 100, maxBackoffMs: 400 })

    expect(await settle(wrapped.getHead())).toEqual({ value: head })
    expect(client.calls()).toBe(4)
    expect(retries.map((retry) => [retry.failure, retry.attempt])).toEqual([
      ['timeout', 1],
      ['unavailable', 2],
      ['unavailable', 3],
    ])
    for (const retry of retries) {
      expect(retry.delayMs).toBeGreaterThanOrEqual(0)
      expect(retry.delayMs).toBeLessThanOrEqual(400)
    }
  })

  it('rethrows the last error once the attempts are spent', async () => {
    const last = unavailable('the fourth 503')
    const client = scriptedClient([unavailable(), unavailable(), unavailable(), last, head])
    const { wrapped, retries } = resilient(client, { maxAttempts: 4 })

    expect(await settle(wrapped.getHead())).toEqual({ error: last })
    expect(client.calls()).toBe(4)
    expect(retries).toHaveLength(3)
  })

  it('does not retry a bad response or an error that is not an RPC failure', async () => {
    const badResponse = new ChainRpcError('bad-response', 'not a block')
    const bug = new TypeError('a bug')
    const client = scriptedClient([badResponse, bug, head])
    const { wrapped, retries } = resilient(client)

    expect(await settle(wrapped.getHead())).toEqual({ error: badResponse })
    expect(await settle(wrapped.getHead())).toEqual({ error: bug })
    expect(client.calls()).toBe(2)
    expect(retries).toEqual([])
  })

  it('opens the circuit after failed calls in a row and then fails fast without calling', async () => {
    const client = scriptedClient([unavailable(), unavailable(), unavailable(), unavailable()])
    const { wrapped, states } = resilient(client, {
      maxAttempts: 2,
      breaker: { consecutiveFailures: 2, halfOpenAfterMs: 5_000 },
    })

    await settle(wrapped.getHead())
    expect(wrapped.state()).toBe('closed')
    await settle(wrapped.getHead())
    expect(wrapped.state()).toBe('open')
    expect(states).toEqual(['open'])
    expect(client.calls()).toBe(4)

    const failedFast = await settle(wrapped.getBlocks(1, 2))
    expect(client.calls()).toBe(4)
    expect('error' in failedFast && failedFast.error).toBeInstanceOf(ChainRpcError)
    expect(failedFast).toMatchObject({ error: { failure: 'unavailable', transient: true } })
    expect(String((failedFast as { error: Error }).error.message)).toContain('circuit open')
  })

  it('closes the circuit when the trial call after the open period succeeds', async () => {
    const client = scriptedClient([unavailable(), unavailable()])
    const { wrapped, states } = resilient(client, {
      maxAttempts: 1,
      breaker: { consecutiveFailures: 2, halfOpenAfterMs: 5_000 },
    })
    await settle(wrapped.getHead())
    await settle(wrapped.getHead())
    expect(wrapped.state()).toBe('open')

    vi.advanceTimersByTime(5_000)
    expect(await settle(wrapped.getHead())).toEqual({ value: head })
    expect(wrapped.state()).toBe('closed')
    expect(states).toEqual(['open', 'half-open', 'closed'])
    expect(client.calls()).toBe(3)
  })

  it('opens the circuit again when the trial call fails', async () => {
    const client = scriptedClient([unavailable(), unavailable(), unavailable()])
    const { wrapped, states } = resilient(client, {
      maxAttempts: 1,
      breaker: { consecutiveFailures: 2, halfOpenAfterMs: 5_000 },
    })
    await settle(wrapped.getHead())
    await settle(wrapped.getHead())
    vi.advanceTimersByTime(5_000)

    expect(await settle(wrapped.getHead())).toMatchObject({ error: { failure: 'unavailable' } })
    expect(states).toEqual(['open', 'half-open', 'open'])
    expect(wrapped.state()).toBe('open')
    await settle(wrapped.getHead())
    expect(client.calls()).toBe(3)
  })

  it('counts only failed calls in a row: a success in between keeps the circuit closed', async () => {
    const client = scriptedClient([unavailable(), head, unavailable(), head])
    const { wrapped } = resilient(client, { maxAttempts: 1, breaker: { consecutiveFailures: 2 } })
    for (let call = 0; call < 4; call += 1) await settle(wrapped.getHead())
    expect(wrapped.state()).toBe('closed')
    expect(client.calls()).toBe(4)
  })

  it('fails fast while a Retry-After longer than the longest backoff lasts', async () => {
    const client = scriptedClient([rateLimited(60_000), head])
    const { wrapped, retries } = resilient(client, { maxBackoffMs: 10_000 })

    expect(await settle(wrapped.getHead())).toMatchObject({ error: { failure: 'rate-limited' } })
    expect(retries).toEqual([])
    const paused = await settle(wrapped.getHead())
    expect(paused).toMatchObject({ error: { failure: 'rate-limited' } })
    expect((paused as { error: ChainRpcError }).error.retryAfterMs).toBeGreaterThan(0)
    expect(client.calls()).toBe(1)

    vi.advanceTimersByTime(60_000)
    expect(await settle(wrapped.getHead())).toEqual({ value: head })
    expect(client.calls()).toBe(2)
  })

  it('turns an attempt that never settles into a timeout and retries it', async () => {
    let calls = 0
    const hanging: ChainClient = {
      network: 'SOLANA',
      getHead: () => {
        calls += 1
        return calls === 1 ? new Promise<ChainHead>(() => {}) : Promise.resolve(head)
      },
      getBlocks: () => Promise.resolve([]),
    }
    const { wrapped, retries } = resilient(hanging, { attemptTimeoutMs: 1_000 })

    expect(await settle(wrapped.getHead())).toEqual({ value: head })
    expect(retries.map((retry) => retry.failure)).toEqual(['timeout'])
  })

  it('keeps the client network and rejects settings that are not positive integers', () => {
    const client = scriptedClient([])
    expect(withRpcResilience(client, { logger }).network).toBe('TRON')
    expect(() => withRpcResilience(client, { logger, maxAttempts: 0 })).toThrow(RangeError)
    expect(() => withRpcResilience(client, { logger, breaker: { halfOpenAfterMs: 1.5 } })).toThrow(RangeError)
  })
})

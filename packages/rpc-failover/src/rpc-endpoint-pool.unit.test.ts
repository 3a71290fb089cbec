import { ChainRpcError } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createRpcEndpointPool, type EndpointAnswer, type RpcEndpoint } from './rpc-endpoint-pool.js'

/** an endpoint whose next answers the test scripts; it counts what it was asked */
interface ScriptedEndpoint extends RpcEndpoint {
  calls: number
  next: Array<() => EndpointAnswer<string> | ChainRpcError>
  otherwise: () => EndpointAnswer<string> | ChainRpcError
}

function endpoint(origin: string): ScriptedEndpoint {
  return { origin, calls: 0, next: [], otherwise: () => ({ value: origin }) }
}

async function attempt(target: ScriptedEndpoint): Promise<EndpointAnswer<string>> {
  target.calls += 1
  const outcome = (target.next.shift() ?? target.otherwise)()
  if (outcome instanceof ChainRpcError) throw outcome
  return outcome
}

const down = () => new ChainRpcError('unavailable', 'connect ECONNREFUSED')
const limited = (retryAfterMs?: number) => () =>
  new ChainRpcError('rate-limited', 'HTTP 429', { retryAfterMs })
const head = (origin: string, height: number) => () => ({ value: origin, head: height })

function poolOf(...endpoints: ScriptedEndpoint[]) {
  return createRpcEndpointPool(endpoints, { network: 'SOLANA', lagToleranceHeights: 10 })
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
})

afterEach(() => {
  vi.useRealTimers()
})

describe('createRpcEndpointPool', () => {
  it('asks the endpoints in order and goes on to the next one when one fails', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    expect(await pool.call(attempt)).toBe('https://a.example')
    a.next.push(down)
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect([a.calls, b.calls]).toEqual([2, 1])
  })

  it('lets a rate-limited endpoint rest for its Retry-After while the other answers', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.next.push(limited(2000))
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect(a.calls).toBe(1)
    vi.advanceTimersByTime(2000)
    expect(await pool.call(attempt)).toBe('https://a.example')
  })

  it('fails with the soonest Retry-After when every endpoint is rate limited, without waiting', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.next.push(limited(5000))
    b.next.push(limited(3000))
    await expect(pool.call(attempt)).rejects.toMatchObject({ failure: 'rate-limited', retryAfterMs: 3000 })
    vi.advanceTimersByTime(1000)
    await expect(pool.call(attempt)).rejects.toMatchObject({ failure: 'rate-limited', retryAfterMs: 2000 })
    expect([a.calls, b.calls]).toEqual([1, 1])
  })

  it('names every endpoint and what it did when none answers', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.next.push(down)
    b.next.push(() => new ChainRpcError('timeout', 'no answer within 10000 ms'))
    await expect(pool.call(attempt)).rejects.toMatchObject({
      failure: 'unavailable',
      message:
        'SOLANA: no RPC endpoint answered: https://a.example: connect ECONNREFUSED; https://b.example: no answer within 10000 ms',
    })
  })

  it('with one endpoint: its own error, and calls refused while it rests for its Retry-After', async () => {
    const a = endpoint('https://a.example')
    const pool = poolOf(a)
    const refused = down()
    a.next.push(() => refused)
    await expect(pool.call(attempt)).rejects.toBe(refused)
    a.next.push(limited(1500))
    await expect(pool.call(attempt)).rejects.toMatchObject({ failure: 'rate-limited', retryAfterMs: 1500 })
    await expect(pool.call(attempt)).rejects.toMatchObject({ failure: 'rate-limited', retryAfterMs: 1500 })
    expect(a.calls).toBe(2)
    vi.advanceTimersByTime(1500)
    expect(await pool.call(attempt)).toBe('https://a.example')
  })

  it('opens the circuit of an endpoint that keeps failing, and tries it again after the pause', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = createRpcEndpointPool([a, b], {
      network: 'TRON',
      lagToleranceHeights: 3,
      breaker: { consecutiveFailures: 2, halfOpenAfterMs: 10_000 },
    })
    a.otherwise = down
    for (let call = 0; call < 5; call += 1) expect(await pool.call(attempt)).toBe('https://b.example')
    expect(a.calls).toBe(2)
    a.otherwise = () => ({ value: 'https://a.example' })
    vi.advanceTimersByTime(10_000)
    expect(await pool.call(attempt)).toBe('https://a.example')
    expect(a.calls).toBe(3)
  })

  it('passes on what is not an endpoint failure (an interrupted call) without asking another endpoint', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    const interrupted = new DOMException('stop', 'AbortError')
    await expect(
      pool.call(async () => {
        throw interrupted
      }),
    ).rejects.toBe(interrupted)
    expect(b.calls).toBe(0)
  })

  it('asks an endpoint that says it is behind only when no other answers', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.next.push(() => ({ value: 'behind', behind: true }))
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect(a.calls).toBe(1)
    b.next.push(down)
    expect(await pool.call(attempt)).toBe('https://a.example')
  })

  it('asks another endpoint for an answer not as recent as asked, and keeps asking the first one first', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.next.push(() => ({ value: 'a few slots short', stale: true }))
    expect(await pool.call(attempt)).toBe('https://b.example')
    expect(await pool.call(attempt)).toBe('https://a.example')
    // and when no other answers, the stale answer is better than none
    a.next.push(() => ({ value: 'a few slots short', stale: true }))
    b.next.push(down)
    expect(await pool.call(attempt)).toBe('a few slots short')
  })

  it('compares the heads of a head call and its probe: the endpoint behind by more than the tolerance is passed over', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    a.otherwise = head('https://a.example', 980)
    b.otherwise = head('https://b.example', 1000)
    // the first head call probes b; whichever answer came first, a is then known to be behind
    await pool.call(attempt, { probe: true })
    const asked = b.calls
    expect(await pool.call(attempt, { probe: true })).toBe('https://b.example')
    // and a is not probed again within the minute
    expect([a.calls, b.calls]).toEqual([1, asked + 1])

    // a minute later a is probed again beside a head call to b, and is level again
    vi.advanceTimersByTime(60_000)
    a.otherwise = head('https://a.example', 1095)
    b.otherwise = head('https://b.example', 1100)
    await pool.call(attempt, { probe: true })
    await vi.waitFor(() => expect(a.calls).toBe(2))
    expect(await pool.call(attempt)).toBe('https://a.example')
  })

  it('compares the heads of one round only: a head call without probes judges nothing', async () => {
    const [a, b] = [endpoint('https://a.example'), endpoint('https://b.example')]
    const pool = poolOf(a, b)
    b.otherwise = head('https://b.example', 1000)
    a.next.push(down)
    await pool.call(attempt)
    a.otherwise = head('https://a.example', 980)
    expect(await pool.call(attempt)).toBe('https://a.example')
    expect(await pool.call(attempt)).toBe('https://a.example')
  })
})

import { describe, expect, it, vi } from 'vitest'
import { createWorkLoop, type WorkLoopOptions, type WorkLoopOutcome } from './work-loop.js'

// Long enough that a test finishing means the loop was woken or stopped, never that the rest ran out.
const NEVER_MS = 600_000

function deferred<T>() {
  let resolve: (value: T) => void = () => {}
  const promise = new Promise<T>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

function loopWith(overrides: Partial<WorkLoopOptions> & Pick<WorkLoopOptions, 'iterate'>) {
  return createWorkLoop({
    pollIntervalMs: NEVER_MS,
    maxBackoffMs: NEVER_MS,
    onFailure: () => {},
    ...overrides,
  })
}

/** a loop whose first iteration lasts until finishFirst is called; every later one is idle */
function loopWithSlowFirstIteration() {
  const first = deferred<WorkLoopOutcome>()
  let iterations = 0
  const loop = loopWith({
    iterate: () => {
      iterations += 1
      return iterations === 1 ? first.promise : Promise.resolve('idle')
    },
  })
  return { loop, finishFirst: first.resolve, iterations: () => iterations }
}

describe('createWorkLoop', () => {
  it('runs iterations back to back while there is more, then rests until woken', async () => {
    const outcomes: WorkLoopOutcome[] = ['more', 'more', 'idle', 'idle']
    let iterations = 0
    const loop = loopWith({ iterate: async () => outcomes[iterations++] ?? 'idle' })
    loop.start()
    await vi.waitFor(() => expect(iterations).toBe(3))
    loop.wake()
    await vi.waitFor(() => expect(iterations).toBe(4))
    await loop.stop()
    expect(iterations).toBe(4)
  })

  it('skips the rest after an iteration during which it was woken', async () => {
    const { loop, finishFirst, iterations } = loopWithSlowFirstIteration()
    loop.start()
    await vi.waitFor(() => expect(iterations()).toBe(1))
    loop.wake()
    finishFirst('idle')
    await vi.waitFor(() => expect(iterations()).toBe(2))
    await loop.stop()
  })

  it('backs off after failures in a row, doubling from the poll interval up to the maximum', async () => {
    const results: Array<WorkLoopOutcome | Error> = [
      new Error('one'),
      new Error('two'),
      new Error('three'),
      'more',
      new Error('four'),
    ]
    const failures: Array<{ message: string; failures: number; retryInMs: number }> = []
    let iterations = 0
    const loop = createWorkLoop({
      pollIntervalMs: 1,
      maxBackoffMs: 4,
      iterate: async () => {
        const result = results[iterations++] ?? 'idle'
        if (result instanceof Error) throw result
        return result
      },
      onFailure: (error, retry) => failures.push({ message: (error as Error).message, ...retry }),
    })
    loop.start()
    await vi.waitFor(() => expect(iterations).toBeGreaterThan(results.length))
    await loop.stop()
    expect(failures).toEqual([
      { message: 'one', failures: 1, retryInMs: 2 },
      { message: 'two', failures: 2, retryInMs: 4 },
      { message: 'three', failures: 3, retryInMs: 4 },
      { message: 'four', failures: 1, retryInMs: 2 },
    ])
  })

  it('backs off from failureBackoffMs when given, so a long safety-net poll does not slow retries', async () => {
    const results: Array<WorkLoopOutcome | Error> = [new Error('one'), new Error('two'), new Error('three')]
    const failures: Array<{ failures: number; retryInMs: number }> = []
    let iterations = 0
    const loop = createWorkLoop({
      pollIntervalMs: NEVER_MS,
      failureBackoffMs: 1,
      maxBackoffMs: 3,
      iterate: async () => {
        const result = results[iterations++] ?? 'idle'
        if (result instanceof Error) throw result
        return result
      },
      onFailure: (_error, retry) => failures.push(retry),
    })
    loop.start()
    // the fourth iteration comes only after the three failures' rests ran out: none is a poll interval
    await vi.waitFor(() => expect(iterations).toBe(4))
    await loop.stop()
    expect(failures).toEqual([
      { failures: 1, retryInMs: 2 },
      { failures: 2, retryInMs: 3 },
      { failures: 3, retryInMs: 3 },
    ])
  })

  it('stops after the iteration in progress, and from a rest at once', async () => {
    const { loop, finishFirst, iterations } = loopWithSlowFirstIteration()
    loop.start()
    await vi.waitFor(() => expect(iterations()).toBe(1))
    let stopped = false
    const stopping = loop.stop().then(() => {
      stopped = true
    })
    await Promise.resolve()
    expect(stopped).toBe(false)
    finishFirst('more')
    await stopping
    expect(iterations()).toBe(1)
    expect(loop.isRunning()).toBe(false)

    loop.start()
    await vi.waitFor(() => expect(iterations()).toBe(2))
    await loop.stop()
    expect(iterations()).toBe(2)
  })

  it('is not ready while its iterations fail, and ready again after one succeeds', async () => {
    let broken = false
    let iterations = 0
    const loop = loopWith({
      iterate: async () => {
        iterations += 1
        if (broken) throw new Error('the store is gone')
        return 'idle'
      },
      // a failure's rest ends at once, an idle one only when woken
      maxBackoffMs: 0,
    })
    expect(loop.notReadyReason()).toBeUndefined()
    loop.start()
    await vi.waitFor(() => expect(iterations).toBe(1))
    expect(loop.notReadyReason()).toBeUndefined()

    broken = true
    loop.wake()
    await vi.waitFor(() => expect(iterations).toBeGreaterThanOrEqual(4))
    expect(loop.notReadyReason()).toMatch(/^its latest \d+ iteration\(s\) in a row failed$/)

    broken = false
    await vi.waitFor(() => expect(loop.notReadyReason()).toBeUndefined())
    const recovered = iterations
    await loop.stop()
    // it rested after the iteration that succeeded
    expect(iterations).toBe(recovered)
    expect(loop.notReadyReason()).toBeUndefined()
  })

  it('runs one loop however often it is started', async () => {
    let iterations = 0
    const loop = loopWith({
      iterate: async () => {
        iterations += 1
        return 'idle'
      },
    })
    expect(loop.isRunning()).toBe(false)
    loop.start()
    loop.start()
    expect(loop.isRunning()).toBe(true)
    await vi.waitFor(() => expect(iterations).toBe(1))
    loop.wake()
    await vi.waitFor(() => expect(iterations).toBe(2))
    await loop.stop()
    expect(iterations).toBe(2)
  })
})

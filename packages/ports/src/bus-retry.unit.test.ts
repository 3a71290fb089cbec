import { describe, expect, it } from 'vitest'
import { failureLogIntervalMs, retryDelayAfter, retryPolicyOf, shouldLogFailure } from './bus-retry.js'

describe('retryPolicyOf', () => {
  it('retries without limit, from 200 ms up to 30 s, unless told otherwise', () => {
    expect(retryPolicyOf({})).toEqual({
      maxAttempts: Number.POSITIVE_INFINITY,
      retryDelayMs: 200,
      maxRetryDelayMs: 30_000,
    })
    expect(retryPolicyOf({ maxAttempts: 3, retryDelayMs: 0, maxRetryDelayMs: 50 })).toEqual({
      maxAttempts: 3,
      retryDelayMs: 0,
      maxRetryDelayMs: 50,
    })
  })

  it('refuses attempts that are not a positive integer and delays that are not milliseconds', () => {
    expect(() => retryPolicyOf({ maxAttempts: 0 })).toThrow('maxAttempts must be a positive integer, got 0')
    expect(() => retryPolicyOf({ maxAttempts: 2.5 })).toThrow(RangeError)
    expect(() => retryPolicyOf({ retryDelayMs: -1 })).toThrow('retryDelayMs must be a finite number')
    expect(() => retryPolicyOf({ maxRetryDelayMs: Number.POSITIVE_INFINITY })).toThrow(
      'maxRetryDelayMs must be a finite number',
    )
  })
})

describe('retryDelayAfter', () => {
  const policy = retryPolicyOf({})

  it('doubles the first delay after each failure, up to the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((attempt) => retryDelayAfter(attempt, policy))
    expect(delays).toEqual([200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000])
  })

  it('stays at the cap however long the failure lasts', () => {
    expect(retryDelayAfter(10_000, policy)).toBe(30_000)
    expect(retryDelayAfter(10_000, retryPolicyOf({ retryDelayMs: 0 }))).toBe(0)
  })
})

describe('shouldLogFailure', () => {
  it('logs attempts 1, 2, 4, 8... while they come quickly', () => {
    const logged = [1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17].filter((attempt) => shouldLogFailure(attempt, 10))
    expect(logged).toEqual([1, 2, 4, 8, 16])
  })

  it('logs any attempt once a minute has passed since the last line', () => {
    expect(shouldLogFailure(37, failureLogIntervalMs - 1)).toBe(false)
    expect(shouldLogFailure(37, failureLogIntervalMs)).toBe(true)
  })
})

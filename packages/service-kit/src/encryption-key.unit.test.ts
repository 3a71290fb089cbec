import { generateSecretKey, readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readEncryptionKey } from './encryption-key.js'
import { configProblems } from './testing/config-problems.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  const read = readEnv(env)
  readEncryptionKey(read)
  return configProblems(() => read.done())
}

describe('readEncryptionKey', () => {
  it('returns a key that opens a secret box', () => {
    const key = generateSecretKey()
    const read = readEnv({ CHAINPAY_ENCRYPTION_KEY: key })
    expect(readEncryptionKey(read)).toBe(key)
    expect(() => read.done()).not.toThrow()
  })

  it('requires the key', () => {
    expect(problemsOf({})).toEqual(['CHAINPAY_ENCRYPTION_KEY: required'])
  })

  it('says what is wrong with a bad key without repeating it', () => {
    const key = 'not-a-key-but-maybe-a-real-one-with-a-typo'
    const [problem, ...more] = problemsOf({ CHAINPAY_ENCRYPTION_KEY: key })
    expect(more).toEqual([])
    expect(problem).toMatch(/^CHAINPAY_ENCRYPTION_KEY: secret key: expected 32 bytes/)
    expect(problem).not.toContain(key)
  })
})

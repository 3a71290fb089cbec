import { createSecretBox, generateSecretKey, readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readEncryptionKeys } from './encryption-key.js'
import { configProblems } from './testing/config-problems.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  const read = readEnv(env)
  readEncryptionKeys(read)
  return configProblems(() => read.done())
}

describe('readEncryptionKeys', () => {
  it('returns a key that opens a secret box, and no previous keys when none are set', () => {
    const key = generateSecretKey()
    const read = readEnv({ CHAINPAY_ENCRYPTION_KEY: key })
    expect(readEncryptionKeys(read)).toEqual({ current: key, previous: [], unbound: 'open' })
    expect(() => read.done()).not.toThrow()
  })

  it('reads CHAINPAY_UNBOUND_SECRETS: refuse, once a reseal moved every value of the first format', () => {
    const read = readEnv({ CHAINPAY_ENCRYPTION_KEY: generateSecretKey(), CHAINPAY_UNBOUND_SECRETS: 'refuse' })
    expect(readEncryptionKeys(read).unbound).toBe('refuse')
    const wrong = readEnv({ CHAINPAY_ENCRYPTION_KEY: generateSecretKey(), CHAINPAY_UNBOUND_SECRETS: 'no' })
    readEncryptionKeys(wrong)
    expect(() => wrong.done()).toThrow(/CHAINPAY_UNBOUND_SECRETS/)
  })

  it('reads the previous keys, comma separated, which open what they sealed', () => {
    const [current, older, oldest] = [generateSecretKey(), generateSecretKey(), generateSecretKey()]
    const read = readEnv({
      CHAINPAY_ENCRYPTION_KEY: current,
      CHAINPAY_ENCRYPTION_KEY_PREVIOUS: ` ${older}, ${Buffer.from(oldest, 'base64').toString('hex')} `,
    })
    const keys = readEncryptionKeys(read)
    expect(() => read.done()).not.toThrow()
    expect(keys.current).toBe(current)
    expect(keys.previous).toHaveLength(2)
    const context = '["merchant","mer_1","webhookSecret"]'
    const sealedWithOldest = createSecretBox(oldest).seal('whsec_old', context)
    expect(createSecretBox(keys).open(sealedWithOldest, context)).toBe('whsec_old')
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

  it('names a bad previous key by its position, without repeating it', () => {
    const bad = 'maybe!a-real-key-with-a-typo'
    const problems = problemsOf({
      CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
      CHAINPAY_ENCRYPTION_KEY_PREVIOUS: `${generateSecretKey()},${bad}`,
    })
    expect(problems).toEqual([
      'CHAINPAY_ENCRYPTION_KEY_PREVIOUS (key 2 of 2): secret key: expected 32 bytes written as base64 or as 64 hex characters',
    ])
    expect(problems.join('\n')).not.toContain(bad)
  })
})

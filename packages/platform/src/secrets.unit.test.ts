import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { constantTimeEqual, createSecretBox, generateSecretKey, randomToken } from './secrets.js'

const key = generateSecretKey()

describe('createSecretBox', () => {
  it('round-trips text, including non-ASCII and empty text', () => {
    const box = createSecretBox(key)
    for (const plain of ['sk_live_7Hq2mV9xR4pL8wN3', 'Café ☕ 東京', '']) {
      expect(box.open(box.seal(plain))).toBe(plain)
    }
  })

  it('writes v1.<12-byte iv>.<ciphertext+16-byte tag> in base64url', () => {
    const sealed = createSecretBox(key).seal('abcd')
    const [version, iv, body] = sealed.split('.')
    expect(version).toBe('v1')
    expect(iv).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(Buffer.from(iv ?? '', 'base64url')).toHaveLength(12)
    expect(Buffer.from(body ?? '', 'base64url')).toHaveLength(4 + 16)
    expect(sealed).not.toContain('abcd')
  })

  it('uses a fresh IV for every seal', () => {
    const box = createSecretBox(key)
    expect(box.seal('same')).not.toBe(box.seal('same'))
  })

  it('accepts the same key as hex', () => {
    const hex = Buffer.from(key, 'base64').toString('hex')
    expect(createSecretBox(hex).open(createSecretBox(key).seal('shared'))).toBe('shared')
    expect(createSecretBox(hex.toUpperCase()).open(createSecretBox(key).seal('shared'))).toBe('shared')
  })

  it('accepts a base64url key', () => {
    const bytes = randomBytes(32)
    const box = createSecretBox(bytes.toString('base64url'))
    expect(createSecretBox(bytes.toString('base64')).open(box.seal('x'))).toBe('x')
  })

  it('refuses to open a value sealed with another key', () => {
    const sealed = createSecretBox(key).seal('secret')
    expect(() => createSecretBox(generateSecretKey()).open(sealed)).toThrow(
      /not sealed with this key, or altered/,
    )
  })

  it('detects tampering with the ciphertext, the tag and the IV', () => {
    const box = createSecretBox(key)
    const [version, iv, body] = box.seal('pay the merchant').split('.') as [string, string, string]
    const flipFirstByte = (part: string) => {
      const bytes = Buffer.from(part, 'base64url')
      bytes[0] = (bytes[0] ?? 0) ^ 1
      return bytes.toString('base64url')
    }
    const flipLastByte = (part: string) => {
      const bytes = Buffer.from(part, 'base64url')
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1
      return bytes.toString('base64url')
    }
    expect(() => box.open([version, iv, flipFirstByte(body)].join('.'))).toThrow(/altered/)
    expect(() => box.open([version, iv, flipLastByte(body)].join('.'))).toThrow(/altered/)
    expect(() => box.open([version, flipFirstByte(iv), body].join('.'))).toThrow(/altered/)
  })

  it.each([
    ['no parts', 'plain text'],
    ['another version', 'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['too many parts', 'v1.a.b.c'],
  ])('rejects a value with %s as malformed', (_case, sealed) => {
    expect(() => createSecretBox(key).open(sealed)).toThrow(/expected 'v1.<iv>.<ciphertext>'/)
  })

  it.each([
    ['a short IV', 'v1.AAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['a body shorter than the tag', 'v1.AAAAAAAAAAAAAAAA.AAAA'],
    ['non-base64url characters', 'v1.AAAAAAAAAAAAAAAA.AAAA+AAAAAAAAAAAAAAAAA'],
  ])('rejects a value with %s', (_case, sealed) => {
    expect(() => createSecretBox(key).open(sealed)).toThrow(/altered/)
  })

  it.each([
    ['16 bytes of base64', randomBytes(16).toString('base64'), /got 16 bytes/],
    ['33 bytes of base64', randomBytes(33).toString('base64'), /got 33 bytes/],
    ['62 hex characters', randomBytes(31).toString('hex'), /got 62 hex characters/],
    ['text that is neither', 'not a key!', /expected 32 bytes written as base64 or as 64 hex characters$/],
    ['an empty string', '', /expected 32 bytes/],
  ])('rejects a key of %s with a clear error', (_case, badKey, message) => {
    expect(() => createSecretBox(badKey)).toThrow(message)
  })

  it('never repeats the key in its error', () => {
    const badKey = randomBytes(20).toString('base64')
    expect(() => createSecretBox(badKey)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(badKey) }),
    )
  })
})

describe('generateSecretKey', () => {
  it('returns 32 random bytes as base64', () => {
    const first = generateSecretKey()
    expect(Buffer.from(first, 'base64')).toHaveLength(32)
    expect(first).not.toBe(generateSecretKey())
  })
})

describe('randomToken', () => {
  it('is the prefix, an underscore and base64url of the requested bytes', () => {
    const token = randomToken('ck', 24)
    expect(token).toMatch(/^ck_[A-Za-z0-9_-]{32}$/)
    expect(Buffer.from(token.slice(3), 'base64url')).toHaveLength(24)
    expect(token).not.toBe(randomToken('ck', 24))
  })
})

describe('constantTimeEqual', () => {
  it('is true for equal strings, including empty and non-ASCII ones', () => {
    expect(constantTimeEqual('token-1', 'token-1')).toBe(true)
    expect(constantTimeEqual('', '')).toBe(true)
    expect(constantTimeEqual('東京', '東京')).toBe(true)
  })

  it('is false for different strings of the same or another length', () => {
    expect(constantTimeEqual('token-1', 'token-2')).toBe(false)
    expect(constantTimeEqual('token', 'token-1')).toBe(false)
    expect(constantTimeEqual('a', '')).toBe(false)
  })
})

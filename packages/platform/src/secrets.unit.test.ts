import { createCipheriv, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  constantTimeEqual,
  createSecretBox,
  generateSecretKey,
  randomToken,
  secretKeyProblem,
} from './secrets.js'

const key = generateSecretKey()
const CONTEXT = '["merchant","mer_1","webhookSecret"]'

// Sealed by the first format's code (v1: no key id, no associated data), as deployments hold them.
const LEGACY_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
const LEGACY_SEALED = 'v1.gr1X9HYNAC9HGGuk.FQX8t5YsMCv6s_VpYDcS1xvkHHy2wE7ORMKJjOLcJlZbBri0Vm3IOSWVRtgfcIbd'
const LEGACY_PLAIN = 'whsec_sealed-by-the-first-format'
const OTHER_LEGACY_KEY = 'ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA='
const OTHER_LEGACY_SEALED = 'v1.wPnvQDdoTQeBN4bm.kWkq-g5i6q7egApFNnDnzO1doCNyBWNElfi5ydI-43wnz8PoOEvmT5Sfdw_3'

describe('createSecretBox', () => {
  it('round-trips text, including non-ASCII and empty text', () => {
    const box = createSecretBox(key)
    for (const plain of ['sk_live_7Hq2mV9xR4pL8wN3', 'Café ☕ 東京', '']) {
      expect(box.open(box.seal(plain, CONTEXT), CONTEXT)).toBe(plain)
    }
  })

  it('writes v2.<key id>.<12-byte iv>.<ciphertext+16-byte tag> in base64url', () => {
    const box = createSecretBox(key)
    const sealed = box.seal('abcd', CONTEXT)
    const [version, keyId, iv, body, ...rest] = sealed.split('.')
    expect(rest).toEqual([])
    expect(version).toBe('v2')
    expect(keyId).toMatch(/^[0-9a-f]{16}$/)
    expect(keyId).toBe(box.currentKeyId)
    expect(iv).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(Buffer.from(iv ?? '', 'base64url')).toHaveLength(12)
    expect(Buffer.from(body ?? '', 'base64url')).toHaveLength(4 + 16)
    expect(sealed).not.toContain('abcd')
  })

  it('names the key by an id that does not depend on how the key is written, and differs between keys', () => {
    const hex = Buffer.from(key, 'base64').toString('hex')
    expect(createSecretBox(hex).currentKeyId).toBe(createSecretBox(key).currentKeyId)
    expect(createSecretBox(generateSecretKey()).currentKeyId).not.toBe(createSecretBox(key).currentKeyId)
    expect(key).not.toContain(createSecretBox(key).currentKeyId)
  })

  it('uses a fresh IV for every seal', () => {
    const box = createSecretBox(key)
    expect(box.seal('same', CONTEXT)).not.toBe(box.seal('same', CONTEXT))
  })

  it('accepts the same key as hex', () => {
    const hex = Buffer.from(key, 'base64').toString('hex')
    const sealed = createSecretBox(key).seal('shared', CONTEXT)
    expect(createSecretBox(hex).open(sealed, CONTEXT)).toBe('shared')
    expect(createSecretBox(hex.toUpperCase()).open(sealed, CONTEXT)).toBe('shared')
  })

  it('accepts a base64url key', () => {
    const bytes = randomBytes(32)
    const box = createSecretBox(bytes.toString('base64url'))
    expect(createSecretBox(bytes.toString('base64')).open(box.seal('x', CONTEXT), CONTEXT)).toBe('x')
  })

  it('refuses to open a value sealed with a key it does not hold, naming the key id', () => {
    const sealer = createSecretBox(key)
    const sealed = sealer.seal('secret', CONTEXT)
    expect(() => createSecretBox(generateSecretKey()).open(sealed, CONTEXT)).toThrow(
      `sealed with key id ${sealer.currentKeyId}, which is not among the configured keys`,
    )
  })

  it('refuses to open a value under another context: a sealed value moved to another row stays shut', () => {
    const box = createSecretBox(key)
    const sealed = box.seal('whsec_of_merchant_1', '["merchant","mer_1","webhookSecret"]')
    for (const other of [
      '["merchant","mer_2","webhookSecret"]',
      '["api-key","mer_1","ck_1","secret"]',
      '["merchant","mer_1","webhookSecret"] ',
    ]) {
      expect(() => box.open(sealed, other)).toThrow(/sealed for another record/)
    }
    expect(box.open(sealed, '["merchant","mer_1","webhookSecret"]')).toBe('whsec_of_merchant_1')
  })

  it('wants a context to seal and to open', () => {
    const box = createSecretBox(key)
    expect(() => box.seal('x', '')).toThrow(/a context .* is required/)
    expect(() => box.open(box.seal('x', CONTEXT), '')).toThrow(/a context .* is required/)
  })

  it('detects tampering with the ciphertext, the tag, the IV and the key id', () => {
    const box = createSecretBox(key)
    const [version, keyId, iv, body] = box.seal('pay the merchant', CONTEXT).split('.') as [
      string,
      string,
      string,
      string,
    ]
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
    const open = (parts: string[]) => () => box.open(parts.join('.'), CONTEXT)
    expect(open([version, keyId, iv, flipFirstByte(body)])).toThrow(/altered/)
    expect(open([version, keyId, iv, flipLastByte(body)])).toThrow(/altered/)
    expect(open([version, keyId, flipFirstByte(iv), body])).toThrow(/altered/)
    expect(open([version, keyId.replace(/^./, (c) => (c === '0' ? '1' : '0')), iv, body])).toThrow(
      /not among the configured keys/,
    )
  })

  describe('key ring', () => {
    it('seals with the current key and opens what the previous keys sealed', () => {
      const oldKey = generateSecretKey()
      const newKey = generateSecretKey()
      const sealedBefore = createSecretBox(oldKey).seal('cs_before', CONTEXT)
      const ring = createSecretBox({ current: newKey, previous: [oldKey] })
      expect(ring.open(sealedBefore, CONTEXT)).toBe('cs_before')
      const sealedAfter = ring.seal('cs_after', CONTEXT)
      expect(sealedAfter.split('.')[1]).toBe(createSecretBox(newKey).currentKeyId)
      expect(createSecretBox(newKey).open(sealedAfter, CONTEXT)).toBe('cs_after')
      expect(() => createSecretBox(oldKey).open(sealedAfter, CONTEXT)).toThrow(
        /not among the configured keys/,
      )
    })

    it('tells values sealed with the current key from the rest', () => {
      const oldKey = generateSecretKey()
      const ring = createSecretBox({ current: key, previous: [oldKey] })
      expect(ring.isSealedWithCurrentKey(ring.seal('x', CONTEXT))).toBe(true)
      expect(ring.isSealedWithCurrentKey(createSecretBox(oldKey).seal('x', CONTEXT))).toBe(false)
      expect(ring.isSealedWithCurrentKey(LEGACY_SEALED)).toBe(false)
      expect(ring.isSealedWithCurrentKey('plain text')).toBe(false)
    })

    it('counts a key given twice once', () => {
      const hex = Buffer.from(key, 'base64').toString('hex')
      const box = createSecretBox({ current: key, previous: [hex, key] })
      expect(box.open(box.seal('x', CONTEXT), CONTEXT)).toBe('x')
    })

    it('checks every key of the ring', () => {
      expect(() => createSecretBox({ current: key, previous: ['short'] })).toThrow(/expected 32 bytes/)
    })
  })

  describe('values of the first format (v1)', () => {
    it('still open, with the key that sealed them, whatever the context', () => {
      expect(createSecretBox(LEGACY_KEY).open(LEGACY_SEALED, CONTEXT)).toBe(LEGACY_PLAIN)
      expect(createSecretBox(LEGACY_KEY).open(LEGACY_SEALED, '["other"]')).toBe(LEGACY_PLAIN)
    })

    it('open with any key of the ring, current or previous', () => {
      const ring = createSecretBox({ current: generateSecretKey(), previous: [OTHER_LEGACY_KEY, LEGACY_KEY] })
      expect(ring.open(LEGACY_SEALED, CONTEXT)).toBe(LEGACY_PLAIN)
      expect(ring.open(OTHER_LEGACY_SEALED, CONTEXT)).toBe('cs_sealed-by-the-first-format')
      expect(() => createSecretBox(generateSecretKey()).open(LEGACY_SEALED, CONTEXT)).toThrow(/altered/)
    })

    it('are never written: a re-seal writes v2', () => {
      const box = createSecretBox(LEGACY_KEY)
      const resealed = box.seal(box.open(LEGACY_SEALED, CONTEXT), CONTEXT)
      expect(resealed.startsWith(`v2.${box.currentKeyId}.`)).toBe(true)
      expect(box.open(resealed, CONTEXT)).toBe(LEGACY_PLAIN)
    })

    it('open nowhere once unbound values are refused (after a reseal moved them), while v2 values still do', () => {
      const box = createSecretBox({ current: LEGACY_KEY, unbound: 'refuse' })
      expect(() => box.open(LEGACY_SEALED, CONTEXT)).toThrow(/first format \(v1\), bound to no row/)
      expect(box.open(box.seal(LEGACY_PLAIN, CONTEXT), CONTEXT)).toBe(LEGACY_PLAIN)
    })

    it('detect tampering', () => {
      // a v1 value made the first format's way (AES-256-GCM, no associated data), then altered
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv)
      const body = Buffer.concat([cipher.update('secret', 'utf8'), cipher.final(), cipher.getAuthTag()])
      const sealed = `v1.${iv.toString('base64url')}.${body.toString('base64url')}`
      expect(createSecretBox(key).open(sealed, CONTEXT)).toBe('secret')
      body[0] = (body[0] ?? 0) ^ 1
      expect(() =>
        createSecretBox(key).open(`v1.${iv.toString('base64url')}.${body.toString('base64url')}`, CONTEXT),
      ).toThrow(/altered/)
    })
  })

  it.each([
    ['no parts', 'plain text'],
    ['another version', 'v3.0123456789abcdef.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['too many parts', 'v1.a.b.c.d'],
    ['a v2 value without its key id', 'v2.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['a key id that is not 16 hex characters', 'v2.XYZ.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA'],
  ])('rejects a value with %s as malformed', (_case, sealed) => {
    expect(() => createSecretBox(key).open(sealed, CONTEXT)).toThrow(
      /expected 'v2.<key id>.<iv>.<ciphertext>' or 'v1.<iv>.<ciphertext>'/,
    )
  })

  it.each([
    ['a short IV', 'v1.AAAA.AAAAAAAAAAAAAAAAAAAAAA'],
    ['a body shorter than the tag', 'v1.AAAAAAAAAAAAAAAA.AAAA'],
    ['non-base64url characters', 'v1.AAAAAAAAAAAAAAAA.AAAA+AAAAAAAAAAAAAAAAA'],
  ])('rejects a value with %s', (_case, sealed) => {
    expect(() => createSecretBox(key).open(sealed, CONTEXT)).toThrow(/altered/)
  })

  it.each([
    ['16 bytes of base64', randomBytes(16).toString('base64'), /got 16 bytes/],
    ['33 bytes of base64', randomBytes(33).toString('base64'), /got 33 bytes/],
    ['62 hex characters', randomBytes(31).toString('hex'), /got 62 hex characters/],
    ['text that is neither', 'not a key!', /expected 32 bytes written as base64 or as 64 hex characters$/],
    ['an empty string', '', /expected 32 bytes/],
  ])('rejects a key of %s with a clear error', (_case, badKey, message) => {
    expect(() => createSecretBox(badKey)).toThrow(message)
    expect(secretKeyProblem(badKey)).toMatch(message)
  })

  it('never repeats the key in its error', () => {
    const badKey = randomBytes(20).toString('base64')
    expect(() => createSecretBox(badKey)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(badKey) }),
    )
    expect(() => createSecretBox({ current: key, previous: [badKey] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(badKey) }),
    )
  })
})

describe('generateSecretKey', () => {
  it('returns 32 random bytes as base64', () => {
    const first = generateSecretKey()
    expect(Buffer.from(first, 'base64')).toHaveLength(32)
    expect(first).not.toBe(generateSecretKey())
    expect(secretKeyProblem(first)).toBeNull()
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

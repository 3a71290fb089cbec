// Secrets at rest: AES-256-GCM (node:crypto) under a 32-byte key from configuration. A sealed value
// is text: `v1.<base64url iv>.<base64url ciphertext+tag>`.

import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto'

export interface SecretBox {
  seal(plain: string): string
  /** throws when the value was not sealed with this key or was tampered with */
  open(sealed: string): string
}

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const VERSION = 'v1'
const HEX_KEY_PATTERN = /^[0-9a-fA-F]{64}$/
const ANY_HEX_PATTERN = /^[0-9a-fA-F]+$/
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/
const BASE64URL_PATTERN = /^[A-Za-z0-9_-]*$/

/** the key's bytes; the message never repeats the key text, which may be a real key with a typo */
function decodeKey(key: string): Buffer {
  const text = key.trim()
  const expected = 'secret key: expected 32 bytes written as base64 or as 64 hex characters'
  if (HEX_KEY_PATTERN.test(text)) return Buffer.from(text, 'hex')
  if (!BASE64_PATTERN.test(text)) throw new Error(expected)
  const bytes = Buffer.from(text, 'base64')
  if (bytes.length === KEY_BYTES) return bytes
  if (ANY_HEX_PATTERN.test(text)) throw new Error(`${expected}, got ${text.length} hex characters`)
  throw new Error(`${expected}, got ${bytes.length} bytes of base64`)
}

function decodeBase64Url(part: string): Buffer | undefined {
  return BASE64URL_PATTERN.test(part) ? Buffer.from(part, 'base64url') : undefined
}

/** key: 32 bytes, given as base64 or 64 hex characters */
export function createSecretBox(key: string): SecretBox {
  const keyBytes = decodeKey(key)
  const unopenable = () => new Error('sealed secret: not sealed with this key, or altered')

  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', keyBytes, iv)
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`
    },

    open(sealed) {
      const parts = sealed.split('.')
      if (parts.length !== 3 || parts[0] !== VERSION) {
        throw new Error(`sealed secret: expected '${VERSION}.<iv>.<ciphertext>'`)
      }
      const iv = decodeBase64Url(parts[1] ?? '')
      const body = decodeBase64Url(parts[2] ?? '')
      if (iv?.length !== IV_BYTES || body === undefined || body.length < TAG_BYTES) throw unopenable()
      const decipher = createDecipheriv('aes-256-gcm', keyBytes, iv, { authTagLength: TAG_BYTES })
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
      try {
        const plain = Buffer.concat([
          decipher.update(body.subarray(0, body.length - TAG_BYTES)),
          decipher.final(),
        ])
        return plain.toString('utf8')
      } catch {
        throw unopenable()
      }
    },
  }
}

/** a new random key in the form createSecretBox accepts (base64) */
export function generateSecretKey(): string {
  return randomBytes(KEY_BYTES).toString('base64')
}

/** random url-safe token with a prefix: randomToken('ck', 24) -> 'ck_' + base64url(24 random bytes) */
export function randomToken(prefix: string, bytes: number): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`
}

/**
 * Constant-time equality of two strings (false for different lengths, without early exit on
 * content). Both sides are hashed first, so the comparison always covers 32 bytes and neither the
 * length nor a common prefix of the secret leaks through timing.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a, 'utf8').digest()
  const digestB = createHash('sha256').update(b, 'utf8').digest()
  return timingSafeEqual(digestA, digestB)
}

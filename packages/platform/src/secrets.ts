// Secrets at rest: AES-256-GCM (node:crypto) under 32-byte keys from configuration.
//
// A sealed value is text: `v2.<key id>.<base64url iv>.<base64url ciphertext+tag>`. The key id names
// the key that sealed it, so that several keys can open (a key ring: the current key seals, older
// keys still open until every value is re-sealed). The associated data binds the value to what it
// protects (the caller's context, e.g. "the webhook secret of merchant X"): a sealed value copied
// into another row does not open there. Values of the first format, `v1.<iv>.<ciphertext+tag>`
// (no key id, no associated data), still open with any key of the ring; only v2 is written.

import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto'

export interface SecretBox {
  /**
   * seals `plain` under the current key, bound to `context` (what the value protects, e.g. a
   * record kind, its id and the field name); the same context must be given to open it
   */
  seal(plain: string, context: string): string
  /** throws when no key of the ring sealed the value, it was altered, or it was sealed for another context */
  open(sealed: string, context: string): string
  /** true when the value is in the current format under the current key: re-sealing it changes nothing */
  isSealedWithCurrentKey(sealed: string): boolean
  /** the current key's id, as written in the values it seals */
  readonly currentKeyId: string
}

/** the keys a SecretBox uses: the current key seals and opens; the previous ones only open */
export interface SecretKeys {
  current: string
  previous?: readonly string[]
  /**
   * values of the first format (v1), bound to no row: 'open' (the default, until `secrets reseal` has
   * moved them all) or 'refuse', so that a v1 value copied into another row opens nowhere
   * (docs/operations.md, "Rotating the encryption key")
   */
  unbound?: 'open' | 'refuse'
}

const KEY_BYTES = 32
const IV_BYTES = 12
const TAG_BYTES = 16
const LEGACY_VERSION = 'v1'
const VERSION = 'v2'
const KEY_ID_PATTERN = /^[0-9a-f]{16}$/
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

/**
 * 64 bits of a hash of the key, under a label of its own: it tells keys apart without revealing
 * anything about a 256-bit random key
 */
function keyIdOf(keyBytes: Buffer): string {
  return createHash('sha256')
    .update('chainpay sealed-secret key id\0', 'utf8')
    .update(keyBytes)
    .digest('hex')
    .slice(0, 16)
}

/**
 * The associated data of a v2 value: its header and the context. The key id has a fixed length and
 * the context comes last, so no two (key id, context) pairs give the same bytes.
 */
function associatedData(keyId: string, context: string): Buffer {
  return Buffer.from(`chainpay sealed secret ${VERSION}\0${keyId}\0${context}`, 'utf8')
}

function decodeBase64Url(part: string): Buffer | undefined {
  return BASE64URL_PATTERN.test(part) ? Buffer.from(part, 'base64url') : undefined
}

interface RingKey {
  id: string
  bytes: Buffer
}

/** the key ring from configuration; the same key given twice counts once */
function keyRing(keys: string | SecretKeys): { current: RingKey; all: RingKey[] } {
  const { current, previous = [] } = typeof keys === 'string' ? { current: keys } : keys
  const all: RingKey[] = []
  for (const key of [current, ...previous]) {
    const bytes = decodeKey(key)
    const id = keyIdOf(bytes)
    const same = all.find((known) => known.id === id)
    if (same === undefined) all.push({ id, bytes })
    else if (!same.bytes.equals(bytes)) throw new Error('secret keys: two different keys share a key id')
  }
  return { current: all[0] as RingKey, all }
}

const unopenable = () =>
  new Error('sealed secret: not sealed with a configured key, or altered, or sealed for another record')
const malformed = () =>
  new Error(
    `sealed secret: expected '${VERSION}.<key id>.<iv>.<ciphertext>' or '${LEGACY_VERSION}.<iv>.<ciphertext>'`,
  )

/**
 * keys: the current key (32 bytes, given as base64 or 64 hex characters), or the current key and the
 * previous ones that still open what they sealed
 */
export function createSecretBox(keys: string | SecretKeys): SecretBox {
  const ring = keyRing(keys)
  const unbound = typeof keys === 'string' ? 'open' : (keys.unbound ?? 'open')

  const decrypt = (keyBytes: Buffer, iv: Buffer, body: Buffer, aad: Buffer | null): string | undefined => {
    const decipher = createDecipheriv('aes-256-gcm', keyBytes, iv, { authTagLength: TAG_BYTES })
    if (aad !== null) decipher.setAAD(aad)
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
    try {
      const plain = Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ])
      return plain.toString('utf8')
    } catch {
      return undefined
    }
  }

  const ivAndBody = (ivPart: string, bodyPart: string): { iv: Buffer; body: Buffer } => {
    const iv = decodeBase64Url(ivPart)
    const body = decodeBase64Url(bodyPart)
    if (iv?.length !== IV_BYTES || body === undefined || body.length < TAG_BYTES) throw unopenable()
    return { iv, body }
  }

  const requireContext = (context: string) => {
    if (typeof context !== 'string' || context === '') {
      throw new Error('sealed secret: a context (what the value protects) is required')
    }
  }

  return {
    currentKeyId: ring.current.id,

    seal(plain, context) {
      requireContext(context)
      const { id, bytes } = ring.current
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', bytes, iv, { authTagLength: TAG_BYTES })
      cipher.setAAD(associatedData(id, context))
      const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${VERSION}.${id}.${iv.toString('base64url')}.${sealed.toString('base64url')}`
    },

    open(sealed, context) {
      requireContext(context)
      const parts = sealed.split('.')
      if (parts.length === 4 && parts[0] === VERSION) {
        const [, keyId = '', ivPart = '', bodyPart = ''] = parts
        if (!KEY_ID_PATTERN.test(keyId)) throw malformed()
        const key = ring.all.find((known) => known.id === keyId)
        if (key === undefined) {
          throw new Error(
            `sealed secret: sealed with key id ${keyId}, which is not among the configured keys`,
          )
        }
        const { iv, body } = ivAndBody(ivPart, bodyPart)
        const plain = decrypt(key.bytes, iv, body, associatedData(keyId, context))
        if (plain === undefined) throw unopenable()
        return plain
      }
      if (parts.length === 3 && parts[0] === LEGACY_VERSION) {
        if (unbound === 'refuse') {
          throw new Error(
            'sealed secret: a value of the first format (v1), bound to no row, and CHAINPAY_UNBOUND_SECRETS=refuse',
          )
        }
        // no key id: every key of the ring is tried; the tag tells the right one
        const { iv, body } = ivAndBody(parts[1] ?? '', parts[2] ?? '')
        for (const key of ring.all) {
          const plain = decrypt(key.bytes, iv, body, null)
          if (plain !== undefined) return plain
        }
        throw unopenable()
      }
      throw malformed()
    },

    isSealedWithCurrentKey(sealed) {
      const parts = sealed.split('.')
      return parts.length === 4 && parts[0] === VERSION && parts[1] === ring.current.id
    },
  }
}

/** the problem with a key, or null when createSecretBox accepts it; never repeats the key */
export function secretKeyProblem(key: string): string | null {
  try {
    decodeKey(key)
    return null
  } catch (error) {
    return (error as Error).message
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

/**
 * Keys for another purpose than sealing, derived from the ring (HKDF-SHA256, `purpose` as the info),
 * the current key's first: what the current one makes, every configured one still checks, during a
 * key rotation (docs/operations.md, "Rotating the encryption key").
 */
export function derivedKeys(keys: string | SecretKeys, purpose: string): Buffer[] {
  return keyRing(keys).all.map((key) =>
    Buffer.from(hkdfSync('sha256', key.bytes, Buffer.alloc(0), `chainpay ${purpose}`, KEY_BYTES)),
  )
}

// HMAC-SHA256 through Web Crypto (Node 20+, Deno, Bun, browsers, edge runtimes): the SDK carries no
// cryptography of its own. Request signing is docs/api.md "Authentication"; webhook signing is
// docs/api.md "Webhooks".

const encoder = new TextEncoder()
const HEX_64 = /^[0-9a-fA-F]{64}$/

function subtle(): SubtleCrypto {
  const crypto = globalThis.crypto
  if (!crypto?.subtle)
    throw new Error('@chainpay/sdk needs Web Crypto (globalThis.crypto.subtle): Node 20+ or a modern runtime')
  return crypto.subtle
}

function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage])
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(hex.length / 2))
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return bytes
}

/** lower-case hex HMAC-SHA256 of the message's UTF-8 bytes, keyed with the secret's UTF-8 bytes */
export async function hmacSha256Hex(secret: string, message: string): Promise<string> {
  return toHex(await subtle().sign('HMAC', await hmacKey(secret, 'sign'), encoder.encode(message)))
}

/** whether `signature` (hex, either case) is the HMAC of the message; Web Crypto compares in constant time */
export async function hmacSha256Matches(
  secret: string,
  message: string,
  signature: string,
): Promise<boolean> {
  if (!HEX_64.test(signature)) return false
  return subtle().verify('HMAC', await hmacKey(secret, 'verify'), fromHex(signature), encoder.encode(message))
}

/** the three headers of a signed merchant API request: the message is `${timestamp}.${METHOD}.${path}.${body}` */
export async function signRequest(
  credentials: { apiKey: string; apiSecret: string },
  request: { method: string; path: string; body: string },
  timestampMs: number,
): Promise<Record<string, string>> {
  const timestamp = String(Math.trunc(timestampMs))
  const message = `${timestamp}.${request.method.toUpperCase()}.${request.path}.${request.body}`
  return {
    'x-service-key': credentials.apiKey,
    'x-service-timestamp': timestamp,
    'x-service-signature': await hmacSha256Hex(credentials.apiSecret, message),
  }
}

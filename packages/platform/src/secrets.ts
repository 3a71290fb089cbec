// Secrets at rest: AES-256-GCM (node:crypto) under a 32-byte key from configuration. A sealed value
// is text: `v1.<base64url iv>.<base64url ciphertext+tag>`.

export interface SecretBox {
  seal(plain: string): string
  /** throws when the value was not sealed with this key or was tampered with */
  open(sealed: string): string
}

/** key: 32 bytes, given as base64 or 64 hex characters */
export declare function createSecretBox(key: string): SecretBox

/** a new random key in the form createSecretBox accepts (base64) */
export declare function generateSecretKey(): string

/** random url-safe token with a prefix: randomToken('ck', 24) -> 'ck_' + base64url(24 random bytes) */
export declare function randomToken(prefix: string, bytes: number): string

/** constant-time equality of two strings (false for different lengths, without early exit on content) */
export declare function constantTimeEqual(a: string, b: string): boolean

// Passwords as Argon2id hashes (docs/dashboard.md, "Users"): Node's own crypto.argon2 with OWASP's
// parameters (Password Storage Cheat Sheet: m=19 MiB, t=2, p=1), a 16-byte random salt, kept as a
// PHC string so that the parameters travel with the hash and can be raised later. Verified by
// recomputing under the stored parameters and comparing in constant time.

import { argon2, randomBytes, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const argon2Async = promisify(argon2)

export interface Argon2Parameters {
  /** KiB */
  memory: number
  passes: number
  parallelism: number
}

/** OWASP's minimum for Argon2id */
export const OWASP_ARGON2ID: Argon2Parameters = { memory: 19_456, passes: 2, parallelism: 1 }

const TAG_LENGTH = 32
/** what a password may be: long enough to resist guessing, short enough not to be a hashing DoS */
export const PASSWORD_LENGTH = { min: 12, max: 256 } as const

export async function hashPassword(
  password: string,
  parameters: Argon2Parameters = OWASP_ARGON2ID,
): Promise<string> {
  const salt = randomBytes(16)
  const tag = await derive(password, salt, parameters, TAG_LENGTH)
  const { memory, passes, parallelism } = parameters
  return `$argon2id$v=19$m=${memory},t=${passes},p=${parallelism}$${b64(salt)}$${b64(tag)}`
}

/** whether `password` is the one `hash` was made of; false for a hash this code did not make */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parts = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(hash)
  if (parts === null) return false
  const [, memory, passes, parallelism, salt, tag] = parts as unknown as string[]
  const expected = Buffer.from(tag as string, 'base64')
  const actual = await derive(
    password,
    Buffer.from(salt as string, 'base64'),
    { memory: Number(memory), passes: Number(passes), parallelism: Number(parallelism) },
    expected.length,
  )
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

function derive(password: string, salt: Buffer, parameters: Argon2Parameters, tagLength: number) {
  return argon2Async('argon2id', {
    message: Buffer.from(password.normalize('NFC'), 'utf8'),
    nonce: salt,
    tagLength,
    ...parameters,
  })
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '')
}

// TOTP for owners (docs/dashboard.md, "Signing in"), through the otpauth library: RFC 6238 with
// SHA-1, 6 digits, 30-second steps, what every authenticator app reads. A code is accepted one step
// either side of now (clocks drift) and once: the step it matched is kept on the user, and a code of
// that step or an earlier one is refused after.

import { Secret, TOTP } from 'otpauth'

const ISSUER = 'chainpay'

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32
}

function totpOf(secret: string, account: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: account,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  })
}

/** the otpauth:// URI an authenticator app takes (as text, or as a QR code of it) */
export function totpUri(secret: string, account: string): string {
  return totpOf(secret, account).toString()
}

/**
 * The time step the code matches, or null: wrong, malformed, or of a step not after `lastStep` (a
 * code used already). The comparison is otpauth's, in constant time.
 */
export function acceptTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  const token = code.replace(/\s/g, '')
  if (!/^\d{6}$/.test(token)) return null
  const totp = totpOf(secret, '')
  const delta = totp.validate({ token, timestamp: now.getTime(), window: 1 })
  if (delta === null) return null
  const step = totp.counter({ timestamp: now.getTime() }) + delta
  return lastStep !== null && step <= lastStep ? null : step
}

import { Secret, TOTP } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './passwords.js'
import { acceptTotp, newTotpSecret, totpUri } from './totp.js'

describe('passwords', () => {
  it('given a password hashed with Argon2id, when verified, then only that password matches', async () => {
    const hash = await hashPassword('correct horse battery staple')
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true)
    expect(await verifyPassword('correct horse battery stapl', hash)).toBe(false)
    // a fresh salt each time
    expect(await hashPassword('correct horse battery staple')).not.toBe(hash)
  })
  it('given a hash this code did not make, when verified, then nothing matches', async () => {
    expect(await verifyPassword('x', '$2b$10$abcdefghijklmnopqrstuv')).toBe(false)
  })
})

describe('TOTP', () => {
  const secret = newTotpSecret()
  const now = new Date('2030-01-01T00:00:10.000Z')
  const codeAt = (time: Date) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: time.getTime() })

  it('given the code of now or of a step either side, when typed, then it is accepted with its step', () => {
    const step = Math.floor(now.getTime() / 30_000)
    expect(acceptTotp(secret, codeAt(now), now, null)).toBe(step)
    expect(acceptTotp(secret, codeAt(new Date(now.getTime() - 30_000)), now, null)).toBe(step - 1)
    expect(acceptTotp(secret, codeAt(new Date(now.getTime() + 30_000)), now, null)).toBe(step + 1)
    expect(acceptTotp(secret, codeAt(new Date(now.getTime() - 90_000)), now, null)).toBeNull()
  })
  it('given a code used already, when typed again, then it is refused', () => {
    const step = acceptTotp(secret, codeAt(now), now, null)
    expect(acceptTotp(secret, codeAt(now), now, step)).toBeNull()
  })
  it('given something not six digits, then it is refused', () => {
    expect(acceptTotp(secret, 'abcdef', now, null)).toBeNull()
    expect(acceptTotp(secret, '', now, null)).toBeNull()
  })
  it('given a secret, then the otpauth URI names chainpay and the account', () => {
    expect(totpUri(secret, 'a@shop.example')).toBe(
      `otpauth://totp/chainpay:a%40shop.example?issuer=chainpay&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    )
  })
})

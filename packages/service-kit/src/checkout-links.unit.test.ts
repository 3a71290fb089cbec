import { generateSecretKey, readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { createCheckoutLinks, readPublicUrl } from './checkout-links.js'

const paymentId = '0b6f3c1e-8d4a-4c2b-9a57-3f1e2d4c5b6a'

describe('checkout links', () => {
  const key = generateSecretKey()
  const links = createCheckoutLinks({ publicUrl: 'https://pay.example.com/', keys: key })

  it('makes {PUBLIC_URL}/pay/{token} and reads the payment id back from the token', () => {
    const url = links.urlOf(paymentId)
    expect(url).toMatch(/^https:\/\/pay\.example\.com\/pay\/[A-Za-z0-9_-]{44}$/)
    const token = url.split('/').at(-1) as string
    expect(links.paymentIdOf(token)).toBe(paymentId)
    expect(links.urlOf(paymentId.toUpperCase())).toBe(url)
  })

  it('refuses a token whose MAC was not made under a configured key, or was altered', () => {
    const token = links.urlOf(paymentId).split('/').at(-1) as string
    const other = createCheckoutLinks({ publicUrl: 'https://pay.example.com', keys: generateSecretKey() })
    expect(other.paymentIdOf(token)).toBeNull()
    const flipped = token.slice(0, 30) + (token[30] === 'A' ? 'B' : 'A') + token.slice(31)
    expect(links.paymentIdOf(flipped)).toBeNull()
    expect(links.paymentIdOf(paymentId)).toBeNull()
    expect(links.paymentIdOf('')).toBeNull()
  })

  it('still opens links made under a previous key after a rotation', () => {
    const token = links.urlOf(paymentId).split('/').at(-1) as string
    const rotated = createCheckoutLinks({
      publicUrl: 'https://pay.example.com',
      keys: { current: generateSecretKey(), previous: [key] },
    })
    expect(rotated.paymentIdOf(token)).toBe(paymentId)
    expect(rotated.urlOf(paymentId)).not.toContain(token)
  })

  it('reads PUBLIC_URL, with a default, and refuses what is not an http(s) URL', () => {
    expect(readPublicUrl(readEnv({}), 'http://localhost:8080')).toBe('http://localhost:8080')
    expect(readPublicUrl(readEnv({ PUBLIC_URL: 'https://pay.example.com/' }), 'x')).toBe(
      'https://pay.example.com',
    )
    const read = readEnv({ PUBLIC_URL: 'ftp://pay.example.com' })
    readPublicUrl(read, 'http://localhost:8080')
    expect(() => read.done()).toThrow(/PUBLIC_URL/)
  })

  it('refuses a PUBLIC_URL with a path, a query or a fragment, saying to route /pay/ of the host instead', () => {
    expect(readPublicUrl(readEnv({ PUBLIC_URL: 'https://pay.example.com:8443' }), 'x')).toBe(
      'https://pay.example.com:8443',
    )
    for (const publicUrl of [
      'https://shop.example.com/checkout',
      'https://shop.example.com/checkout/',
      'https://pay.example.com/?a=1',
      'https://pay.example.com/?',
      'https://pay.example.com/#top',
      'https://user:secret@pay.example.com',
    ]) {
      const read = readEnv({ PUBLIC_URL: publicUrl })
      readPublicUrl(read, 'http://localhost:8080')
      expect(() => read.done(), publicUrl).toThrow(/PUBLIC_URL: expected an origin without path, query/)
      expect(() => read.done(), publicUrl).not.toThrow(/secret/)
    }
    const read = readEnv({ PUBLIC_URL: 'https://shop.example.com/checkout' })
    readPublicUrl(read, 'http://localhost:8080')
    expect(() => read.done()).toThrow(
      "route /pay/ of 'https://shop.example.com' to the gateway and set PUBLIC_URL=https://shop.example.com",
    )
  })
})

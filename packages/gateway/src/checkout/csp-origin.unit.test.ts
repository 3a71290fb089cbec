import { describe, expect, it } from 'vitest'
import { cspOriginOf } from './csp-origin.js'

describe('cspOriginOf', () => {
  it("writes an http(s) URL's origin, lower-cased and punycoded, with its port", () => {
    expect(cspOriginOf('https://Shop.Example/cart?x=1#y')).toBe('https://shop.example')
    expect(cspOriginOf('http://127.0.0.1:8080/cart')).toBe('http://127.0.0.1:8080')
    expect(cspOriginOf('https://bücher.example/')).toBe('https://xn--bcher-kva.example')
  })

  it('refuses a host that would split or widen a CSP directive, and other schemes', () => {
    // the URL parser keeps these in the host, and so in URL.origin
    expect(new URL('https://a;script-src*;x/').origin).toBe('https://a;script-src*;x')
    for (const url of [
      'https://a;script-src*;x/',
      'https://a%3Bb/',
      "https://a'b/",
      'https://a,b/',
      'https://[::1]/',
      'javascript:alert(1)',
      'not a url',
    ]) {
      expect(cspOriginOf(url), url).toBeNull()
    }
  })
})

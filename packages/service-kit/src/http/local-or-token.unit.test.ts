import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { configProblems } from '../testing/config-problems.js'
import { isLocalCaller, readAccessToken } from './local-or-token.js'

describe('isLocalCaller', () => {
  it('takes loopback addresses, IPv4, IPv6 and IPv4-mapped', () => {
    for (const remoteAddress of ['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1']) {
      expect(isLocalCaller({ remoteAddress, localAddress: '127.0.0.1' }), remoteAddress).toBe(true)
    }
  })

  it('takes a connection from the address it came in on: this host calling its own HOST', () => {
    expect(isLocalCaller({ remoteAddress: '10.0.0.5', localAddress: '10.0.0.5' })).toBe(true)
    expect(isLocalCaller({ remoteAddress: '::ffff:10.0.0.5', localAddress: '::ffff:10.0.0.5' })).toBe(true)
  })

  it('refuses every other address, and a socket that does not say', () => {
    for (const remoteAddress of [
      '10.0.0.6',
      '203.0.113.9',
      '::ffff:10.0.0.6',
      'fe80::1',
      '128.0.0.1',
      '::2',
    ]) {
      expect(isLocalCaller({ remoteAddress, localAddress: '10.0.0.5' }), remoteAddress).toBe(false)
    }
    expect(isLocalCaller({ localAddress: '127.0.0.1' })).toBe(false)
    expect(isLocalCaller({ remoteAddress: '10.0.0.6' })).toBe(false)
  })
})

describe('readAccessToken', () => {
  it('is undefined when unset, and the value when it is long enough and fits a header', () => {
    expect(readAccessToken(readEnv({}), 'SIMULATOR_TOKEN')).toBeUndefined()
    const token = '0123456789abcdef0123456789abcdef'
    expect(readAccessToken(readEnv({ SIMULATOR_TOKEN: token }), 'SIMULATOR_TOKEN')).toBe(token)
  })

  it.each([
    ['short', 'abc'],
    ['with a space', '0123456789abcdef 0123456789abcdef'],
    ['not ASCII', '0123456789abcdef0123456789abcdé'],
  ])('refuses a token %s, without repeating it', (_case, token) => {
    const read = readEnv({ SIMULATOR_TOKEN: token })
    expect(readAccessToken(read, 'SIMULATOR_TOKEN')).toBeUndefined()
    const problems = configProblems(() => read.done())
    expect(problems).toEqual([
      expect.stringMatching(
        /^SIMULATOR_TOKEN: expected at least 32 visible ASCII characters without spaces \(e.g. openssl rand -hex 32\), got \d+ characters$/,
      ),
    ])
  })
})

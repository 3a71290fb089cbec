import { describe, expect, it } from 'vitest'
import { addressGroupOf } from './connections-per-address.js'

describe('addressGroupOf: what counts as one client of the public port', () => {
  it('is an IPv4 address as it is, mapped into IPv6 or not', () => {
    expect(addressGroupOf('203.0.113.9')).toBe('203.0.113.9')
    expect(addressGroupOf('::ffff:203.0.113.9')).toBe('203.0.113.9')
    expect(addressGroupOf('::FFFF:127.0.0.1')).toBe('127.0.0.1')
    expect(addressGroupOf('203.0.113.10')).not.toBe(addressGroupOf('203.0.113.9'))
  })

  it('is the /64 of an IPv6 address, however it is written', () => {
    const group = '2001:db8:0:1::/64'
    for (const address of [
      '2001:db8:0:1::1',
      '2001:db8:0:1:ffff:ffff:ffff:ffff',
      '2001:0DB8:0000:0001:0:0:0:9',
      '2001:db8::1:0:0:0:9',
      '2001:db8:0:1::1.2.3.4',
      '2001:db8:0:1::1%eth0',
    ]) {
      expect(addressGroupOf(address)).toBe(group)
    }
    expect(addressGroupOf('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64')
    expect(addressGroupOf('2001:db8::')).toBe('2001:db8::/64')
    expect(addressGroupOf('::1')).toBe('::/64')
    expect(addressGroupOf('fe80::1%eth0')).toBe('fe80::/64')
    expect(addressGroupOf('1:2:3:4:5:6:7:8')).toBe('1:2:3:4::/64')
    expect(addressGroupOf('1:2:3::')).toBe('1:2:3::/64')
  })
})

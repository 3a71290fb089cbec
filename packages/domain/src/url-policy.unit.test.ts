import { describe, expect, it } from 'vitest'
import { callbackUrlProblem, isNonPublicAddress } from './url-policy.js'

describe('isNonPublicAddress', () => {
  it.each([
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '10.255.255.255',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.9.9.9',
    '169.254.169.254',
    '169.254.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.168.1.1',
    '198.18.0.1',
    '198.19.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
  ])('IPv4 %s is not public', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(true)
  })

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '198.20.0.1',
    '223.255.255.255',
    '93.184.216.34',
  ])('IPv4 %s is public', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(false)
  })

  it.each([
    '::',
    '::1',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd12:3456:789a::1',
    'fd00:ec2::254',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '::127.0.0.1',
  ])('IPv6 %s is not public', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(true)
  })

  // docs/api.md, "Callback addresses": ranges that are not globally reachable, or that tunnel to an
  // IPv4 address written into the IPv6 one; each with its first and last address
  it.each([
    ['IPv4-translated ::ffff:0:0:0/96', '::ffff:0:0:0', '::ffff:0:ffff:ffff'],
    ['IPv4-translated, dotted', '::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8'],
    ['NAT64 local-use 64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['NAT64 local-use, dotted', '64:ff9b:1::10.0.0.1', '64:ff9b:1::8.8.8.8'],
    ['discard-only 100::/64', '100::', '100::ffff:ffff:ffff:ffff'],
    ['Teredo 2001::/32', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['Teredo, a real-looking one', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:0:5ef5:79fd::1'],
    ['6to4 2002::/16', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['6to4 of 127.0.0.1 and of 8.8.8.8', '2002:7f00:1::1', '2002:808:808::1'],
    ['site-local fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ])('%s is not public', (_range, first, last) => {
    expect(isNonPublicAddress(first)).toBe(true)
    expect(isNonPublicAddress(last)).toBe(true)
  })

  it.each([
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    // just outside each range above
    '::fffe:ffff:ffff:ffff',
    '::ffff:1:0:0',
    '64:ff9b:2::8.8.8.8',
    '100:0:0:1::',
    '2001:1::1',
    '2003::1',
  ])('%s is public', (ip) => {
    expect(isNonPublicAddress(ip)).toBe(false)
  })

  it.each(['', 'localhost', 'example.com', '256.1.1.1', '1.2.3'])('%j is not an address at all', (text) => {
    expect(isNonPublicAddress(text)).toBe(false)
  })
})

describe('callbackUrlProblem', () => {
  const production = { allowInsecure: false }
  const development = { allowInsecure: true }

  it('accepts a public https URL', () => {
    expect(callbackUrlProblem('https://shop.example.com/hooks/chainpay?x=1', production)).toBeNull()
    expect(callbackUrlProblem('https://93.184.216.34/hook', production)).toBeNull()
    expect(callbackUrlProblem('https://[2606:4700:4700::1111]/hook', production)).toBeNull()
  })

  it('rejects http unless insecure URLs are allowed', () => {
    expect(callbackUrlProblem('http://shop.example.com/hook', production)).toBe('must use https')
    expect(callbackUrlProblem('http://shop.example.com/hook', development)).toBeNull()
  })

  it.each([
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[fd00::1]/hook',
    'https://2130706433/hook', // 127.0.0.1 written as one number
    'https://0x7f.1/hook',
    'https://[2002:a9fe:a9fe::1]/latest/meta-data', // 6to4 of 169.254.169.254
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', // Teredo
    'https://[64:ff9b:1::a00:1]/hook', // NAT64 local-use
    'https://[fec0::1]/hook', // site-local
    'https://[100::1]/hook', // discard-only
    'https://[::ffff:0:7f00:1]/hook', // IPv4-translated 127.0.0.1
  ])('rejects the private address in %s unless insecure URLs are allowed', (url) => {
    expect(callbackUrlProblem(url, production)).toBe('must not point at a private address')
    expect(callbackUrlProblem(url, development)).toBeNull()
  })

  it.each([
    'https://localhost/hook',
    'https://LOCALHOST:8443/hook',
    'https://localhost./hook',
    'https://shop.localhost/hook',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://db.internal/hook',
    'https://metadata/hook',
  ])('rejects the local host name in %s unless insecure URLs are allowed', (url) => {
    expect(callbackUrlProblem(url, production)).toBe('must not point at a local or internal host name')
    expect(callbackUrlProblem(url, development)).toBeNull()
  })

  it.each([
    '/hooks/chainpay',
    'shop.example.com/hook',
    'ftp://shop.example.com/hook',
    'javascript:alert(1)',
    'file:///etc/passwd',
    '',
  ])('always rejects %j, which is not an absolute http(s) URL', (url) => {
    expect(callbackUrlProblem(url, production)).toBe('must be an absolute http(s) URL')
    expect(callbackUrlProblem(url, development)).toBe('must be an absolute http(s) URL')
  })

  it('always rejects a URL longer than 2048 characters', () => {
    const base = 'https://shop.example.com/'
    expect(callbackUrlProblem(base + 'a'.repeat(2048 - base.length), production)).toBeNull()
    expect(callbackUrlProblem(base + 'a'.repeat(2049 - base.length), development)).toBe(
      'must be at most 2048 characters',
    )
  })
})

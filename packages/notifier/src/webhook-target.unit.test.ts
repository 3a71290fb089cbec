import type { LookupAddress } from 'node:dns'
import { NotPublicAddressError } from '@chainpay/service-kit'
import { describe, expect, it } from 'vitest'
import { publicAddressLookup, webhookTargetProblem } from './webhook-target.js'

function lookUp(
  addresses: string[],
  options: { all?: boolean; family?: number } = {},
): Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }> {
  const lookup = publicAddressLookup(async () => addresses)
  return new Promise((resolve) =>
    lookup('hooks.example', options, (error, address, family) => resolve({ error, address, family })),
  )
}

describe('webhookTargetProblem', () => {
  it('accepts a public https URL', () => {
    expect(webhookTargetProblem('https://hooks.example/chainpay', { allowPrivateTargets: false })).toBeNull()
  })

  it.each([
    ['http://hooks.example/', /must use https/],
    ['https://10.0.0.8/hooks', /private address/],
    ['https://169.254.169.254/latest', /private address/],
    ['https://localhost/hooks', /local or internal host name/],
    ['ftp://hooks.example/', /absolute http\(s\) URL/],
  ])('refuses %s in production', (url, problem) => {
    expect(webhookTargetProblem(url, { allowPrivateTargets: false })).toMatch(problem)
  })

  it('allows http and loopback when private targets are allowed, but still wants an http(s) URL', () => {
    expect(webhookTargetProblem('http://127.0.0.1:8080/hooks', { allowPrivateTargets: true })).toBeNull()
    expect(webhookTargetProblem('not a url', { allowPrivateTargets: true })).toMatch(/absolute http\(s\) URL/)
  })
})

describe('publicAddressLookup', () => {
  it('hands over public addresses, all of them or the first', async () => {
    expect(await lookUp(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
      family: undefined,
    })
    expect(await lookUp(['93.184.215.14'])).toEqual({ error: null, address: '93.184.215.14', family: 4 })
  })

  it('keeps to the family asked for', async () => {
    const answer = await lookUp(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'], { family: 6 })
    expect(answer).toMatchObject({ address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 })
  })

  it.each([
    [['93.184.215.14', '10.1.2.3']],
    [['::ffff:127.0.0.1']],
    [['fd00::1']],
    [['2002:a9fe:a9fe::1']],
    [['2001:0:4136:e378:8000:63bf:3fff:fdd2']],
    [['64:ff9b:1::a00:1']],
    [['fec0::1']],
    [['100::1']],
    [['::ffff:0:a00:1']],
    [[]],
  ])('refuses a name resolving to %j, naming the addresses for the log only', async (addresses) => {
    const { error } = await lookUp(addresses, { all: true })
    expect(error).toBeInstanceOf(NotPublicAddressError)
    expect(error).toMatchObject({ code: 'ENOTPUBLIC', resolvedAddresses: addresses })
    expect(error?.message).toBe('webhook target hooks.example is not a public address')
  })

  it('passes resolution errors on', async () => {
    const lookup = publicAddressLookup(async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example'), { code: 'ENOTFOUND' })
    })
    const error = await new Promise((resolve) => lookup('hooks.example', {}, (failure) => resolve(failure)))
    expect(error).toMatchObject({ code: 'ENOTFOUND' })
  })
})

import { describe, expect, it } from 'vitest'
import { resolveHostWithDns } from './webhook-target.js'

describe('resolveHostWithDns', () => {
  it('resolves a name to every address the system knows for it', async () => {
    const addresses = await resolveHostWithDns('localhost')
    expect(addresses.length).toBeGreaterThan(0)
    expect(addresses.every((address) => address === '::1' || address.startsWith('127.'))).toBe(true)
  })

  it('passes the failure of an unknown name on', async () => {
    // ENOTFOUND, or EAI_AGAIN where no resolver answers at all
    await expect(resolveHostWithDns('no-such-host.invalid')).rejects.toMatchObject({
      code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/),
    })
  })
})

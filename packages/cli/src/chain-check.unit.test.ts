import { defaultAssetRegistry, findNetwork, type NetworkDefinition } from '@chainpay/domain'
import { ChainRpcError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { describeHeadFailure } from './chain-check.js'
import { identifyGenesis } from './chain-identity.js'

function network(name: string): NetworkDefinition {
  const definition = findNetwork(defaultAssetRegistry, name)
  if (!definition) throw new Error(`no network ${name}`)
  return definition
}

const endpoint = { rpcUrl: 'https://api.trongrid.io/path-with-key?key=secret', timeoutMs: 5000 }

describe('describeHeadFailure', () => {
  it('tells a rate limit, with the wait asked for, and what to do about it on each chain', async () => {
    const limited = new ChainRpcError('rate-limited', 'TRON wallet/getnowblock failed: HTTP 429', {
      retryAfterMs: 30_000,
    })
    expect(await describeHeadFailure(limited, network('TRON'), endpoint)).toBe(
      "https://api.trongrid.io rate limits this client, asked to wait 30 s: TRON wallet/getnowblock failed: HTTP 429; TronGrid needs an API key (--api-key or TRON_RPC_API_KEY), and a 403 can also mean the key's quota is spent",
    )
    const solana = new ChainRpcError('rate-limited', 'HTTP 429 Too Many Requests')
    expect(
      await describeHeadFailure(solana, network('SOLANA_DEVNET'), {
        rpcUrl: 'https://api.devnet.solana.com',
        timeoutMs: 5000,
      }),
    ).toBe(
      'https://api.devnet.solana.com rate limits this client: HTTP 429 Too Many Requests; public Solana endpoints allow a few requests per second: use a private RPC URL',
    )
  })

  it('tells a timeout, naming the limit and how to change it, and never the URL past its host', async () => {
    const slow = new ChainRpcError('timeout', 'TRON wallet/getnowblock failed: ECONNABORTED')
    const message = await describeHeadFailure(slow, network('TRON'), endpoint)
    expect(message).toBe(
      'no answer from https://api.trongrid.io within 5000 ms (--timeout-ms): TRON wallet/getnowblock failed: ECONNABORTED',
    )
    expect(message).not.toContain('secret')
  })
})

describe('identifyGenesis', () => {
  it('knows the public chains by their genesis', () => {
    expect(identifyGenesis('00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc')?.network).toBe(
      'TRON',
    )
    expect(identifyGenesis('0000000000000000d698d4192c56cb6be724a558448e2684802de4d6cd8690dc')?.network).toBe(
      'TRON_NILE',
    )
    expect(identifyGenesis('5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d')?.network).toBe('SOLANA')
    expect(identifyGenesis('EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG')?.network).toBe('SOLANA_DEVNET')
    expect(identifyGenesis('4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY')).toEqual({
      chain: 'SOLANA',
      network: null,
      label: 'Solana testnet',
    })
    expect(identifyGenesis('toString')).toBeUndefined()
  })
})

import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import {
  endpointOrigin,
  isKeylessTronGrid,
  readNetworkEndpoints,
  simulatorEndpoints,
} from './network-endpoints.js'

describe('what may be logged of an endpoint', () => {
  it('is the scheme and the host, never a path, a query or credentials', () => {
    expect(endpointOrigin('https://user:secret@rpc.example.net:8443/v2/secret-key?api-key=secret')).toBe(
      'https://rpc.example.net:8443',
    )
    expect(endpointOrigin('http://127.0.0.1:8090')).toBe('http://127.0.0.1:8090')
  })
})

describe('readNetworkEndpoints', () => {
  const tronOf = (env: Record<string, string>) =>
    readNetworkEndpoints(readEnv(env), 'TRON', 'TRON', { required: false })

  it('reads nothing when the network has no URL, unless one is required', () => {
    expect(tronOf({})).toBeUndefined()
    const read = readEnv({})
    readNetworkEndpoints(read, 'SOLANA', 'SOLANA', { required: true })
    expect(() => read.done()).toThrow('SOLANA_RPC_URL: required')
  })

  it('warns of mainnet TronGrid without a key only', () => {
    const [keyless, own] =
      tronOf({ TRON_RPC_URL: 'https://api.trongrid.io,http://10.0.0.5:8090' })?.nodes ?? []
    expect(keyless && isKeylessTronGrid(keyless)).toBe(true)
    expect(own && isKeylessTronGrid(own)).toBe(false)
    const [keyed] = tronOf({ TRON_RPC_URL: 'https://api.trongrid.io', TRON_RPC_API_KEY: 'k-1' })?.nodes ?? []
    expect(keyed && isKeylessTronGrid(keyed)).toBe(false)
  })
})

describe('simulatorEndpoints', () => {
  it("reads the simulator's node routes with its token: a header over HTTP, the query on the websocket", () => {
    expect(simulatorEndpoints('http://127.0.0.1:8092', 'SOLANA', 'SOLANA', 'a-token')).toEqual({
      network: 'SOLANA',
      chain: 'SOLANA',
      nodes: [
        {
          rpcUrl: 'http://127.0.0.1:8092/chains/SOLANA',
          wsUrl: 'ws://127.0.0.1:8092/chains/SOLANA?simulatorToken=a-token',
        },
      ],
      headers: { 'x-simulator-token': 'a-token' },
    })
    expect(simulatorEndpoints('http://127.0.0.1:8092', 'TRON', 'TRON', undefined)).toEqual({
      network: 'TRON',
      chain: 'TRON',
      nodes: [
        {
          rpcUrl: 'http://127.0.0.1:8092/chains/TRON',
          solidityRpcUrl: 'http://127.0.0.1:8092/chains/TRON',
          apiKey: null,
        },
      ],
      headers: {},
    })
  })
})

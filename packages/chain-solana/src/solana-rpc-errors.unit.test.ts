import { ChainRpcError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { endpointOrigin, redactorFor, retryAfterMs, toChainRpcError } from './solana-rpc-errors.js'

const KEYED_URL = 'https://mainnet.helius-rpc.com/?api-key=1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901'
const PATH_KEYED_URL = 'https://example.solana-mainnet.quiknode.pro/0a1b2c3d4e5f60718293a4b5c6d7e8f9/'

describe('redactorFor', () => {
  it('removes query values and long path segments, which carry provider keys', () => {
    expect(redactorFor(KEYED_URL)(`POST ${KEYED_URL} failed; key 1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901`)).toBe(
      'POST [redacted] failed; key [redacted]',
    )
    expect(redactorFor(PATH_KEYED_URL)('token 0a1b2c3d4e5f60718293a4b5c6d7e8f9 rejected')).toBe(
      'token [redacted] rejected',
    )
  })

  it('names only the origin of an endpoint', () => {
    expect(endpointOrigin(PATH_KEYED_URL)).toBe('https://example.solana-mainnet.quiknode.pro')
    expect(endpointOrigin('https://user:secret@rpc.example.com/x')).toBe('https://rpc.example.com')
  })
})

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('7')).toBe(7000)
    expect(
      retryAfterMs('Wed, 21 Oct 2015 07:28:05 GMT', () => Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    ).toBe(5000)
    expect(retryAfterMs(null)).toBeUndefined()
    expect(retryAfterMs('soon')).toBeUndefined()
  })
})

describe('toChainRpcError', () => {
  const redact = redactorFor(KEYED_URL)
  // what web3.js throws for a JSON-RPC error answer: the node's code kept on the error
  const nodeError = (code: number, message: string) => Object.assign(new Error(message), { code })

  it.each([
    [-32005, 'unavailable'],
    [-32004, 'unavailable'],
    [-32014, 'unavailable'],
    [429, 'rate-limited'],
    [-32602, 'bad-response'],
    [-32601, 'bad-response'],
  ] as const)('classifies JSON-RPC error %i as %s', (code, failure) => {
    const error = toChainRpcError(nodeError(code, 'node says no'), 'Solana getSlot on SOLANA', redact)
    expect(error).toBeInstanceOf(ChainRpcError)
    expect(error.failure).toBe(failure)
    expect(error.message).toBe(`Solana getSlot on SOLANA: node error ${code}: node says no`)
  })

  it('keeps the failure and Retry-After of an HTTP answer, without the key', () => {
    const http = new ChainRpcError('rate-limited', `HTTP 429 from ${KEYED_URL}`, { retryAfterMs: 3000 })
    const error = toChainRpcError(http, 'Solana getBlocks', redact)
    expect(error).toMatchObject({ failure: 'rate-limited', retryAfterMs: 3000, transient: true })
    expect(error.message).not.toContain('1b2c3d4e')
  })

  it('calls anything else an unreadable answer', () => {
    expect(toChainRpcError(new SyntaxError('Unexpected token <'), 'Solana getSlot', redact)).toMatchObject({
      failure: 'bad-response',
      transient: false,
    })
  })

  it("names the network even when it is a path segment of the node's URL (the simulator's), and redacts the rest", () => {
    // standalone's simulated nodes: the network is a long path segment, which the redactor hides
    const simulatorUrl = 'http://127.0.0.1:8080/chains/SOLANA_DEVNET'
    const refused = new ChainRpcError(
      'unavailable',
      `no answer from ${simulatorUrl}: fetch failed (connect ECONNREFUSED 127.0.0.1:8080)`,
    )
    const error = toChainRpcError(
      refused,
      'Solana getSlot on SOLANA_DEVNET at http://127.0.0.1:8080',
      redactorFor(simulatorUrl),
    )
    expect(error.message).toBe(
      'Solana getSlot on SOLANA_DEVNET at http://127.0.0.1:8080: no answer from [redacted]: fetch failed (connect ECONNREFUSED 127.0.0.1:8080)',
    )
    const keyed = toChainRpcError(
      refused,
      `Solana getSlot on SOLANA at ${endpointOrigin(PATH_KEYED_URL)}`,
      redactorFor(PATH_KEYED_URL),
    )
    expect(keyed.message).toMatch(
      /^Solana getSlot on SOLANA at https:\/\/example\.solana-mainnet\.quiknode\.pro: /,
    )
  })
})

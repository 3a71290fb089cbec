// The real TRON and Solana clients, wrapped in the RPC resilience policies, reading the simulator's
// node routes through a proxy that rate limits, fails, hangs and resets on request.

import {
  type CircuitBreakerState,
  type ResilientChainClient,
  type ResilientChainClientOptions,
  type RpcRetry,
  withRpcResilience,
} from '@chainpay/chain-access'
import { createIndexerHarness, type IndexerHarness, testLogger } from '@chainpay/chain-indexer/testing'
import { simulatedAddress } from '@chainpay/chain-sim'
import { type ChainClient, ChainRpcError } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type FaultyChainNode, startFaultyChainNode } from './faulty-chain-node.js'

let harness: IndexerHarness
let node: FaultyChainNode

beforeEach(async () => {
  harness = await createIndexerHarness()
  node = await startFaultyChainNode(harness)
})

afterEach(async () => {
  await node.close()
  await harness.close()
})

interface Observed {
  client: ResilientChainClient
  retries: RpcRetry[]
  states: CircuitBreakerState[]
}

/** short waits, so that the tests run in well under a second of backoff */
function resilient(client: ChainClient, overrides: Partial<ResilientChainClientOptions> = {}): Observed {
  const retries: RpcRetry[] = []
  const states: CircuitBreakerState[] = []
  const wrapped = withRpcResilience(client, {
    logger: testLogger,
    initialBackoffMs: 5,
    maxBackoffMs: 2_000,
    onRetry: (retry) => retries.push(retry),
    onStateChange: (state) => states.push(state),
    ...overrides,
    breaker: { consecutiveFailures: 2, halfOpenAfterMs: 200, ...overrides.breaker },
  })
  return { client: wrapped, retries, states }
}

const failureOf = (error: unknown) => (error instanceof ChainRpcError ? error.failure : error)

describe.each([
  { network: 'TRON', chain: 'TRON' as const, native: 'TRX', token: 'USDT' },
  { network: 'SOLANA', chain: 'SOLANA' as const, native: 'SOL', token: 'USDC' },
])('the $network client through a faulty endpoint', ({ network, chain, native, token }) => {
  it('rides out a burst of 429s, waiting at least the Retry-After, and returns the right blocks', async () => {
    const start = (await harness.sim.mineBlocks(network, 1)).height + 1
    const paid = await harness.sim.submitTransfer(network, {
      to: simulatedAddress(chain),
      amount: '2',
      currency: native,
    })
    const tokenPaid = await harness.sim.submitTransfer(network, {
      to: simulatedAddress(chain),
      amount: '3.5',
      currency: token,
    })
    const head = await harness.sim.mineBlocks(network, 3)
    const { client, retries } = resilient(await node.clientThroughProxy(network))

    node.proxy.inject({ kind: 'rate-limit', retryAfterSeconds: 1, times: 1 })
    node.proxy.inject({ kind: 'rate-limit', retryAfterSeconds: 0, times: 2 })
    const blocks = await client.getBlocks(start, head.height)

    expect(blocks).toEqual(await (await node.directClient(network)).getBlocks(start, head.height))
    expect(blocks.flatMap((block) => block.transfers.map((transfer) => transfer.txHash))).toEqual(
      expect.arrayContaining([paid.txHash, tokenPaid.txHash]),
    )
    expect(retries.map((retry) => [retry.method, retry.failure])).toEqual([
      ['getBlocks', 'rate-limited'],
      ['getBlocks', 'rate-limited'],
      ['getBlocks', 'rate-limited'],
    ])
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(1_000)
    expect(node.proxy.faulted()).toBe(3)
  })

  it('gives up after the attempts on 503s, opens the circuit, and closes it once the node answers', async () => {
    await harness.sim.mineBlocks(network, 2)
    const { client, retries, states } = resilient(await node.clientThroughProxy(network), { maxAttempts: 3 })

    node.proxy.inject({ kind: 'status', status: 503 })
    for (let call = 0; call < 2; call += 1) {
      await expect(client.getHead()).rejects.toMatchObject({ name: 'ChainRpcError', failure: 'unavailable' })
    }
    expect(retries.map((retry) => retry.failure)).toEqual(Array(4).fill('unavailable'))
    expect(client.state()).toBe('open')

    const requestsWhileOpen = node.proxy.requests()
    const failedFast = await client.getBlocks(1, 2).catch((error: unknown) => error)
    expect(failedFast).toBeInstanceOf(ChainRpcError)
    expect(failedFast).toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('circuit open'),
    })
    expect(node.proxy.requests()).toBe(requestsWhileOpen)

    node.proxy.clear()
    await expect
      .poll(() => client.getHead().then(() => 'answered', failureOf), { timeout: 10_000, interval: 50 })
      .toBe('answered')
    expect(client.state()).toBe('closed')
    expect(states).toEqual(['open', 'half-open', 'closed'])
    expect(await client.getHead()).toEqual(await (await node.directClient(network)).getHead())
  })

  it('fails with a timeout when the endpoint never answers', async () => {
    await harness.sim.mineBlocks(network, 1)
    const { client, retries } = resilient(await node.clientThroughProxy(network, { timeoutMs: 300 }), {
      maxAttempts: 2,
    })

    node.proxy.inject({ kind: 'hang' })
    await expect(client.getHead()).rejects.toMatchObject({ name: 'ChainRpcError', failure: 'timeout' })
    expect(retries.map((retry) => retry.failure)).toEqual(['timeout'])
    expect(node.proxy.hanging()).toBeGreaterThan(0)
  })

  it('retries a reset connection and answers', async () => {
    await harness.sim.mineBlocks(network, 1)
    const { client, retries } = resilient(await node.clientThroughProxy(network))

    node.proxy.inject({ kind: 'reset', times: 1 })
    expect(await client.getHead()).toEqual(await (await node.directClient(network)).getHead())
    expect(retries.map((retry) => retry.failure)).toEqual(['unavailable'])
  })
})

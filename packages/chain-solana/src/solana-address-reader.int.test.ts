import { chainFormat } from '@chainpay/chain-sim'
import {
  type SimulatorNode,
  solanaAddressReaderDriver,
  startSimulatorNode,
  testNetworks,
} from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { SolanaAddressReader } from '@chainpay/ports'
import { describeSolanaAddressReaderContract, type SolanaAddressReaderDriver } from '@chainpay/ports/testing'
import type { Connection } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSolanaAddressReader } from './solana-address-reader.js'
import { createSolanaConnection } from './solana-connection.js'

/** the reader over a web3.js Connection to the node, its HTTP calls counted by method */
function readerOf(node: SimulatorNode, calls = new Map<string, number>()) {
  const counting = (async (url: string, init: RequestInit) => {
    const { method } = JSON.parse(String(init.body)) as { method: string }
    calls.set(method, (calls.get(method) ?? 0) + 1)
    return fetch(url, init)
  }) as unknown as typeof fetch
  const connection = createSolanaConnection({
    rpcUrl: node.solanaUrl('SOLANA'),
    wsUrl: node.solanaWsUrl('SOLANA'),
    fetch: counting,
  })
  const reader = createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection })
  return { reader, connection, calls }
}

function subscriptionsLive(node: SimulatorNode) {
  return (count: number) =>
    vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(count), { timeout: 5_000 })
}

describeSolanaAddressReaderContract('@solana/web3.js against the simulator node', async () => {
  const node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  return {
    reader: readerOf(node).reader,
    driver: await solanaAddressReaderDriver(node, 'SOLANA'),
    subscriptionsLive: subscriptionsLive(node),
    teardown: () => node.close(),
  }
})

describe('createSolanaAddressReader: its calls', () => {
  let node: SimulatorNode
  let driver: SolanaAddressReaderDriver
  let reader: SolanaAddressReader
  let connection: Connection
  /** JSON-RPC calls over HTTP, by method */
  let calls: Map<string, number>
  let ends: Array<() => Promise<void>>

  beforeEach(async () => {
    node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
    driver = await solanaAddressReaderDriver(node, 'SOLANA')
    ;({ reader, connection, calls } = readerOf(node))
    ends = []
  })

  afterEach(async () => {
    await Promise.all(ends.map((end) => end()))
    await node.close()
  })

  it('lists an account in pages of 1,000 signatures and reads a transaction with one call', async () => {
    const owner = driver.newOwner()
    const first = await driver.pay([{ to: owner, amount: '1', currency: 'SOL' }])
    for (let sent = 0; sent < 1001; sent += 1) {
      await node.simulator.submitTransfer('SOLANA', { to: owner, amount: '0.001', currency: 'SOL' })
    }
    await node.simulator.mineBlocks('SOLANA', 1)
    calls.clear()
    const since = await reader.activitySince(owner, first.txHash)
    expect(since).toHaveLength(1001)
    expect(new Set(since.map((item) => item.signature)).size).toBe(1001)
    expect(await reader.activitySince(owner, since.at(-1)?.signature ?? null)).toEqual([])
    await reader.transaction(first.txHash)
    expect(Object.fromEntries(calls)).toEqual({ getSignaturesForAddress: 3, getTransaction: 1 })
  })

  it('reads statuses in batches of 256 and accounts in batches of 100', async () => {
    const paid = await driver.pay([{ to: driver.newOwner(), amount: '1', currency: 'SOL' }])
    const unknown = Array.from({ length: 299 }, () => chainFormat('SOLANA').newTxHash())
    calls.clear()
    const { states } = await reader.statuses([paid.txHash, ...unknown])
    expect(states.get(paid.txHash)).toMatchObject({ slot: paid.slot })
    expect(states.size).toBe(300)
    const { states: accounts } = await reader.accounts(Array.from({ length: 201 }, () => driver.newOwner()))
    expect(accounts.size).toBe(201)
    expect(Object.fromEntries(calls)).toEqual({ getSignatureStatuses: 2, getMultipleAccounts: 3 })
  })

  it('makes its subscriptions again after a normal closure, and lets the close end the retries of one the closing socket refused', async () => {
    const owner = driver.newOwner()
    const heard: string[] = []
    ends.push(reader.onActivity(owner, (signature) => heard.push(signature)))
    await subscriptionsLive(node)(1)
    const web3 = connection as unknown as {
      _rpcWebSocket: { close(): void }
      _rpcWebSocketGeneration: number
    }
    const refusals = vi.spyOn(console, 'error').mockImplementation(() => {})
    const refused = () =>
      refusals.mock.calls.filter(([line]) => String(line).startsWith('Received error calling')).length
    try {
      // a normal closure (a node's, or web3.js's own idle close): web3.js counts the socket as
      // connected until its close event, so a subscription asked meanwhile is refused by the socket,
      // and asked again at once, in a loop of promises that never let the close event come
      web3._rpcWebSocket.close()
      ends.push(reader.onActivity(driver.newOwner(), () => {}))
      await vi.waitFor(() => expect(web3._rpcWebSocketGeneration).toBe(1))
      // connected again, both are made on the new connection, and notify
      await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(2), { timeout: 10_000 })
      const paid = await driver.pay([{ to: owner, amount: '0.5', currency: 'SOL' }])
      await vi.waitFor(() => expect(heard).toEqual([paid.txHash]))
      // the refusal is reported once the close went through (the pause), and asked no more
      await vi.waitFor(() => expect(refused()).toBeGreaterThanOrEqual(1))
      expect(refused()).toBeLessThanOrEqual(2)
    } finally {
      refusals.mockRestore()
    }
  })
})

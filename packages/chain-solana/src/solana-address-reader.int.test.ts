import { chainFormat, simulatedAddress } from '@chainpay/chain-sim'
import { type SimulatorNode, startSimulatorNode, testNetworks } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import type { SolanaAddressReader } from '@chainpay/ports'
import { Connection } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createSolanaAddressReader } from './solana-address-reader.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
/** Solana's finality depth in the simulator */
const FINALITY_DEPTH = 31

let node: SimulatorNode
let reader: SolanaAddressReader
let connection: Connection
/** JSON-RPC calls over HTTP, by method */
let calls: Map<string, number>
let ends: Array<() => Promise<void>>

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  calls = new Map()
  ends = []
  const counting = (async (url: string, init: RequestInit) => {
    const { method } = JSON.parse(String(init.body)) as { method: string }
    calls.set(method, (calls.get(method) ?? 0) + 1)
    return fetch(url, init)
  }) as unknown as typeof fetch
  connection = new Connection(node.solanaUrl('SOLANA'), {
    commitment: 'confirmed',
    wsEndpoint: node.solanaWsUrl('SOLANA'),
    httpAgent: false,
    fetch: counting,
  })
  reader = createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection })
})

afterEach(async () => {
  await Promise.all(ends.map((end) => end()))
  await node.close()
})

async function pay(to: string, amount: string, currency: string): Promise<string> {
  const { txHash } = await node.simulator.submitTransfer('SOLANA', { to, amount, currency })
  await node.simulator.mineBlocks('SOLANA', 1)
  return txHash
}

describe('createSolanaAddressReader against the simulator, through web3.js', () => {
  it('hears of a payment to a token account of the owner other than the associated one, and reads it with its owner', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const heard: string[] = []
    ends.push(reader.onActivity(account.address, (signature) => heard.push(signature)))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))

    const txHash = await pay(account.address, '12.5', 'USDC')
    await vi.waitFor(() => expect(heard).toEqual([txHash]))
    calls.clear()

    const activity = await reader.activitySince(account.address, null)
    expect(activity).toEqual([
      { signature: txHash, slot: expect.any(Number), blockTime: expect.any(String), failed: false },
    ])
    const read = await reader.transaction(txHash)
    expect(read?.transfers).toEqual([
      expect.objectContaining({
        txHash,
        to: account.address,
        owner,
        asset: { kind: 'token', contract: USDC },
        amountUnits: '12500000',
        success: true,
      }),
    ])
    expect(read?.slot).toBe(activity[0]?.slot)
    // a SOL payment's owner is the receiving account itself
    const sol = await pay(owner, '0.75', 'SOL')
    expect((await reader.transaction(sol))?.transfers).toEqual([
      expect.objectContaining({ to: owner, owner, asset: { kind: 'native' }, amountUnits: '750000000' }),
    ])
    expect(Object.fromEntries(calls)).toEqual({ getSignaturesForAddress: 1, getTransaction: 2 })
  })

  it("finds an owner's token accounts, and hears when any of them changes", async () => {
    const owner = simulatedAddress('SOLANA')
    const first = await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDT' })
    const changed: string[] = []
    ends.push(reader.onTokenAccountChange(owner, (account, mint) => changed.push(`${account} ${mint}`)))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))

    // opened after the watch began: heard of when it is paid
    const later = await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await node.simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: later.address, amount: '3', currency: 'USDC' },
        { to: simulatedAddress('SOLANA'), amount: '3', currency: 'USDC' },
      ],
    })
    await node.simulator.mineBlocks('SOLANA', 1)
    await vi.waitFor(() => expect(changed).toEqual([`${later.address} ${USDC}`]))

    calls.clear()
    const { states } = await reader.accounts([first.address, later.address, owner])
    expect(states.get(first.address)?.token).toEqual({ mint: USDC, amount: 0n })
    expect(states.get(later.address)?.token).toEqual({ mint: USDC, amount: 3_000_000n })
    expect(Object.fromEntries(calls)).toEqual({ getMultipleAccounts: 1 })
  })

  it('makes its subscriptions again after a normal closure, and lets the close end the retries of one the closing socket refused', async () => {
    const owner = simulatedAddress('SOLANA')
    const heard: string[] = []
    ends.push(reader.onActivity(owner, (signature) => heard.push(signature)))
    await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(1))
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
      ends.push(reader.onActivity(simulatedAddress('SOLANA'), () => {}))
      await vi.waitFor(() => expect(web3._rpcWebSocketGeneration).toBe(1))
      // connected again, both are made on the new connection, and notify
      await vi.waitFor(() => expect(node.solanaPubsub.subscriptionCount()).toBe(2), { timeout: 10_000 })
      const txHash = await pay(owner, '0.5', 'SOL')
      await vi.waitFor(() => expect(heard).toEqual([txHash]))
      // the refusal is reported once the close went through (the pause), and asked no more
      await vi.waitFor(() => expect(refused()).toBeGreaterThanOrEqual(1))
      expect(refused()).toBeLessThanOrEqual(2)
    } finally {
      refusals.mockRestore()
    }
  })

  it('lists only what came after the last seen signature, oldest first, in pages of 1,000', async () => {
    const address = simulatedAddress('SOLANA')
    const first = await pay(address, '1', 'SOL')
    const second = await pay(address, '2', 'SOL')
    expect((await reader.activitySince(address, null)).map((item) => item.signature)).toEqual([first, second])
    expect(await reader.activitySince(address, second)).toEqual([])

    for (let sent = 0; sent < 1001; sent += 1) {
      await node.simulator.submitTransfer('SOLANA', { to: address, amount: '0.001', currency: 'SOL' })
    }
    await node.simulator.mineBlocks('SOLANA', 1)
    calls.clear()
    const since = await reader.activitySince(address, second)
    expect(since).toHaveLength(1001)
    expect(new Set(since.map((item) => item.signature)).size).toBe(1001)
    expect(calls.get('getSignaturesForAddress')).toBe(2)
  })

  it('reads statuses in batches of 256, finality and failures included', async () => {
    const address = simulatedAddress('SOLANA')
    const paid = await pay(address, '1', 'SOL')
    const { txHash: failed } = await node.simulator.submitTransfer('SOLANA', {
      to: address,
      amount: '1',
      currency: 'SOL',
      fail: true,
    })
    await node.simulator.mineBlocks('SOLANA', 1)
    // well-formed signatures the node never saw
    const unknown = Array.from({ length: 298 }, () => chainFormat('SOLANA').newTxHash())
    calls.clear()

    const { states } = await reader.statuses([paid, failed, ...unknown])
    expect(calls.get('getSignatureStatuses')).toBe(2)
    expect(states.get(paid)).toEqual({ slot: expect.any(Number), finalized: false, failed: false })
    expect(states.get(failed)).toMatchObject({ finalized: false, failed: true })
    expect(unknown.every((signature) => states.get(signature) === null)).toBe(true)

    await node.simulator.mineBlocks('SOLANA', FINALITY_DEPTH)
    expect((await reader.statuses([paid])).states.get(paid)).toMatchObject({ finalized: true })
  })
})

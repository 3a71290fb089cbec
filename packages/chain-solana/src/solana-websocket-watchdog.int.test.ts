// The websocket watchdog through @solana/web3.js against the simulator's pubsub: a socket whose peer
// goes silent (the proxy in front keeps the connection and passes nothing, either way) is replaced,
// and a websocket endpoint that accepts a connection and never completes the handshake is left for
// the next endpoint's. A ping interval of a second keeps the real waits short.
import { createServer, type Server, type Socket } from 'node:net'
import { simulatedAddress } from '@chainpay/chain-sim'
import {
  type FaultyRpcProxy,
  type SimulatorNode,
  startFaultyRpcProxy,
  startSimulatorNode,
  testNetworks,
} from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { SolanaAddressReader } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSolanaAddressReader } from './solana-address-reader.js'
import { createSolanaConnection, type SolanaConnectionOptions } from './solana-connection.js'

let node: SimulatorNode
let proxy: FaultyRpcProxy
let readers: SolanaAddressReader[]
let ends: Array<() => Promise<void>>

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  proxy = await startFaultyRpcProxy({ target: node.url })
  readers = []
  ends = []
})

afterEach(async () => {
  await Promise.all(ends.map((end) => end()))
  // web3.js closes a socket without subscriptions half a second later; one still open would
  // reconnect to the proxy closed below
  await expect.poll(() => readers.some((reader) => reader.connected())).toBe(false)
  for (const reader of readers) reader.release()
  await proxy.close()
  await node.close()
})

function readerOf(options: Omit<SolanaConnectionOptions, 'rpcUrl'>) {
  const connection = createSolanaConnection({
    rpcUrl: node.solanaUrl('SOLANA'),
    pingIntervalMs: 1_000,
    ...options,
  })
  const reader = createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection })
  readers.push(reader)
  const seen = { connects: 0, signatures: [] as string[] }
  reader.onConnect(() => {
    seen.connects += 1
  })
  /** follows `address`, once the node has the subscription */
  const follow = async (address: string) => {
    const subscriptions = node.solanaPubsub.subscriptionCount()
    ends.push(reader.onActivity(address, (signature) => seen.signatures.push(signature)))
    await expect.poll(() => node.solanaPubsub.subscriptionCount(), { timeout: 5_000 }).toBe(subscriptions + 1)
  }
  return { reader, seen, follow }
}

async function pay(to: string): Promise<string> {
  const { txHash } = await node.simulator.submitTransfer('SOLANA', { to, amount: '1', currency: 'SOL' })
  await node.simulator.mineBlocks('SOLANA', 1)
  return txHash
}

describe('the Solana websocket watchdog', () => {
  it('replaces a socket whose peer went silent: web3.js connects again, the reader says so, notifications come again', async () => {
    const { reader, seen, follow } = readerOf({ wsUrl: `${proxy.url.replace(/^http/, 'ws')}/chains/SOLANA` })
    const address = simulatedAddress('SOLANA')
    await follow(address)
    const first = await pay(address)
    await expect.poll(() => seen.signatures, { timeout: 5_000 }).toEqual([first])
    expect(seen.connects).toBe(1)

    expect(proxy.silenceWebsockets()).toBe(1)
    // paid while nothing comes through: never notified, the watcher lists it after the reconnect
    await pay(address)
    await expect.poll(() => reader.connected(), { interval: 10, timeout: 5_000 }).toBe(false)
    await expect.poll(() => seen.connects, { timeout: 10_000 }).toBe(2)
    expect(reader.connected()).toBe(true)

    // subscribed again on the new socket (the node still holds the silent connection's subscription)
    await expect.poll(() => node.solanaPubsub.subscriptionCount(), { timeout: 5_000 }).toBe(2)
    const third = await pay(address)
    await expect.poll(() => seen.signatures, { timeout: 5_000 }).toContain(third)
  })

  it("gives up a handshake that never completes and connects to the next endpoint's websocket", async () => {
    const held: Socket[] = []
    const silent: Server = createServer((socket) => held.push(socket))
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening))
    const { port } = silent.address() as { port: number }
    try {
      const { seen, follow } = readerOf({
        wsUrl: `ws://127.0.0.1:${port}/chains/SOLANA`,
        fallbacks: [{ rpcUrl: node.solanaUrl('SOLANA'), wsUrl: node.solanaWsUrl('SOLANA') }],
      })
      const address = simulatedAddress('SOLANA')
      await follow(address)
      expect(seen.connects).toBe(1)
      expect(held.length).toBeGreaterThan(0)
      const paid = await pay(address)
      await expect.poll(() => seen.signatures, { timeout: 5_000 }).toEqual([paid])
    } finally {
      for (const socket of held) socket.destroy()
      silent.close()
    }
  })
})

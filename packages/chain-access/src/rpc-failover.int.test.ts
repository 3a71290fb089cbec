// Several endpoints per network (decisions 19, "Liveness"), through the real clients (tronweb,
// @solana/web3.js) that chainAccess builds, against the simulator's node routes behind faulty
// proxies: one of two endpoints refused or hanging, both down, 429s with Retry-After, and a node
// behind the chain. Requests are counted at the proxies, never timed.
import { simulatedAddress } from '@chainpay/chain-sim'
import {
  type FaultyRpcProxy,
  type SimulatorNode,
  startFaultyRpcProxy,
  startSimulatorNode,
  testNetworks,
} from '@chainpay/chain-sim/testing'
import { createSolanaConnection } from '@chainpay/chain-solana'
import { type Chain, defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chainAccess } from './chain-access.js'
import { chainsReadiness } from './chain-readiness.js'
import type { NetworkEndpoints } from './network-endpoints.js'

/** what the failover says of the endpoints (a URL's origin only) */
let logLines: string[]
const logger = createRootLogger({
  service: 'chain-access-test',
  level: 'info',
  destination: { write: (line: string) => logLines.push(line) },
})
const logged = (message: string) =>
  logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === message)

let node: SimulatorNode
let cleanups: Array<() => Promise<void>>

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA') })
  await node.simulator.mineBlocks('TRON', 3)
  await node.simulator.mineBlocks('SOLANA', 40)
  cleanups = []
  logLines = []
})

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  await node.close()
})

/** a proxy in front of `target` (default the simulator's node), closed after the test */
async function proxyOf(target: SimulatorNode = node): Promise<FaultyRpcProxy> {
  const proxy = await startFaultyRpcProxy({ target: target.url })
  let closed = false
  const close = proxy.close
  proxy.close = async () => {
    if (closed) return
    closed = true
    await close()
  }
  cleanups.push(proxy.close)
  return proxy
}

function endpointsOf(network: string, chain: Chain, proxies: FaultyRpcProxy[]): NetworkEndpoints {
  const urls = proxies.map((proxy) => `${proxy.url}/chains/${network}`)
  return chain === 'TRON'
    ? { network, chain, nodes: urls.map((rpcUrl) => ({ rpcUrl, solidityRpcUrl: rpcUrl, apiKey: null })) }
    : { network, chain, nodes: urls.map((rpcUrl) => ({ rpcUrl, wsUrl: null })) }
}

function accessOf(network: string, chain: Chain, proxies: FaultyRpcProxy[], timeoutMs = 2_000) {
  return chainAccess(endpointsOf(network, chain, proxies), {
    registry: defaultAssetRegistry,
    timeoutMs,
    logger,
  })
}

const directHead = async (network: string) => (await node.simulator.head(network)).height

describe.each([
  { network: 'TRON', chain: 'TRON' as const },
  { network: 'SOLANA', chain: 'SOLANA' as const },
])('$network with two endpoints', ({ network, chain }) => {
  it('asks the second when the first refuses connections, stays ready, and is not ready, naming the network, once neither answers', async () => {
    const [first, second] = [await proxyOf(), await proxyOf()] as [FaultyRpcProxy, FaultyRpcProxy]
    const client = await accessOf(network, chain, [first, second]).blockScanningClient()
    const readiness = chainsReadiness([client], async () => true)
    await first.close()

    expect((await client.getHead()).height).toBe(await directHead(network))
    expect(await readiness()).toBe(true)
    expect(second.requests()).toBeGreaterThan(0)
    const balances = await accessOf(network, chain, [first, second]).balanceReader()
    expect(await balances.balanceOf({ address: simulatedAddress(chain), contract: null })).toBe(0n)

    await second.close()
    await expect(client.getHead()).rejects.toMatchObject({ name: 'ChainRpcError', failure: 'unavailable' })
    await expect(readiness()).rejects.toThrow(
      `chains not ready: ${network}: the latest head call failed (unavailable)`,
    )
  })

  it('goes on to the second while the first hangs, and stops asking the first once its circuit opened', async () => {
    const [first, second] = [await proxyOf(), await proxyOf()] as [FaultyRpcProxy, FaultyRpcProxy]
    const client = await accessOf(network, chain, [first, second], 300).blockScanningClient()
    first.inject({ kind: 'hang' })

    for (let call = 0; call < 3; call += 1) {
      expect((await client.getHead()).height).toBe(await directHead(network))
    }
    // three failures in a row opened its circuit: the next calls do not wait for it
    const asked = first.requests()
    expect(asked).toBeGreaterThanOrEqual(3)
    for (let call = 0; call < 3; call += 1) await client.getHead()
    expect(first.requests()).toBe(asked)
  })

  it('lets a rate-limited endpoint rest for its Retry-After while the other answers: nothing fails', async () => {
    const [first, second] = [await proxyOf(), await proxyOf()] as [FaultyRpcProxy, FaultyRpcProxy]
    const client = await accessOf(network, chain, [first, second]).chainClient()
    first.inject({ kind: 'rate-limit', retryAfterSeconds: 30, times: 1 })

    expect((await client.getHead()).height).toBe(await directHead(network))
    expect(first.faulted()).toBe(1)
    // (Solana's head is two calls at once: the second may have reached it before the first's 429)
    const asked = first.requests()
    for (let call = 0; call < 3; call += 1) {
      expect((await client.getHead()).height).toBe(await directHead(network))
    }
    expect(first.requests()).toBe(asked)
  })
})

describe.each([
  { network: 'TRON', chain: 'TRON' as const },
  { network: 'SOLANA', chain: 'SOLANA' as const },
])('$network with one endpoint', ({ network, chain }) => {
  it('waits out a 429 and asks again: the call answers', async () => {
    const only = await proxyOf()
    const client = await accessOf(network, chain, [only]).blockScanningClient()
    only.inject({ kind: 'rate-limit', retryAfterSeconds: 1, times: 1 })

    expect((await client.getHead()).height).toBe(await directHead(network))
    expect(only.faulted()).toBe(1)
    expect(client.notReadyReason()).toBeUndefined()
  })
})

describe('a node 20 blocks behind, preferred by the operator', () => {
  let behind: SimulatorNode

  beforeEach(async () => {
    await node.simulator.mineBlocks('TRON', 25)
    behind = await startSimulatorNode({ simulator: node.simulator, behind: 20 })
    cleanups.push(() => behind.close())
  })

  it('Solana: a call whose minContextSlot it has not reached (-32016) goes to the node that has, and the next ones too', async () => {
    const [lagging, current] = [await proxyOf(behind), await proxyOf()]
    const connection = createSolanaConnection({
      rpcUrl: `${lagging.url}/chains/SOLANA`,
      fallbacks: [{ rpcUrl: `${current.url}/chains/SOLANA` }],
    })
    const head = await directHead('SOLANA')

    expect(await connection.getBlockHeight({ minContextSlot: head })).toBe(head)
    expect([lagging.requests(), current.requests()]).toEqual([1, 1])
    // it stays passed over: the calls that follow go to the node that is not behind
    const { context } = await connection.getLatestBlockhashAndContext()
    expect(context.slot).toBe(head)
    expect(lagging.requests()).toBe(1)
  })

  it('Solana: a call whose minContextSlot it misses by a few slots goes elsewhere, the next ones come back to it', async () => {
    const [lagging, current] = [await proxyOf(behind), await proxyOf()]
    const connection = createSolanaConnection({
      rpcUrl: `${lagging.url}/chains/SOLANA`,
      fallbacks: [{ rpcUrl: `${current.url}/chains/SOLANA` }],
    })
    const head = await directHead('SOLANA')

    // 5 slots past what it has: within the tolerance, so not behind, but this call goes elsewhere
    expect(await connection.getBlockHeight({ minContextSlot: head - 15 })).toBe(head)
    expect([lagging.requests(), current.requests()]).toEqual([1, 1])
    expect((await connection.getLatestBlockhashAndContext()).context.slot).toBe(head - 20)
    expect(lagging.requests()).toBe(2)
  })

  it.each([
    { network: 'TRON', chain: 'TRON' as const },
    { network: 'SOLANA', chain: 'SOLANA' as const },
  ])(
    "$network: a head 20 behind the other endpoint's is passed over once compared",
    async ({ network, chain }) => {
      const [lagging, current] = [await proxyOf(behind), await proxyOf()]
      const client = await accessOf(network, chain, [lagging, current]).blockScanningClient()
      const head = await directHead(network)

      // the first head call asks the other endpoint too; from then on the one behind is passed over
      await client.getHead()
      await expect
        .poll(() => logged('RPC endpoint is behind the chain: asked only when no other endpoint answers'))
        .toEqual([
          expect.objectContaining({
            network,
            endpoint: lagging.url,
            why: expect.stringMatching(/^2\d behind/),
          }),
        ])
      const asked = lagging.requests()
      for (let call = 0; call < 3; call += 1) expect((await client.getHead()).height).toBe(head)
      expect(lagging.requests()).toBe(asked)
    },
  )
})

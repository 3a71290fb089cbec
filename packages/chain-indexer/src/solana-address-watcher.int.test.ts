// The address watcher (SOLANA_WATCH_MODE=address) through @solana/web3.js against the simulator
// served over HTTP and websocket: what it publishes, and the RPC calls a payment costs.
import { simulatedAddress } from '@chainpay/chain-sim'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { systemClock } from '@chainpay/platform'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSolanaAddressWatcher, type SolanaAddressWatcher } from './solana-address-watcher.js'
import { createIndexerHarness, type IndexerHarness } from './testing/index.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
/** Solana's finality depth in the simulator */
const FINALITY_DEPTH = 31
const REQUIRED = 32

let harness: IndexerHarness
let watcher: SolanaAddressWatcher
/** JSON-RPC calls over HTTP */
let calls: number

beforeEach(async () => {
  harness = await createIndexerHarness()
  const node = await harness.serve()
  calls = 0
  const counting = (async (url: string, init: RequestInit) => {
    calls += 1
    return fetch(url, init)
  }) as unknown as typeof fetch
  const connection = createSolanaConnection({
    rpcUrl: node.solanaUrl('SOLANA'),
    wsUrl: node.solanaWsUrl('SOLANA'),
    fetch: counting,
  })
  const reader = createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection })
  watcher = createSolanaAddressWatcher({
    network: 'SOLANA',
    reader,
    registry: defaultAssetRegistry,
    bus: harness.bus,
    clock: systemClock,
  })
})

afterEach(() => harness.close())

async function pay(to: string, amount: string, currency: string): Promise<string> {
  const { txHash } = await harness.sim.submitTransfer('SOLANA', { to, amount, currency })
  await harness.sim.mineBlocks('SOLANA', 1)
  return txHash
}

describe('the Solana address watcher through web3.js', () => {
  it('publishes USDC paid to the associated and to another token account of the owner, up to final, within 10 calls each', async () => {
    const associated = { paymentId: 'usdc-associated', owner: simulatedAddress('SOLANA') }
    const other = { paymentId: 'usdc-other', owner: simulatedAddress('SOLANA') }
    const ata = await harness.sim.openTokenAccount('SOLANA', { owner: associated.owner, currency: 'USDC' })
    const nonAssociated = await harness.sim.openTokenAccount('SOLANA', {
      owner: other.owner,
      currency: 'USDC',
    })
    for (const payment of [associated, other]) {
      await watcher.watch({ ...payment, assetContract: USDC, requiredConfirmations: REQUIRED })
    }
    const first = await pay(ata.address, '10', 'USDC')
    const second = await pay(nonAssociated.address, '10', 'USDC')
    await watcher.tick()
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await watcher.tick()

    for (const [payment, txHash, address] of [
      [associated, first, ata.address],
      [other, second, nonAssociated.address],
    ] as const) {
      const observations = await harness.observations.transfersOf(payment.paymentId)
      expect(observations.map((observation) => observation.confirmations)).toEqual([1, REQUIRED])
      expect(observations[0]).toMatchObject({
        network: 'SOLANA',
        txHash,
        address,
        amountUnits: '10000000',
        status: 'seen',
        dropReason: null,
      })
    }
    expect(watcher.following).toBe(0)
    // 6 per payment here: 2 getTokenAccountsByOwner, 2 getSignaturesForAddress, 1 getTransaction, a share of 2 getSignatureStatuses
    expect(calls).toBeLessThanOrEqual(2 * 10)
  })

  it('counts neither a failed transaction nor a counterfeit mint; idle, a tick lists each account once; unwatched, nothing', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await watcher.watch({ paymentId: 'usdc', owner, assetContract: USDC, requiredConfirmations: REQUIRED })
    await harness.sim.submitTransaction('SOLANA', {
      transfers: [{ to: account.address, amount: '10', currency: 'USDC' }],
      failure: 'INSTRUCTION_ERROR',
    })
    await harness.sim.submitTransaction('SOLANA', {
      transfers: [
        { to: account.address, amount: '10', currency: 'USDC', contract: simulatedAddress('SOLANA') },
      ],
    })
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH + 1)
    await watcher.tick()
    expect(await harness.observations.transfersOf('usdc')).toEqual([])
    expect(watcher.following).toBe(0)

    calls = 0
    await watcher.tick()
    // the one token account of the owner: one getSignaturesForAddress
    expect(calls).toBe(1)
    watcher.unwatch('usdc')
    calls = 0
    await watcher.tick()
    expect(calls).toBe(0)
  })

  it('reports USDC paid to a SOL payment as foreign funds once final', async () => {
    const owner = simulatedAddress('SOLANA')
    const account = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await watcher.watch({ paymentId: 'sol', owner, assetContract: null, requiredConfirmations: REQUIRED })
    const txHash = await pay(account.address, '5', 'USDC')
    await watcher.tick()
    expect(
      (await harness.observations.settle()).filter((message) => message.kind === 'foreign_funds'),
    ).toEqual([])
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await watcher.tick()

    const foreign = (await harness.observations.settle()).filter(
      (message) => message.kind === 'foreign_funds',
    )
    expect(foreign).toEqual([
      expect.objectContaining({ paymentId: 'sol', txHash, currency: 'USDC', amountUnits: '5000000' }),
    ])
    expect(await harness.observations.transfersOf('sol')).toEqual([])
    expect(calls).toBeLessThanOrEqual(10)
  })
})

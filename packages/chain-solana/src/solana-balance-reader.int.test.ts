import { simulatedAddress } from '@chainpay/chain-sim'
import { type SimulatorNode, startSimulatorNode, testNetworks } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import type { ChainBalanceReader } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSolanaBalanceReader } from './solana-balance-reader.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string

let node: SimulatorNode
let reader: ChainBalanceReader

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  reader = createSolanaBalanceReader({ network: 'SOLANA', rpcUrl: node.solanaUrl('SOLANA') })
})

afterEach(() => node.close())

async function pay(to: string, amount: string, currency: string): Promise<void> {
  await node.simulator.submitTransfer('SOLANA', { to, amount, currency })
  await node.simulator.mineBlocks('SOLANA', 1)
}

describe('createSolanaBalanceReader against the simulator, through web3.js', () => {
  it('reads a token from the token accounts the owner holds of its mint; none holds 0', async () => {
    const owner = simulatedAddress('SOLANA')
    expect(await reader.balanceOf({ address: owner, contract: USDC })).toBe(0n)
    const first = await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    await pay(first.address, '12.5', 'USDC')
    const other = await node.simulator.openTokenAccount('SOLANA', { owner, currency: 'USDT' })
    await pay(other.address, '3', 'USDT')
    expect(await reader.balanceOf({ address: owner, contract: USDC })).toBe(12_500_000n)
  })

  it('refuses an address that is not a Solana one, without asking the node', async () => {
    await expect(reader.balanceOf({ address: 'not-an-address', contract: USDC })).rejects.toMatchObject({
      name: 'ChainRpcError',
      failure: 'bad-response',
    })
  })
})

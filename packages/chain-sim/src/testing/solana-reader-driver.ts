// The Solana address reader contract's driver over a simulator node: payments are signed
// transactions of a test wallet (solana-wallet.ts), sent over HTTP; a failing one comes from a
// wallet holding just enough SOL for its fees, sent without preflight; blocks, forks and a node
// started from a snapshot are the simulator's.
import { defaultAssetRegistry } from '@chainpay/domain'
import type { SolanaAddressReaderDriver } from '@chainpay/ports/testing'
import { Keypair } from '@solana/web3.js'
import { chainFormat } from '../chain-format.js'
import type { SimulatorNode } from './simulator-node.js'
import { solanaWallet } from './solana-wallet.js'

/** a driver of `network` on the node, with a funded wallet and one that can pay nothing but fees */
export async function solanaAddressReaderDriver(
  node: SimulatorNode,
  network: string,
): Promise<SolanaAddressReaderDriver> {
  const { simulator } = node
  const wallet = await solanaWallet(node, network)
  const broke = await solanaWallet(node, network, { funds: { SOL: '0.05' } })
  const format = chainFormat('SOLANA')
  const mints = Object.fromEntries(
    defaultAssetRegistry.assets
      .filter((asset) => asset.network === network && asset.contract !== null)
      .map((asset) => [asset.currency, asset.contract as string]),
  )

  async function blockAt(slot: number) {
    const [block] = await simulator.blockDetails(network, slot, slot)
    if (block === undefined) throw new Error(`no block at slot ${slot} of ${network}`)
    // a node gives block times in whole seconds
    return { slot, blockTime: new Date(Math.floor(Date.parse(block.time) / 1000) * 1000).toISOString() }
  }

  return {
    network,
    mints,
    finalityDepth: format.finalityDepth,
    newOwner: () => Keypair.generate().publicKey.toBase58(),
    unknownSignature: () => format.newTxHash(),
    associatedTokenAccount: (owner, currency) => wallet.associatedTokenAccount(owner, currency),

    async pay(payments, options = {}) {
      const payer = options.fail === true ? broke : wallet
      const { txHash } = await payer.pay(payments, { skipPreflight: options.fail === true })
      const { height } = await simulator.mineBlocks(network, 1)
      return { txHash, payer: payer.address, ...(await blockAt(height)) }
    },

    async openTokenAccount(owner, currency) {
      return (await simulator.openTokenAccount(network, { owner, currency })).address
    },

    async mineBlocks(count) {
      await simulator.mineBlocks(network, count)
    },

    async head() {
      return blockAt((await simulator.head(network)).height)
    },

    async dropTransaction(txHash) {
      if (!(await simulator.dropTransaction(network, txHash))) throw new Error(`${txHash} is unknown`)
    },

    async forgetHistoryBelow(slot) {
      simulator.forgetHistoryBelow(network, slot)
    },
  }
}

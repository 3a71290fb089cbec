import { simulatedAddress } from '@chainpay/chain-sim'
import { type SimulatorNode, simulatorChainDriver, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { ChainBlock, ChainClient, ChainTransfer } from '@chainpay/ports'
import { type ChainClientContractContext, describeChainClientContract } from '@chainpay/ports/testing'
import { TronWeb, utils } from 'tronweb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { trxTransferTransaction, usdtTransferTransaction } from './testing/fixtures/tron-mainnet.js'
import { createTronChainClient } from './tron-chain-client.js'

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const NILE_USDT = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'

function tronClient(node: SimulatorNode, network = 'TRON'): ChainClient {
  return createTronChainClient({
    network,
    registry: defaultAssetRegistry,
    fullNodeUrl: node.tronUrl(network),
  })
}

function contractContext(currency: 'TRX' | 'USDT') {
  return async (): Promise<ChainClientContractContext> => {
    const node = await startSimulatorNode()
    return {
      client: tronClient(node),
      driver: simulatorChainDriver(node.simulator, 'TRON', currency),
      teardown: () => node.close(),
    }
  }
}

describeChainClientContract('TRON RPC (tronweb) against the simulator, paying TRX', contractContext('TRX'))
describeChainClientContract('TRON RPC (tronweb) against the simulator, paying USDT', contractContext('USDT'))

let node: SimulatorNode
let client: ChainClient

beforeEach(async () => {
  node = await startSimulatorNode()
  client = tronClient(node)
})

afterEach(() => node.close())

/** mines one block holding everything submitted so far and reads it through the client */
async function minedBlock(reader: ChainClient = client, network = 'TRON'): Promise<ChainBlock> {
  const { height } = await node.simulator.mineBlocks(network, 1)
  const [block] = await reader.getBlocks(height, height)
  if (!block) throw new Error(`block ${height} not read`)
  return block
}

function transfersOf(block: ChainBlock, txHash: string): ChainTransfer[] {
  return block.transfers.filter((transfer) => transfer.txHash === txHash)
}

describe('createTronChainClient against the simulated java-tron node', () => {
  it.each(['REVERT', 'OUT_OF_ENERGY'] as const)(
    'reports a USDT transfer that failed with %s, decoded from its calldata, with success=false',
    async (failure) => {
      const to = simulatedAddress('TRON')
      const from = simulatedAddress('TRON')
      const { txHash } = await node.simulator.submitTransaction('TRON', {
        from,
        transfers: [{ to, amount: '5.5', currency: 'USDT' }],
        failure,
      })
      expect(transfersOf(await minedBlock(), txHash)).toEqual([
        {
          txHash,
          index: 0,
          from,
          to,
          asset: { kind: 'token', contract: USDT },
          amountUnits: '5500000',
          success: false,
          expiresAt: expect.any(String),
        },
      ])
    },
  )

  it('reports each registry transfer of a multi-transfer transaction at its log position, not the counterfeit one', async () => {
    const payee = simulatedAddress('TRON')
    const other = simulatedAddress('TRON')
    const { txHash } = await node.simulator.submitTransaction('TRON', {
      transfers: [
        { to: payee, amount: '1', currency: 'USDT' },
        { to: other, amount: '2', currency: 'USDT', contract: COUNTERFEIT_USDT },
        { to: payee, amount: '3', currency: 'USDT' },
        { to: other, amount: '4', currency: 'USDT' },
      ],
    })
    const transfers = transfersOf(await minedBlock(), txHash)
    expect(
      transfers.map(({ index, to, amountUnits, success }) => ({ index, to, amountUnits, success })),
    ).toEqual([
      { index: 0, to: payee, amountUnits: '1000000', success: true },
      { index: 2, to: payee, amountUnits: '3000000', success: true },
      { index: 3, to: other, amountUnits: '4000000', success: true },
    ])
    expect(new Set(transfers.map((transfer) => transfer.from)).size).toBe(1)
  })

  // Deliberate: a failed multisend emitted no Transfer logs and its calldata is the multisend
  // contract's own ABI, which a real node's client cannot know in general. Nothing was paid, so
  // nothing is reported; only a failed direct transfer(address,uint256) of a registry token is.
  it.each(['REVERT', 'OUT_OF_ENERGY'] as const)(
    'reports no transfer of a multi-transfer transaction that failed with %s',
    async (failure) => {
      const payee = simulatedAddress('TRON')
      const failed = await node.simulator.submitTransaction('TRON', {
        transfers: [
          { to: payee, amount: '1', currency: 'USDT' },
          { to: payee, amount: '2', currency: 'USDT' },
        ],
        failure,
      })
      const paid = await node.simulator.submitTransfer('TRON', { to: payee, amount: '3', currency: 'USDT' })
      const block = await minedBlock()
      expect(transfersOf(block, failed.txHash)).toEqual([])
      expect(block.transfers.map(({ txHash, to }) => ({ txHash, to }))).toEqual([
        { txHash: paid.txHash, to: payee },
      ])
    },
  )

  it('ignores a counterfeit USDT transfer and keeps the genuine one of the same block', async () => {
    const to = simulatedAddress('TRON')
    const counterfeit = await node.simulator.submitTransfer('TRON', {
      to,
      amount: '10',
      currency: 'USDT',
      contract: COUNTERFEIT_USDT,
    })
    const genuine = await node.simulator.submitTransfer('TRON', { to, amount: '1', currency: 'USDT' })
    const block = await minedBlock()
    expect(transfersOf(block, counterfeit.txHash)).toEqual([])
    expect(transfersOf(block, genuine.txHash)).toMatchObject([
      { asset: { kind: 'token', contract: USDT }, amountUnits: '1000000' },
    ])
  })

  it('reads a TRX amount above 2^53 exactly', async () => {
    const { txHash } = await node.simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '12345678901.234567',
      currency: 'TRX',
    })
    expect(transfersOf(await minedBlock(), txHash)).toMatchObject([{ amountUnits: '12345678901234567' }])
  })

  it('no longer shows a transfer the chain rolled back, and sees the new block ids', async () => {
    const { txHash } = await node.simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '7',
      currency: 'USDT',
    })
    const before = await minedBlock()
    await node.simulator.mineBlocks('TRON', 2)
    expect(transfersOf(before, txHash)).toHaveLength(1)

    expect(await node.simulator.dropTransaction('TRON', txHash)).toBe(true)

    const [after] = await client.getBlocks(before.height, before.height)
    expect(after?.hash).not.toBe(before.hash)
    expect(after?.parentHash).toBe(before.parentHash)
    expect(after?.transfers).toEqual([])
  })

  it('asks the solidity node whether a transaction is final: unknown until its block is solidified (18 below the head)', async () => {
    const to = simulatedAddress('TRON')
    const { txHash } = await node.simulator.submitTransfer('TRON', { to, amount: '1', currency: 'USDT' })
    const { height } = await node.simulator.mineBlocks('TRON', 1)
    await node.simulator.mineBlocks('TRON', 17)
    expect(await client.finalInclusion?.(txHash)).toBeUndefined()
    await node.simulator.mineBlocks('TRON', 1)
    expect(await client.finalInclusion?.(txHash)).toEqual({ blockHeight: height, success: true })
    expect(await client.finalInclusion?.('ab'.repeat(32))).toBeUndefined()
  })

  it('reads a failed call as final and failed', async () => {
    const to = simulatedAddress('TRON')
    const { txHash } = await node.simulator.submitTransaction('TRON', {
      transfers: [{ to, amount: '1', currency: 'USDT' }],
      failure: 'REVERT',
    })
    const { height } = await node.simulator.mineBlocks('TRON', 19)
    expect(await client.finalInclusion?.(txHash)).toEqual({ blockHeight: height - 18, success: false })
  })

  it("reads TRX that a contract sent from the receipt's internal transactions, with the expiration", async () => {
    const to = simulatedAddress('TRON')
    const { txHash } = await node.simulator.submitTransaction('TRON', {
      transfers: [{ to, amount: '7.25', currency: 'TRX', internal: true }],
    })
    const { height } = await node.simulator.mineBlocks('TRON', 1)
    const [block] = await client.getBlocks(height, height)
    expect(block?.transfers).toEqual([
      {
        txHash,
        index: 1_000_000,
        from: expect.any(String),
        to,
        asset: { kind: 'native' },
        amountUnits: '7250000',
        success: true,
        internal: true,
        expiresAt: expect.any(String),
      },
    ])
  })

  it('finds the first block of a node without the older ones, and block 1 on one with them', async () => {
    await node.simulator.mineBlocks('TRON', 40)
    expect(await client.firstAvailableHeight?.()).toBe(1)
    node.simulator.forgetHistoryBelow('TRON', 27)
    const pruned = tronClient(node)
    expect(await pruned.firstAvailableHeight?.()).toBe(27)
    expect(await pruned.getBlocks(20, 28)).toMatchObject([{ height: 27 }, { height: 28 }])
  })

  it('reads more than 100 blocks in one call, linked and in order', async () => {
    const to = simulatedAddress('TRON')
    const early = await node.simulator.submitTransfer('TRON', { to, amount: '1', currency: 'USDT' })
    await node.simulator.mineBlocks('TRON', 120)
    const late = await node.simulator.submitTransfer('TRON', { to, amount: '2', currency: 'TRX' })
    const head = await node.simulator.mineBlocks('TRON', 100)

    const blocks = await client.getBlocks(1, head.height + 5)
    expect(blocks.map((block) => block.height)).toEqual(
      Array.from({ length: head.height }, (_, index) => index + 1),
    )
    for (const [position, block] of blocks.entries()) {
      if (position > 0) expect(block.parentHash).toBe(blocks[position - 1]?.hash)
    }
    const txHashes = blocks.flatMap((block) => block.transfers.map((transfer) => transfer.txHash))
    expect(txHashes).toEqual([early.txHash, late.txHash])
  })

  it('watches TRON_NILE with its own USDT contract; mainnet USDT there is just another token', async () => {
    const nile = tronClient(node, 'TRON_NILE')
    const to = simulatedAddress('TRON')
    const genuine = await node.simulator.submitTransfer('TRON_NILE', { to, amount: '3', currency: 'USDT' })
    const mainnetContract = await node.simulator.submitTransfer('TRON_NILE', {
      to,
      amount: '4',
      currency: 'USDT',
      contract: USDT,
    })
    const block = await minedBlock(nile, 'TRON_NILE')
    expect(nile.network).toBe('TRON_NILE')
    expect(transfersOf(block, genuine.txHash)).toMatchObject([
      { asset: { kind: 'token', contract: NILE_USDT }, amountUnits: '3000000' },
    ])
    expect(transfersOf(block, mainnetContract.txHash)).toEqual([])
  })

  it('refuses a network that is not a TRON network of the registry', () => {
    expect(() =>
      createTronChainClient({
        network: 'SOLANA',
        registry: defaultAssetRegistry,
        fullNodeUrl: node.tronUrl('TRON'),
      }),
    ).toThrow(/not a TRON network/)
  })
})

describe('headers', () => {
  it("sends the headers it is given on every request, such as the simulator's token", async () => {
    const token = 'simulator-token-for-tests-0123456789abcdef'
    const guarded = await startSimulatorNode({ token })
    try {
      const head = await guarded.simulator.mineBlocks('TRON', 19)
      const options = {
        network: 'TRON',
        registry: defaultAssetRegistry,
        fullNodeUrl: guarded.tronUrl('TRON'),
      }
      const withToken = createTronChainClient({ ...options, headers: { 'x-simulator-token': token } })
      // the head and the solidity node's finalized height: both APIs carry it
      expect(await withToken.getHead()).toMatchObject({ height: head.height })
      expect((await withToken.getBlocks(head.height, head.height)).map((block) => block.height)).toEqual([
        head.height,
      ])
      await expect(createTronChainClient(options).getHead()).rejects.toThrow(/401/)
    } finally {
      await guarded.close()
    }
  })
})

describe('the simulated node, read by tronweb itself', () => {
  it('encodes raw_data as java-tron does: tronweb re-encodes real mainnet transactions byte for byte', () => {
    for (const transaction of [usdtTransferTransaction, trxTransferTransaction]) {
      const encoded = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb(transaction))
      expect(encoded.toLowerCase()).toBe(transaction.raw_data_hex)
    }
  })

  it('serves blocks whose raw_data_hex is what tronweb encodes from their raw_data', async () => {
    await node.simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '1.25',
      currency: 'TRX',
    })
    await node.simulator.submitTransfer('TRON', {
      to: simulatedAddress('TRON'),
      amount: '2',
      currency: 'USDT',
    })
    await node.simulator.submitTransaction('TRON', {
      transfers: [
        { to: simulatedAddress('TRON'), amount: '1', currency: 'USDT' },
        { to: simulatedAddress('TRON'), amount: '2', currency: 'USDT' },
      ],
      failure: 'REVERT',
    })
    const { height } = await node.simulator.mineBlocks('TRON', 1)
    const tronWeb = new TronWeb({ fullHost: node.tronUrl('TRON') })

    const block = await tronWeb.trx.getBlockByNumber(height)
    expect(block.transactions).toHaveLength(3)
    for (const transaction of block.transactions ?? []) {
      const encoded = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb(transaction))
      expect(encoded.toLowerCase()).toBe(transaction.raw_data_hex)
    }
    expect((await tronWeb.trx.getCurrentBlock()).blockID).toBe((await node.simulator.head('TRON')).hash)
    expect(await tronWeb.trx.getBlockRange(height, height)).toEqual([block])
  })
})

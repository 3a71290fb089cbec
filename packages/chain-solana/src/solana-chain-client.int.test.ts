import { simulatedAddress } from '@chainpay/chain-sim'
import { type SimulatorNode, simulatorChainDriver, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import type { ChainBlock, ChainClient, ChainTransfer } from '@chainpay/ports'
import { type ChainClientContractContext, describeChainClientContract } from '@chainpay/ports/testing'
import { Connection, type ParsedBlockResponse } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createSolanaChainClient } from './solana-chain-client.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const USDT = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDT' }).contract as string
const DEVNET_USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA_DEVNET', currency: 'USDC' })
  .contract as string
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'

function solanaClient(node: SimulatorNode, network = 'SOLANA'): ChainClient {
  return createSolanaChainClient({ network, registry: defaultAssetRegistry, rpcUrl: node.solanaUrl(network) })
}

function contractContext(network: string, currency: string) {
  return async (): Promise<ChainClientContractContext> => {
    const node = await startSimulatorNode()
    return {
      client: solanaClient(node, network),
      driver: simulatorChainDriver(node.simulator, network, currency),
      failedTransactions: 'omitted',
      teardown: () => node.close(),
    }
  }
}

describeChainClientContract(
  'Solana RPC (@solana/web3.js) against the simulator, SOLANA paying SOL',
  contractContext('SOLANA', 'SOL'),
)
describeChainClientContract(
  'Solana RPC (@solana/web3.js) against the simulator, SOLANA paying USDC (SPL)',
  contractContext('SOLANA', 'USDC'),
)
describeChainClientContract(
  'Solana RPC (@solana/web3.js) against the simulator, SOLANA_DEVNET paying USDC (SPL)',
  contractContext('SOLANA_DEVNET', 'USDC'),
)

describe('finalInclusion (getSignatureStatuses)', () => {
  it('answers where the finalized chain has a transaction, whether it failed, and nothing before', async () => {
    const node = await startSimulatorNode()
    try {
      const client = solanaClient(node)
      const paid = await node.simulator.submitTransfer('SOLANA', {
        to: simulatedAddress('SOLANA'),
        amount: '1',
        currency: 'SOL',
      })
      const failed = await node.simulator.submitTransfer('SOLANA', {
        to: simulatedAddress('SOLANA'),
        amount: '1',
        currency: 'SOL',
        fail: true,
      })
      const { height } = await node.simulator.mineBlocks('SOLANA', 1)
      // confirmed, not finalized yet
      expect(await client.finalInclusion?.(paid.txHash)).toBeUndefined()
      await node.simulator.mineBlocks('SOLANA', 40)
      expect(await client.finalInclusion?.(paid.txHash)).toEqual({ blockHeight: height, success: true })
      expect(await client.finalInclusion?.(failed.txHash)).toEqual({ blockHeight: height, success: false })
      // never sent, or dropped: unknown
      expect(await client.finalInclusion?.(simulatedAddress('SOLANA'))).toBeUndefined()
    } finally {
      await node.close()
    }
  })
})

describe('headers', () => {
  it("sends the headers it is given on every request, such as the simulator's token", async () => {
    const token = 'simulator-token-for-tests-0123456789abcdef'
    const guarded = await startSimulatorNode({ token })
    try {
      const head = await guarded.simulator.mineBlocks('SOLANA', 3)
      const options = {
        network: 'SOLANA',
        registry: defaultAssetRegistry,
        rpcUrl: guarded.solanaUrl('SOLANA'),
      }
      const withToken = createSolanaChainClient({ ...options, headers: { 'x-simulator-token': token } })
      expect(await withToken.getHead()).toMatchObject({ height: head.height })
      expect((await withToken.getBlocks(head.height, head.height)).map((block) => block.height)).toEqual([
        head.height,
      ])
      await expect(createSolanaChainClient(options).getHead()).rejects.toThrow(/401/)
    } finally {
      await guarded.close()
    }
  })
})

describe('createSolanaChainClient against the simulator', () => {
  let node: SimulatorNode
  let client: ChainClient
  let connection: Connection

  beforeEach(async () => {
    node = await startSimulatorNode()
    client = solanaClient(node)
    connection = new Connection(node.solanaUrl('SOLANA'), { commitment: 'confirmed', httpAgent: false })
  })

  afterEach(() => node.close())

  /** mines one block and returns it as the client reads it, with the same block as web3.js parses it */
  async function mineOne(): Promise<{ block: ChainBlock; parsed: ParsedBlockResponse }> {
    const head = await node.simulator.mineBlocks('SOLANA', 1)
    const [block] = await client.getBlocks(head.height, head.height)
    if (!block) throw new Error(`block ${head.height} was not read`)
    return { block, parsed: await parsedBlock(head.height) }
  }

  async function parsedBlock(slot: number): Promise<ParsedBlockResponse> {
    const block = await connection.getParsedBlock(slot, {
      maxSupportedTransactionVersion: 0,
      transactionDetails: 'full',
      rewards: false,
    })
    return block as unknown as ParsedBlockResponse
  }

  function transfersOf(block: ChainBlock, txHash: string): ChainTransfer[] {
    return block.transfers.filter((transfer) => transfer.txHash === txHash)
  }

  function parsedTransaction(block: ParsedBlockResponse, txHash: string) {
    const transaction = block.transactions.find((candidate) => candidate.transaction.signatures[0] === txHash)
    if (!transaction) throw new Error(`transaction ${txHash} is not in block ${block.blockhash}`)
    return transaction
  }

  it('reads SPL transfers into the token account: a legacy transfer and a v0 transferChecked', async () => {
    const [first, second] = [simulatedAddress('SOLANA'), simulatedAddress('SOLANA')]
    const legacy = await node.simulator.submitTransfer('SOLANA', {
      to: first,
      amount: '12.5',
      currency: 'USDC',
    })
    const versioned = await node.simulator.submitTransfer('SOLANA', {
      to: second,
      amount: '0.000001',
      currency: 'USDC',
    })
    const { block, parsed } = await mineOne()

    expect(transfersOf(block, legacy.txHash)).toEqual([
      {
        txHash: legacy.txHash,
        index: 0,
        from: expect.any(String),
        to: first,
        owner: expect.any(String),
        asset: { kind: 'token', contract: USDC },
        amountUnits: '12500000',
        success: true,
        // no fork can include it again once its blockhash expired: 150 blocks, twice over
        expiresAt: new Date(Date.parse(block.time) + 120_000).toISOString(),
      },
    ])
    expect(transfersOf(block, versioned.txHash)).toMatchObject([
      { to: second, asset: { kind: 'token', contract: USDC }, amountUnits: '1', success: true },
    ])

    const legacyTransaction = parsedTransaction(parsed, legacy.txHash)
    expect(legacyTransaction.version).toBe('legacy')
    expect(legacyTransaction.transaction.message.instructions).toMatchObject([
      {
        program: 'spl-token',
        parsed: { type: 'transfer', info: { destination: first, amount: '12500000' } },
      },
    ])
    const versionedTransaction = parsedTransaction(parsed, versioned.txHash)
    expect(versionedTransaction.version).toBe(0)
    expect(versionedTransaction.transaction.message.instructions).toMatchObject([
      {
        program: 'spl-token',
        parsed: {
          type: 'transferChecked',
          info: { destination: second, mint: USDC, tokenAmount: { amount: '1', decimals: 6 } },
        },
      },
    ])
    // the receiving token account's balance entry names the mint, the token program and an owner
    // that is another account
    const accountIndex = versionedTransaction.transaction.message.accountKeys.findIndex(
      (key) => key.pubkey.toBase58() === second,
    )
    const balance = versionedTransaction.meta?.postTokenBalances?.find(
      (entry) => entry.accountIndex === accountIndex,
    )
    expect(balance).toMatchObject({ mint: USDC, programId: TOKEN_PROGRAM, uiTokenAmount: { decimals: 6 } })
    expect(balance?.owner).not.toBe(second)
  })

  it('reads a v0 transaction whose receiving key comes from an address lookup table', async () => {
    const first = simulatedAddress('SOLANA')
    const receiver = simulatedAddress('SOLANA')
    await node.simulator.submitTransfer('SOLANA', { to: first, amount: '1', currency: 'SOL' })
    const { txHash } = await node.simulator.submitTransfer('SOLANA', {
      to: receiver,
      amount: '0.01',
      currency: 'SOL',
    })
    const { block, parsed } = await mineOne()

    expect(transfersOf(block, txHash)).toMatchObject([
      { index: 0, to: receiver, asset: { kind: 'native' }, amountUnits: '10000000', success: true },
    ])
    const transaction = parsedTransaction(parsed, txHash)
    expect(transaction.version).toBe(0)
    const key = transaction.transaction.message.accountKeys.find(
      (entry) => entry.pubkey.toBase58() === receiver,
    )
    expect(key).toMatchObject({ source: 'lookupTable', writable: true, signer: false })
    expect(transaction.transaction.message.addressTableLookups).toHaveLength(1)

    // with `json` encoding the key is only among the loaded addresses
    const raw = await connection.getBlock(block.height, { maxSupportedTransactionVersion: 0, rewards: false })
    const encoded = raw?.transactions.find((candidate) => candidate.transaction.signatures[0] === txHash)
    expect(encoded?.transaction.message.staticAccountKeys.map((entry) => entry.toBase58())).not.toContain(
      receiver,
    )
    expect(encoded?.meta?.loadedAddresses?.writable.map((entry) => entry.toBase58())).toEqual([receiver])
    const staticKeys = encoded?.transaction.message.staticAccountKeys.length ?? 0
    const keys = encoded?.transaction.message.getAccountKeys({
      accountKeysFromLookups: encoded.meta?.loadedAddresses,
    })
    // the balance arrays count the loaded key after the static ones, where it gained the lamports
    expect(keys?.get(staticKeys)?.toBase58()).toBe(receiver)
    expect(
      (encoded?.meta?.postBalances[staticKeys] ?? 0) - (encoded?.meta?.preBalances[staticKeys] ?? 0),
    ).toBe(10_000_000)
  })

  it('leaves a failed transaction out: its block comes without instructions and only its fee moved', async () => {
    const [solReceiver, usdcReceiver] = [simulatedAddress('SOLANA'), simulatedAddress('SOLANA')]
    const { txHash } = await node.simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: solReceiver, amount: '2', currency: 'SOL' },
        { to: usdcReceiver, amount: '3', currency: 'USDC' },
      ],
      failure: 'INSTRUCTION_ERROR',
    })
    const { block, parsed } = await mineOne()

    expect(transfersOf(block, txHash)).toEqual([])
    const { meta } = parsedTransaction(parsed, txHash)
    expect(meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(meta?.fee).toBe(5000)
    const deltas = meta?.postBalances.map((post, index) => post - (meta.preBalances[index] as number))
    expect(deltas?.[0]).toBe(-5000)
    expect(deltas?.slice(1).every((delta) => delta === 0)).toBe(true)
    expect(meta?.postTokenBalances).toEqual(meta?.preTokenBalances)
  })

  it('reads every transfer of a multi-transfer transaction, numbered by receiving account', async () => {
    const [a, b, c] = [simulatedAddress('SOLANA'), simulatedAddress('SOLANA'), simulatedAddress('SOLANA')]
    const { txHash } = await node.simulator.submitTransaction('SOLANA', {
      transfers: [
        { to: a, amount: '1.5', currency: 'USDT' },
        { to: b, amount: '0.25', currency: 'SOL' },
        { to: c, amount: '7', currency: 'USDC' },
        { to: a, amount: '0.5', currency: 'USDT' },
      ],
    })
    const { block, parsed } = await mineOne()

    const transfers = transfersOf(block, txHash)
    expect(transfers.map((transfer) => transfer.index)).toEqual([0, 1, 2])
    expect(
      transfers
        .map(({ to, asset, amountUnits }) => ({ to, asset, amountUnits }))
        .sort((x, y) => x.to.localeCompare(y.to)),
    ).toEqual(
      [
        // two instructions paying the same token account are one balance change
        { to: a, asset: { kind: 'token', contract: USDT }, amountUnits: '2000000' },
        { to: b, asset: { kind: 'native' }, amountUnits: '250000000' },
        { to: c, asset: { kind: 'token', contract: USDC }, amountUnits: '7000000' },
      ].sort((x, y) => x.to.localeCompare(y.to)),
    )
    expect(parsedTransaction(parsed, txHash).transaction.message.instructions).toHaveLength(4)
    // the same transaction read again numbers its transfers the same way
    expect(
      transfersOf((await client.getBlocks(block.height, block.height))[0] as ChainBlock, txHash),
    ).toEqual(transfers)
  })

  it('ignores a counterfeit USDC mint and the native coin of a token-only transaction', async () => {
    const counterfeit = simulatedAddress('SOLANA')
    const receiver = simulatedAddress('SOLANA')
    const fake = await node.simulator.submitTransfer('SOLANA', {
      to: receiver,
      amount: '100',
      currency: 'USDC',
      contract: counterfeit,
    })
    const { block, parsed } = await mineOne()

    expect(transfersOf(block, fake.txHash)).toEqual([])
    const { meta } = parsedTransaction(parsed, fake.txHash)
    expect(meta?.postTokenBalances?.map((entry) => entry.mint)).toContain(counterfeit)
  })

  it('reports the finalized slot 31 below the confirmed head, as the node answers per commitment', async () => {
    await node.simulator.mineBlocks('SOLANA', 40)
    const head = await client.getHead()
    expect(head.finalizedHeight).toBe(head.height - 31)
    expect(await connection.getSlot('finalized')).toBe(head.height - 31)
    expect(await connection.getSlot('confirmed')).toBe(head.height)

    const aboveFinalized = head.height - 10
    await expect(
      connection.getParsedBlock(aboveFinalized, {
        commitment: 'finalized',
        maxSupportedTransactionVersion: 0,
      }),
    ).rejects.toMatchObject({ code: -32004 })
    await expect(
      connection.getParsedBlock(head.height + 1, {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
      }),
    ).rejects.toMatchObject({ code: -32004 })
    expect(await client.getBlocks(aboveFinalized, aboveFinalized)).toMatchObject([{ height: aboveFinalized }])
    expect(await connection.getBlocks(head.height - 35, undefined, 'finalized')).toEqual(
      Array.from({ length: 5 }, (_, offset) => head.height - 35 + offset),
    )
  })

  it('loses a transaction dropped before finality: its slot comes back with another blockhash', async () => {
    const receiver = simulatedAddress('SOLANA')
    const { txHash } = await node.simulator.submitTransfer('SOLANA', {
      to: receiver,
      amount: '5',
      currency: 'SOL',
    })
    const { block: before } = await mineOne()
    await node.simulator.mineBlocks('SOLANA', 2)
    expect(transfersOf(before, txHash)).toHaveLength(1)
    expect((await client.getHead()).finalizedHeight).toBeLessThan(before.height)

    expect(await node.simulator.dropTransaction('SOLANA', txHash)).toBe(true)

    const [after] = await client.getBlocks(before.height, before.height)
    expect(after?.height).toBe(before.height)
    expect(after?.hash).not.toBe(before.hash)
    expect(after?.parentHash).toBe(before.parentHash)
    expect(transfersOf(after as ChainBlock, txHash)).toEqual([])
  })

  it('refuses a block with a v0 transaction to a client that supports legacy ones only', async () => {
    await node.simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
    })
    await node.simulator.submitTransfer('SOLANA', {
      to: simulatedAddress('SOLANA'),
      amount: '1',
      currency: 'SOL',
    })
    const head = await node.simulator.mineBlocks('SOLANA', 1)
    await expect(connection.getParsedBlock(head.height, {})).rejects.toMatchObject({ code: -32015 })
    expect(await connection.getBlockSignatures(head.height)).toMatchObject({ signatures: expect.any(Array) })
  })

  it('serves the devnet chain under its own name', async () => {
    // the simulator matches the network of the URL ignoring case
    const devnet = createSolanaChainClient({
      network: 'SOLANA_DEVNET',
      registry: defaultAssetRegistry,
      rpcUrl: node.solanaUrl('solana_devnet'),
    })
    const receiver = simulatedAddress('SOLANA')
    const { txHash } = await node.simulator.submitTransfer('SOLANA_DEVNET', {
      to: receiver,
      amount: '0.01',
      currency: 'USDC',
    })
    const head = await node.simulator.mineBlocks('SOLANA_DEVNET', 1)
    const [block] = await devnet.getBlocks(head.height, head.height)
    expect(block?.transfers).toMatchObject([
      { txHash, to: receiver, asset: { kind: 'token', contract: DEVNET_USDC } },
    ])
    expect(await new Connection(node.solanaUrl('SOLANA_DEVNET')).getGenesisHash()).toBe(
      'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
    )
  })
})

// Signed transactions the simulator ran (docs/chains.md, "The simulator as a node for sweeping")
// read back through the chain-indexer's Solana client, as sweeps from watched addresses are read.
import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSolanaChainClient } from './solana-chain-client.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')

let node: SimulatorNode

function associatedTokenAccount(owner: PublicKey): PublicKey {
  const seeds = [owner.toBytes(), TOKEN_PROGRAM.toBytes(), new PublicKey(USDC).toBytes()]
  return PublicKey.findProgramAddressSync(seeds, ATA_PROGRAM)[0]
}

beforeEach(async () => {
  node = await startSimulatorNode()
})

afterEach(() => node.close())

it('reads a SOL sweep and a USDC sweep (ATA created, source closed) as the chain moved them', async () => {
  const treasury = Keypair.generate()
  const payment = Keypair.generate()
  const owner = Keypair.generate()
  const source = associatedTokenAccount(owner.publicKey)
  const destination = associatedTokenAccount(treasury.publicKey)
  const { simulator } = node
  await simulator.submitTransfer('SOLANA', {
    to: treasury.publicKey.toBase58(),
    amount: '1',
    currency: 'SOL',
  })
  await simulator.submitTransfer('SOLANA', {
    to: payment.publicKey.toBase58(),
    amount: '0.25',
    currency: 'SOL',
  })
  await simulator.openTokenAccount('SOLANA', {
    owner: owner.publicKey.toBase58(),
    currency: 'USDC',
    address: source.toBase58(),
  })
  await simulator.submitTransfer('SOLANA', { to: source.toBase58(), amount: '3', currency: 'USDC' })
  await simulator.mineBlocks('SOLANA', 1)

  const connection = new Connection(node.solanaUrl('SOLANA'), 'confirmed')
  const { blockhash } = await connection.getLatestBlockhash()
  const send = async (instructions: TransactionInstruction[], signers: Keypair[]) => {
    const message = new TransactionMessage({
      payerKey: treasury.publicKey,
      recentBlockhash: blockhash,
      instructions,
    }).compileToV0Message()
    const transaction = new VersionedTransaction(message)
    transaction.sign(signers)
    return connection.sendTransaction(transaction)
  }
  const solSweep = await send(
    [
      SystemProgram.transfer({
        fromPubkey: payment.publicKey,
        toPubkey: treasury.publicKey,
        lamports: 250_000_000,
      }),
    ],
    [treasury, payment],
  )
  const amount = Buffer.alloc(10)
  amount.writeUInt8(12, 0)
  amount.writeBigUInt64LE(3_000_000n, 1)
  amount.writeUInt8(6, 9)
  const usdcSweep = await send(
    [
      new TransactionInstruction({
        programId: ATA_PROGRAM,
        keys: [
          { pubkey: treasury.publicKey, isSigner: true, isWritable: true },
          { pubkey: destination, isSigner: false, isWritable: true },
          { pubkey: treasury.publicKey, isSigner: false, isWritable: false },
          { pubkey: new PublicKey(USDC), isSigner: false, isWritable: false },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
          { pubkey: TOKEN_PROGRAM, isSigner: false, isWritable: false },
        ],
        data: Buffer.from([1]),
      }),
      new TransactionInstruction({
        programId: TOKEN_PROGRAM,
        keys: [
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: new PublicKey(USDC), isSigner: false, isWritable: false },
          { pubkey: destination, isSigner: false, isWritable: true },
          { pubkey: owner.publicKey, isSigner: true, isWritable: false },
        ],
        data: amount,
      }),
      new TransactionInstruction({
        programId: TOKEN_PROGRAM,
        keys: [
          { pubkey: source, isSigner: false, isWritable: true },
          { pubkey: treasury.publicKey, isSigner: false, isWritable: true },
          { pubkey: owner.publicKey, isSigner: true, isWritable: false },
        ],
        data: Buffer.from([9]),
      }),
    ],
    [treasury, owner],
  )
  const { height } = await simulator.mineBlocks('SOLANA', 1)

  const client = createSolanaChainClient({
    network: 'SOLANA',
    registry: defaultAssetRegistry,
    rpcUrl: node.solanaUrl('SOLANA'),
  })
  const [block] = await client.getBlocks(height, height)
  const credits = (block?.transfers ?? []).map(({ txHash, to, asset, amountUnits, success }) => ({
    txHash,
    to,
    asset,
    amountUnits,
    success,
  }))
  // the treasury gains the swept lamports less the fee of two signatures (in the USDC sweep the
  // closed account's rent back cancels the new one's rent and the fee is its loss: no credit); its
  // new token account gains the tokens, and its rent, which is nobody's SOL (docs/chains.md)
  expect(credits).toEqual([
    {
      txHash: solSweep,
      to: treasury.publicKey.toBase58(),
      asset: { kind: 'native' },
      amountUnits: String(250_000_000 - 10_000),
      success: true,
    },
    {
      txHash: usdcSweep,
      to: destination.toBase58(),
      asset: { kind: 'token', contract: USDC },
      amountUnits: '3000000',
      success: true,
    },
  ])
})

// The test wallet (testing/solana-wallet.ts) against the simulator node: its transactions are real
// signed ones that the node runs as a validator does, and they move balances as on chain.
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { Connection, Keypair, type ParsedInstruction, PublicKey } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'
import { type SolanaWallet, solanaWallet } from './testing/solana-wallet.js'

const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const USDT = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDT' }).contract as string
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const ATA_RENT = 2_039_280n
/** 5,000 lamports for the signature, 100,000 units at 50,000 micro-lamports: the default budget */
const FEE = 10_000n

let node: SimulatorNode
let connection: Connection
let wallet: SolanaWallet

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  connection = new Connection(node.solanaUrl('SOLANA'), { commitment: 'confirmed', httpAgent: false })
  wallet = await solanaWallet(node, 'SOLANA')
})

afterEach(() => node.close())

const owner = () => Keypair.generate().publicKey.toBase58()

async function lamports(address: string): Promise<bigint> {
  return BigInt(await connection.getBalance(new PublicKey(address), 'confirmed'))
}

async function tokens(account: string): Promise<bigint> {
  return BigInt((await connection.getTokenAccountBalance(new PublicKey(account), 'confirmed')).value.amount)
}

/** the transaction once in a block: its token balances and the instructions it holds, by type */
async function mined(txHash: string) {
  await node.simulator.mineBlocks('SOLANA', 1)
  const read = await connection.getParsedTransaction(txHash, {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
  })
  if (read === null) throw new Error(`${txHash} is not in a block`)
  const types = read.transaction.message.instructions.map((instruction) =>
    'parsed' in instruction
      ? (instruction as ParsedInstruction).parsed.type
      : instruction.programId.toBase58(),
  )
  return { read, types }
}

describe('solanaWallet', () => {
  it('holds what it was funded with, its tokens in its own associated accounts', async () => {
    expect(await lamports(wallet.address)).toBe(1_000_000_000_000n)
    const account = wallet.associatedTokenAccount(wallet.address, 'USDC')
    expect(await tokens(account)).toBe(1_000_000_000_000n)
    const parsed = await connection.getParsedAccountInfo(new PublicKey(account), 'confirmed')
    expect(parsed.value?.data).toMatchObject({
      program: 'spl-token',
      parsed: { info: { mint: USDC, owner: wallet.address } },
    })
  })

  it('pays SOL to the owner with SystemProgram.transfer, after a compute budget as Phantom sets one', async () => {
    const payee = owner()
    const before = await lamports(wallet.address)
    const { txHash, fee } = await wallet.pay({ to: payee, amount: '1.25', currency: 'SOL' })
    expect(fee).toBe(FEE)
    expect(await lamports(payee)).toBe(1_250_000_000n)
    expect(await lamports(wallet.address)).toBe(before - 1_250_000_000n - FEE)
    const { read, types } = await mined(txHash)
    expect(types).toEqual([
      'ComputeBudget111111111111111111111111111111',
      'ComputeBudget111111111111111111111111111111',
      'transfer',
    ])
    expect(read.version).toBe(0)
    expect(read.meta).toMatchObject({ err: null, fee: Number(FEE) })
  })

  it("pays a token as Phantom does: the owner's associated account made in the same transaction, the rent paid by the wallet", async () => {
    const payee = owner()
    const account = wallet.associatedTokenAccount(payee, 'USDC')
    const before = await lamports(wallet.address)
    const { txHash } = await wallet.pay({ to: payee, amount: '12.5', currency: 'USDC' })
    expect(await tokens(account)).toBe(12_500_000n)
    expect(await lamports(account)).toBe(ATA_RENT)
    expect(await lamports(wallet.address)).toBe(before - ATA_RENT - FEE)
    const { read, types } = await mined(txHash)
    expect(types.slice(2)).toEqual(['createIdempotent', 'transferChecked'])
    const [info] = await connection.getMultipleAccountsInfo([new PublicKey(account)], 'confirmed')
    expect(info?.owner.toBase58()).toBe(TOKEN_PROGRAM)
    // the token balances name the owner of the account paid, and the wallet as owner of the source
    expect(read.meta?.postTokenBalances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          mint: USDC,
          owner: payee,
          uiTokenAmount: expect.objectContaining({ amount: '12500000' }),
        }),
        expect.objectContaining({ mint: USDC, owner: wallet.address }),
      ]),
    )

    // paid again: the account exists, no rent this time
    const again = await lamports(wallet.address)
    await wallet.pay({ to: payee, amount: '0.5', currency: 'USDC' })
    expect(await tokens(account)).toBe(13_000_000n)
    expect(await lamports(wallet.address)).toBe(again - FEE)
  })

  it('pays a token account of the owner other than the associated one, which it leaves alone', async () => {
    const payee = owner()
    const other = await node.simulator.openTokenAccount('SOLANA', { owner: payee, currency: 'USDT' })
    const { txHash } = await wallet.pay({
      to: payee,
      amount: '3',
      currency: 'USDT',
      tokenAccount: other.address,
    })
    expect(await tokens(other.address)).toBe(3_000_000n)
    const associated = wallet.associatedTokenAccount(payee, 'USDT')
    expect(await connection.getAccountInfo(new PublicKey(associated), 'confirmed')).toBeNull()
    const { read, types } = await mined(txHash)
    expect(types.slice(2)).toEqual(['transferChecked'])
    expect(read.meta?.postTokenBalances).toEqual(
      expect.arrayContaining([expect.objectContaining({ mint: USDT, owner: payee })]),
    )
  })

  it("makes one transaction of several payments: SOL and two tokens to one owner, an exchange's payouts to many", async () => {
    const payee = owner()
    const together = await wallet.pay([
      { to: payee, amount: '0.5', currency: 'SOL' },
      { to: payee, amount: '7', currency: 'USDC' },
      { to: payee, amount: '8', currency: 'USDT' },
    ])
    expect((await mined(together.txHash)).types.slice(2)).toEqual([
      'transfer',
      'createIdempotent',
      'transferChecked',
      'createIdempotent',
      'transferChecked',
    ])
    expect(await lamports(payee)).toBe(500_000_000n)
    expect(await tokens(wallet.associatedTokenAccount(payee, 'USDC'))).toBe(7_000_000n)
    expect(await tokens(wallet.associatedTokenAccount(payee, 'USDT'))).toBe(8_000_000n)

    const payees = Array.from({ length: 6 }, owner)
    const before = await lamports(wallet.address)
    const payouts = await wallet.pay(
      payees.map((to, position) => ({ to, amount: `${position + 1}`, currency: 'USDC' })),
    )
    await mined(payouts.txHash)
    for (const [position, to] of payees.entries()) {
      expect(await tokens(wallet.associatedTokenAccount(to, 'USDC'))).toBe(BigInt(position + 1) * 1_000_000n)
    }
    expect(await lamports(wallet.address)).toBe(before - 6n * ATA_RENT - payouts.fee)
  })

  it('sends a payment it cannot cover: refused by the preflight, or on chain and failed without it', async () => {
    const payee = owner()
    await expect(wallet.pay({ to: payee, amount: '5000', currency: 'SOL' })).rejects.toThrow(
      /custom program error: 0x1/,
    )
    const before = await lamports(wallet.address)
    const { txHash, fee } = await wallet.pay(
      { to: payee, amount: '5000', currency: 'SOL' },
      { skipPreflight: true },
    )
    const { read } = await mined(txHash)
    expect(read.meta?.err).toEqual({ InstructionError: [2, { Custom: 1 }] })
    expect(await lamports(payee)).toBe(0n)
    expect(await lamports(wallet.address)).toBe(before - fee)
  })
})

// The simulator as a Solana node for sweeping (docs/chains.md, "The simulator as a node for
// sweeping"): @solana/web3.js builds, signs with keys derived from a mnemonic and sends over HTTP;
// the node verifies, charges and applies, or refuses as a validator's preflight does.

import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import {
  associatedTokenAccount,
  deriveSolanaAddress,
  solanaDerivationPath,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { base58 } from '@scure/base'
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { HDKey } from 'micro-key-producer/slip10.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChainSimulator } from './simulator.js'
import { type SimulatorNode, startSimulatorNode, testNetworks } from './testing/simulator-node.js'

const MNEMONIC =
  'legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title'
const SEED = walletFromMnemonic(MNEMONIC).solanaSeed
const USDC = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string
const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
const ATA_PROGRAM = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')
const TOKEN_ACCOUNT_RENT = 2_039_280
const SOL = 1_000_000_000

// biome-ignore lint/suspicious/noExplicitAny: node answers are read loosely and checked with expect
type Loose = any

/** the key at m/44'/501'/i'/0', checked against the address packages/wallet derives there */
function keypair(index: number): Keypair {
  const key = HDKey.fromMasterSeed(Buffer.from(SEED, 'hex')).derive(solanaDerivationPath(index))
  const pair = Keypair.fromSeed(key.privateKey)
  expect(pair.publicKey.toBase58()).toBe(deriveSolanaAddress(SEED, index).address)
  return pair
}

const treasury = keypair(0)
const payment = keypair(1)
const tokenOwner = keypair(2)

let node: SimulatorNode
let simulator: ChainSimulator
let connection: Connection

beforeEach(async () => {
  node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  simulator = node.simulator
  connection = new Connection(node.solanaUrl('SOLANA'), 'confirmed')
  await simulator.submitTransfer('SOLANA', {
    to: treasury.publicKey.toBase58(),
    amount: '2',
    currency: 'SOL',
  })
  await simulator.submitTransfer('SOLANA', {
    to: payment.publicKey.toBase58(),
    amount: '0.5',
    currency: 'SOL',
  })
  await simulator.mineBlocks('SOLANA', 1)
})

afterEach(() => node.close())

/** a raw JSON-RPC call over HTTP, for the exact error the node answers */
async function rpc(method: string, ...params: unknown[]): Promise<Loose> {
  const response = await fetch(node.solanaUrl('SOLANA'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return response.json()
}

async function sendBase64(wire: Uint8Array): Promise<Loose> {
  return rpc('sendTransaction', Buffer.from(wire).toString('base64'), { encoding: 'base64' })
}

async function blockhash(): Promise<string> {
  return (await connection.getLatestBlockhash('confirmed')).blockhash
}

/** a legacy transaction the treasury pays for, signed by the given keys */
async function legacy(instructions: TransactionInstruction[], signers: Keypair[]): Promise<Transaction> {
  const transaction = new Transaction({ feePayer: treasury.publicKey, recentBlockhash: await blockhash() })
  transaction.add(...instructions)
  transaction.sign(...signers)
  return transaction
}

function solTransfer(from: Keypair, to: PublicKey, lamports: number): TransactionInstruction {
  return SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports })
}

function ata(owner: PublicKey): PublicKey {
  return new PublicKey(associatedTokenAccount(owner.toBase58(), USDC))
}

function createIdempotent(payer: PublicKey, owner: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: ATA_PROGRAM,
    keys: [
      { pubkey: payer, isSigner: true, isWritable: true },
      { pubkey: ata(owner), isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: false, isWritable: false },
      { pubkey: new PublicKey(USDC), isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: TOKEN_PROGRAM, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1]),
  })
}

function transferChecked(
  from: PublicKey,
  to: PublicKey,
  owner: PublicKey,
  units: bigint,
): TransactionInstruction {
  const data = Buffer.alloc(10)
  data.writeUInt8(12, 0)
  data.writeBigUInt64LE(units, 1)
  data.writeUInt8(6, 9)
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM,
    keys: [
      { pubkey: from, isSigner: false, isWritable: true },
      { pubkey: new PublicKey(USDC), isSigner: false, isWritable: false },
      { pubkey: to, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data,
  })
}

function closeAccount(account: PublicKey, destination: PublicKey, owner: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: TOKEN_PROGRAM,
    keys: [
      { pubkey: account, isSigner: false, isWritable: true },
      { pubkey: destination, isSigner: false, isWritable: true },
      { pubkey: owner, isSigner: true, isWritable: false },
    ],
    data: Buffer.from([9]),
  })
}

/**
 * the token owner's ATA paid 12.5 USDC; opened from outside first, or only paid, as payments pay a
 * payment's ATA
 */
async function fundedTokenAccount(open = true): Promise<PublicKey> {
  const address = ata(tokenOwner.publicKey)
  if (open) {
    await simulator.openTokenAccount('SOLANA', {
      owner: tokenOwner.publicKey.toBase58(),
      currency: 'USDC',
      address: address.toBase58(),
    })
  }
  await simulator.submitTransfer('SOLANA', { to: address.toBase58(), amount: '12.5', currency: 'USDC' })
  await simulator.mineBlocks('SOLANA', 1)
  return address
}

async function balances(...keys: PublicKey[]): Promise<number[]> {
  return Promise.all(keys.map((key) => connection.getBalance(key, 'confirmed')))
}

describe('sendTransaction: sweeps', () => {
  it('empties an address to exactly 0 with the treasury paying the fee of two signatures', async () => {
    const [treasuryBefore] = await balances(treasury.publicKey)
    const transaction = await legacy([solTransfer(payment, treasury.publicKey, SOL / 2)], [treasury, payment])
    const signature = await connection.sendRawTransaction(transaction.serialize())
    expect(signature).toBe(base58.encode(transaction.signature as Uint8Array))

    // processed at once, as a validator's bank: the balances changed before the block
    expect(await balances(payment.publicKey, treasury.publicKey)).toEqual([
      0,
      (treasuryBefore as number) + SOL / 2 - 10_000,
    ])
    expect(await connection.getAccountInfo(payment.publicKey, 'confirmed')).toBeNull()
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const confirmed = await connection.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    })
    expect(confirmed).toMatchObject({
      slot: height,
      meta: {
        err: null,
        fee: 10_000,
        preBalances: [treasuryBefore, SOL / 2, 1],
        postBalances: [(treasuryBefore as number) + SOL / 2 - 10_000, 0, 1],
      },
    })
    expect(confirmed?.transaction.signatures).toEqual(
      transaction.signatures.map(({ signature: bytes }) => base58.encode(bytes as Uint8Array)),
    )
    const listed = await connection.getSignaturesForAddress(payment.publicKey, {}, 'confirmed')
    expect(listed.map((entry) => entry.signature)).toContain(signature)
    // the chain port shows the lamports moved
    const [block] = await simulator.client('SOLANA').getBlocks(height, height)
    expect(block?.transfers).toMatchObject([
      {
        txHash: signature,
        from: payment.publicKey.toBase58(),
        to: treasury.publicKey.toBase58(),
        amountUnits: '500000000',
      },
    ])
  })

  it('accepts base58 wire transactions and v0 messages, and charges their priority fee', async () => {
    const [treasuryBefore] = await balances(treasury.publicKey)
    const message = new TransactionMessage({
      payerKey: treasury.publicKey,
      recentBlockhash: await blockhash(),
      instructions: [
        ComputeBudgetProgram.setComputeUnitLimit({ units: 300 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_001 }),
        solTransfer(payment, treasury.publicKey, SOL / 4),
      ],
    }).compileToV0Message()
    const transaction = new VersionedTransaction(message)
    transaction.sign([treasury, payment])
    const body = await rpc('sendTransaction', base58.encode(transaction.serialize()))
    expect(body.result).toBe(base58.encode(transaction.signatures[0] as Uint8Array))
    // 2 x 5,000 + ceil(1,000,001 micro-lamports x 300 units / 10^6) = 10,000 + 301
    expect(await balances(payment.publicKey, treasury.publicKey)).toEqual([
      SOL / 4,
      (treasuryBefore as number) + SOL / 4 - 10_301,
    ])
    expect((await connection.getFeeForMessage(message, 'confirmed')).value).toBe(10_301)
  })

  it('moves USDC into the treasury ATA it creates, closes the emptied account and returns its rent', async () => {
    const source = await fundedTokenAccount()
    const destination = ata(treasury.publicKey)
    const [treasuryBefore] = await balances(treasury.publicKey)
    const message = new TransactionMessage({
      payerKey: treasury.publicKey,
      recentBlockhash: await blockhash(),
      instructions: [
        createIdempotent(treasury.publicKey, treasury.publicKey),
        transferChecked(source, destination, tokenOwner.publicKey, 12_500_000n),
        closeAccount(source, treasury.publicKey, tokenOwner.publicKey),
      ],
    }).compileToV0Message()
    const transaction = new VersionedTransaction(message)
    transaction.sign([treasury, tokenOwner])
    const signature = await connection.sendTransaction(transaction)

    expect(await connection.getAccountInfo(source, 'confirmed')).toBeNull()
    expect((await connection.getTokenAccountBalance(destination, 'confirmed')).value).toMatchObject({
      amount: '12500000',
      decimals: 6,
      uiAmountString: '12.5',
    })
    // the new account's rent out, the closed account's rent back: the treasury paid the fee only
    expect(await balances(treasury.publicKey, destination)).toEqual([
      (treasuryBefore as number) - 10_000,
      TOKEN_ACCOUNT_RENT,
    ])
    const parsed = await connection.getParsedAccountInfo(destination, 'confirmed')
    expect(parsed.value).toMatchObject({
      lamports: TOKEN_ACCOUNT_RENT,
      owner: TOKEN_PROGRAM,
      data: {
        program: 'spl-token',
        parsed: { type: 'account', info: { mint: USDC, owner: treasury.publicKey.toBase58() } },
      },
    })
    const [closed, opened, system] = await connection.getMultipleAccountsInfo(
      [source, destination, treasury.publicKey],
      'confirmed',
    )
    expect([closed, opened?.owner.toBase58(), opened?.data.length, system?.owner.toBase58()]).toEqual([
      null,
      TOKEN_PROGRAM.toBase58(),
      165,
      SystemProgram.programId.toBase58(),
    ])
    const raw = await connection.getAccountInfo(destination, 'confirmed')
    expect(raw?.data.subarray(0, 32)).toEqual(new PublicKey(USDC).toBuffer())
    expect(raw?.data.readBigUInt64LE(64)).toBe(12_500_000n)

    await simulator.mineBlocks('SOLANA', 1)
    const confirmed = await connection.getParsedTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    })
    expect(confirmed?.meta).toMatchObject({ err: null, fee: 10_000 })
    expect(confirmed?.meta?.preTokenBalances).toMatchObject([
      { mint: USDC, owner: tokenOwner.publicKey.toBase58(), uiTokenAmount: { amount: '12500000' } },
    ])
    expect(confirmed?.meta?.postTokenBalances).toMatchObject([
      { mint: USDC, owner: treasury.publicKey.toBase58(), uiTokenAmount: { amount: '12500000' } },
    ])
    expect(
      confirmed?.transaction.message.instructions.map((instruction) =>
        'parsed' in instruction ? instruction.parsed.type : null,
      ),
    ).toEqual(['createIdempotent', 'transferChecked', 'closeAccount'])
    expect(await simulator.tokenAccountsOf('SOLANA', tokenOwner.publicKey.toBase58())).toEqual([])
  })

  it('sweeps an associated token account it only saw paid, as the ATA of the signing owner', async () => {
    const source = await fundedTokenAccount(false)
    // before: the holding, under the stand-in owner blocks show
    expect((await connection.getTokenAccountBalance(source, 'confirmed')).value.amount).toBe('12500000')
    const [treasuryBefore] = await balances(treasury.publicKey)
    const destination = ata(treasury.publicKey)
    const sweep = await legacy(
      [
        createIdempotent(treasury.publicKey, treasury.publicKey),
        transferChecked(source, destination, tokenOwner.publicKey, 12_500_000n),
        closeAccount(source, treasury.publicKey, tokenOwner.publicKey),
      ],
      [treasury, tokenOwner],
    )
    await connection.sendRawTransaction(sweep.serialize())
    expect(await connection.getAccountInfo(source, 'confirmed')).toBeNull()
    expect((await connection.getTokenAccountBalance(destination, 'confirmed')).value.amount).toBe('12500000')
    expect(await balances(treasury.publicKey)).toEqual([(treasuryBefore as number) - 10_000])
  })

  it('answers the fee of a message and whether its blockhash is still valid', async () => {
    const transaction = await legacy([solTransfer(payment, treasury.publicKey, 1)], [treasury, payment])
    expect((await connection.getFeeForMessage(transaction.compileMessage(), 'confirmed')).value).toBe(10_000)
    const hash = transaction.recentBlockhash as string
    await simulator.mineBlocks('SOLANA', 150)
    expect((await connection.isBlockhashValid(hash, { commitment: 'confirmed' })).value).toBe(true)
    await simulator.mineBlocks('SOLANA', 1)
    expect((await connection.isBlockhashValid(hash, { commitment: 'confirmed' })).value).toBe(false)
    expect((await connection.getFeeForMessage(transaction.compileMessage(), 'confirmed')).value).toBeNull()
  })
})

describe('simulateTransaction', () => {
  it('tells what sending would do without doing it', async () => {
    const sweep = await legacy([solTransfer(payment, treasury.publicKey, SOL / 2)], [treasury, payment])
    const before = await balances(treasury.publicKey, payment.publicKey)
    const simulated = await connection.simulateTransaction(sweep)
    expect(simulated.value).toMatchObject({ err: null, unitsConsumed: 150 })
    expect(simulated.value.logs).toEqual([
      `Program ${SystemProgram.programId.toBase58()} invoke [1]`,
      `Program ${SystemProgram.programId.toBase58()} success`,
    ])
    const dust = await legacy([solTransfer(payment, treasury.publicKey, SOL / 2 - 1)], [treasury, payment])
    expect((await connection.simulateTransaction(dust)).value.err).toEqual({
      InsufficientFundsForRent: { account_index: 1 },
    })
    expect(await balances(treasury.publicKey, payment.publicKey)).toEqual(before)
  })
})

describe('sendTransaction: durable nonces', () => {
  it('accepts a transaction signed long ago against a nonce account, once', async () => {
    const nonceAccount = keypair(3)
    const creation = SystemProgram.createNonceAccount({
      fromPubkey: treasury.publicKey,
      noncePubkey: nonceAccount.publicKey,
      authorizedPubkey: treasury.publicKey,
      lamports: 1_447_680,
    })
    creation.feePayer = treasury.publicKey
    creation.recentBlockhash = await blockhash()
    creation.sign(treasury, nonceAccount)
    await connection.sendRawTransaction(creation.serialize())
    await simulator.mineBlocks('SOLANA', 1)
    const nonce = await connection.getNonce(nonceAccount.publicKey, 'confirmed')
    expect(nonce?.authorizedPubkey.toBase58()).toBe(treasury.publicKey.toBase58())
    expect(nonce?.feeCalculator.lamportsPerSignature).toBe(5000)

    // signed now (offline), sent after its blockhash would have expired
    const sweep = new Transaction({
      feePayer: treasury.publicKey,
      nonceInfo: {
        nonce: nonce?.nonce as string,
        nonceInstruction: SystemProgram.nonceAdvance({
          noncePubkey: nonceAccount.publicKey,
          authorizedPubkey: treasury.publicKey,
        }),
      },
    }).add(solTransfer(payment, treasury.publicKey, SOL / 2))
    sweep.sign(treasury, payment)
    await simulator.mineBlocks('SOLANA', 200)
    // priced although 200 blocks old: its blockhash is the nonce it advances
    expect((await connection.getFeeForMessage(sweep.compileMessage(), 'confirmed')).value).toBe(10_000)
    expect((await sendBase64(sweep.serialize())).result).toBe(base58.encode(sweep.signature as Uint8Array))
    expect(await connection.getBalance(payment.publicKey, 'confirmed')).toBe(0)
    const advanced = await connection.getNonce(nonceAccount.publicKey, 'confirmed')
    expect(advanced?.nonce).not.toBe(nonce?.nonce)
    // the nonce moved on: the same bytes again name a blockhash that is no more
    expect((await sendBase64(sweep.serialize())).error).toMatchObject({
      code: -32002,
      data: { err: 'BlockhashNotFound' },
    })
    const parsed = await connection.getParsedAccountInfo(nonceAccount.publicKey, 'confirmed')
    expect(parsed.value?.data).toMatchObject({
      program: 'nonce',
      parsed: {
        type: 'initialized',
        info: { authority: treasury.publicKey.toBase58(), blockhash: advanced?.nonce },
      },
    })
  })
})

describe('sendTransaction with skipPreflight', () => {
  it('puts a transaction whose instruction fails on chain, failed: its fee charged, nothing else done', async () => {
    const [treasuryBefore] = await balances(treasury.publicKey)
    const overdrawn = await legacy([solTransfer(payment, treasury.publicKey, SOL)], [treasury, payment])
    const signature = await connection.sendRawTransaction(overdrawn.serialize(), { skipPreflight: true })
    expect(await balances(payment.publicKey, treasury.publicKey)).toEqual([
      SOL / 2,
      (treasuryBefore as number) - 10_000,
    ])
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    const landed = await connection.getParsedTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    })
    expect(landed).toMatchObject({
      slot: height,
      meta: {
        err: { InstructionError: [0, { Custom: 1 }] },
        fee: 10_000,
        preBalances: [treasuryBefore, SOL / 2, 1],
        postBalances: [(treasuryBefore as number) - 10_000, SOL / 2, 1],
      },
    })
    // the instruction it asked for, parsed as a node parses it
    expect(landed?.transaction.message.instructions).toMatchObject([
      {
        program: 'system',
        parsed: {
          type: 'transfer',
          info: {
            source: payment.publicKey.toBase58(),
            destination: treasury.publicKey.toBase58(),
            lamports: SOL,
          },
        },
      },
    ])
    expect(landed?.meta?.logMessages).toContain(`Transfer: insufficient lamports ${SOL / 2}, need ${SOL}`)
    const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
    expect(value[0]).toMatchObject({ slot: height, err: { InstructionError: [0, { Custom: 1 }] } })
    const [listed] = await connection.getSignaturesForAddress(payment.publicKey, { limit: 1 }, 'confirmed')
    expect(listed).toMatchObject({ signature, slot: height, err: { InstructionError: [0, { Custom: 1 }] } })
  })

  it('still refuses what fails before the fee is charged', async () => {
    const stranger = Keypair.generate()
    const unfunded = new Transaction({ feePayer: stranger.publicKey, recentBlockhash: await blockhash() })
    unfunded.add(solTransfer(stranger, treasury.publicKey, 1))
    unfunded.sign(stranger)
    await expect(
      connection.sendRawTransaction(unfunded.serialize(), { skipPreflight: true }),
    ).rejects.toThrow(/no record of a prior credit/)
  })
})

describe('a transaction that lands ahead of a signed one (landsAheadOf)', () => {
  it("is held until the signed one is sent; that one passes the preflight, then fails on chain once the other spent what it moves: its fee charged, and the other's transfer done", async () => {
    const [treasuryBefore] = await balances(treasury.publicKey)
    const sweep = await legacy(
      [
        ComputeBudgetProgram.setComputeUnitLimit({ units: 1000 }),
        solTransfer(payment, treasury.publicKey, SOL / 4),
      ],
      [treasury, payment],
    )
    const signature = base58.encode(sweep.signature as Uint8Array)
    const stranger = Keypair.generate().publicKey
    // another transaction of the payment address: it leaves 0.1 SOL
    await simulator.submitTransfer(
      'SOLANA',
      { from: payment.publicKey.toBase58(), to: stranger.toBase58(), amount: '0.4', currency: 'SOL' },
      { landsAheadOf: signature },
    )
    await simulator.mineBlocks('SOLANA', 1)
    expect(await balances(payment.publicKey)).toEqual([SOL / 2])

    expect(await connection.sendRawTransaction(sweep.serialize())).toBe(signature)
    const { height } = await simulator.mineBlocks('SOLANA', 1)
    expect(await balances(payment.publicKey, stranger, treasury.publicKey)).toEqual([
      SOL / 10,
      (4 * SOL) / 10,
      (treasuryBefore as number) - 10_000,
    ])
    const landed = await connection.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    })
    expect(landed).toMatchObject({
      slot: height,
      meta: { err: { InstructionError: [1, { Custom: 1 }] }, fee: 10_000 },
    })
    // the status says the same error: the instruction that failed, and how
    const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
    expect(value[0]).toMatchObject({ slot: height, err: { InstructionError: [1, { Custom: 1 }] } })
    // sent again: already processed, nothing held any more
    await expect(connection.sendRawTransaction(sweep.serialize())).rejects.toThrow(/already been processed/)
  })

  it('lands nothing when the preflight refuses the signed one; one whose fee payer can no longer pay is dropped by the leader', async () => {
    const tooMuch = await legacy([solTransfer(payment, treasury.publicKey, SOL)], [treasury, payment])
    const stranger = Keypair.generate().publicKey
    await simulator.submitTransfer(
      'SOLANA',
      { from: payment.publicKey.toBase58(), to: stranger.toBase58(), amount: '0.1', currency: 'SOL' },
      { landsAheadOf: base58.encode(tooMuch.signature as Uint8Array) },
    )
    await expect(connection.sendRawTransaction(tooMuch.serialize())).rejects.toThrow(/insufficient lamports/)
    expect(await balances(stranger)).toEqual([0])

    // the treasury, which pays the fee, is emptied first
    expect(await balances(treasury.publicKey)).toEqual([2 * SOL])
    const sweep = await legacy([solTransfer(payment, treasury.publicKey, SOL / 4)], [treasury, payment])
    const signature = base58.encode(sweep.signature as Uint8Array)
    await simulator.submitTransfer(
      'SOLANA',
      {
        from: treasury.publicKey.toBase58(),
        to: stranger.toBase58(),
        amount: '2',
        currency: 'SOL',
      },
      { landsAheadOf: signature },
    )
    expect(await connection.sendRawTransaction(sweep.serialize())).toBe(signature)
    await simulator.mineBlocks('SOLANA', 1)
    expect(await balances(treasury.publicKey, payment.publicKey)).toEqual([0, SOL / 2])
    const { value } = await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })
    expect(value[0]).toBeNull()
  })

  it('is refused for what is not a signature', async () => {
    const transfer = { to: treasury.publicKey.toBase58(), amount: '1', currency: 'SOL' }
    await expect(
      simulator.submitTransfer('SOLANA', transfer, { landsAheadOf: 'not-a-signature' }),
    ).rejects.toThrow(/^landsAheadOf: the signature \(64 bytes in base58\)/)
  })
})

describe('sendTransaction: refusals', () => {
  /** the refusal's error, after checking that it changed no balance */
  async function refused(wire: Uint8Array): Promise<Loose> {
    const before = await balances(treasury.publicKey, payment.publicKey)
    const body = await sendBase64(wire)
    expect(body.result).toBeUndefined()
    expect(await balances(treasury.publicKey, payment.publicKey)).toEqual(before)
    return body.error
  }

  it('refuses a missing or a bad signature (-32003)', async () => {
    const unsigned = new Transaction({ feePayer: treasury.publicKey, recentBlockhash: await blockhash() })
    unsigned.add(solTransfer(payment, treasury.publicKey, 1000))
    unsigned.sign(treasury)
    const missing = await refused(unsigned.serialize({ requireAllSignatures: false }))
    expect(missing).toEqual({ code: -32003, message: 'Transaction signature verification failure' })

    const tampered = (
      await legacy([solTransfer(payment, treasury.publicKey, 1000)], [treasury, payment])
    ).serialize()
    tampered[5] = (tampered[5] as number) ^ 0xff
    expect(await refused(tampered)).toEqual({
      code: -32003,
      message: 'Transaction signature verification failure',
    })
    // web3.js surfaces it too
    await expect(connection.sendRawTransaction(tampered)).rejects.toThrow(
      /Transaction signature verification failure/,
    )
  })

  it('refuses an unknown or expired blockhash', async () => {
    const unknown = new Transaction({
      feePayer: treasury.publicKey,
      recentBlockhash: base58.encode(new Uint8Array(32).fill(7)),
    })
    unknown.add(solTransfer(payment, treasury.publicKey, 1000))
    unknown.sign(treasury, payment)
    expect(await refused(unknown.serialize())).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound', logs: [] },
    })

    const expiring = await legacy([solTransfer(payment, treasury.publicKey, 1000)], [treasury, payment])
    await simulator.mineBlocks('SOLANA', 151)
    expect((await refused(expiring.serialize())).data.err).toBe('BlockhashNotFound')
  })

  it('refuses a fee payer that never received anything, and a transfer beyond the balance', async () => {
    const stranger = Keypair.generate()
    const unfunded = new Transaction({ feePayer: stranger.publicKey, recentBlockhash: await blockhash() })
    unfunded.add(solTransfer(stranger, treasury.publicKey, 1))
    unfunded.sign(stranger)
    expect(await refused(unfunded.serialize())).toMatchObject({
      code: -32002,
      message:
        'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.',
      data: { err: 'AccountNotFound' },
    })

    const overdrawn = await legacy([solTransfer(payment, treasury.publicKey, SOL)], [treasury, payment])
    const error = await refused(overdrawn.serialize())
    expect(error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
      data: { err: { InstructionError: [0, { Custom: 1 }] } },
    })
    expect(error.data.logs).toContain(`Transfer: insufficient lamports ${SOL / 2}, need ${SOL}`)
  })

  it('refuses leaving a system account below the rent-exempt minimum', async () => {
    // the payment address would keep 1,000 lamports (index 1 in the message)
    const dust = await legacy([solTransfer(payment, treasury.publicKey, SOL / 2 - 1000)], [treasury, payment])
    expect(await refused(dust.serialize())).toMatchObject({
      code: -32002,
      message:
        'Transaction simulation failed: Transaction results in an account (1) with insufficient funds for rent',
      data: { err: { InsufficientFundsForRent: { account_index: 1 } } },
    })
    // a new account given less than 890,880 lamports
    const fresh = Keypair.generate().publicKey
    const small = await legacy([solTransfer(treasury, fresh, 890_879)], [treasury])
    expect((await refused(small.serialize())).data.err).toEqual({
      InsufficientFundsForRent: { account_index: 1 },
    })
    const enough = await legacy([solTransfer(treasury, fresh, 890_880)], [treasury])
    expect((await sendBase64(enough.serialize())).result).toBeDefined()
  })

  it('refuses an instruction that changes an account the message marks read-only', async () => {
    const transfer = solTransfer(payment, Keypair.generate().publicKey, SOL / 4)
    ;(transfer.keys[1] as { isWritable: boolean }).isWritable = false
    const transaction = await legacy([transfer], [treasury, payment])
    expect(await refused(transaction.serialize())).toMatchObject({
      code: -32002,
      message:
        'Transaction simulation failed: Error processing Instruction 0: instruction changed the balance of a read-only account',
      data: { err: { InstructionError: [0, 'ReadonlyLamportChange'] } },
    })
  })

  it('refuses closing a token account that still holds tokens', async () => {
    const source = await fundedTokenAccount()
    const closing = await legacy(
      [closeAccount(source, treasury.publicKey, tokenOwner.publicKey)],
      [treasury, tokenOwner],
    )
    const error = await refused(closing.serialize())
    expect(error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0xb',
      data: { err: { InstructionError: [0, { Custom: 11 }] } },
    })
    expect(error.data.logs).toContain(
      'Program log: Error: Non-native account can only be closed if its balance is zero',
    )
    expect((await connection.getTokenAccountBalance(source, 'confirmed')).value.amount).toBe('12500000')
  })

  it('refuses with -32016 when its preflight bank is below minContextSlot: finalized unless said, processed when skipped', async () => {
    const transaction = await legacy([solTransfer(payment, treasury.publicKey, SOL / 4)], [treasury, payment])
    const wire = Buffer.from(transaction.serialize()).toString('base64')
    const { height } = await simulator.head('SOLANA')
    const finalized = await simulator.finalizedHeight('SOLANA')
    const behind = (contextSlot: number) => ({
      code: -32016,
      message: 'Minimum context slot has not been reached',
      data: { contextSlot },
    })
    expect(
      (await rpc('sendTransaction', wire, { encoding: 'base64', minContextSlot: finalized + 1 })).error,
    ).toEqual(behind(finalized))
    const skipped = { encoding: 'base64', skipPreflight: true }
    expect((await rpc('sendTransaction', wire, { ...skipped, minContextSlot: height + 1 })).error).toEqual(
      behind(height),
    )
    expect(await balances(payment.publicKey)).toEqual([SOL / 2])
    expect((await rpc('sendTransaction', wire, { ...skipped, minContextSlot: height })).result).toBeDefined()
  })

  it('refuses a replay of an accepted transaction (AlreadyProcessed)', async () => {
    const transaction = await legacy([solTransfer(payment, treasury.publicKey, SOL / 4)], [treasury, payment])
    expect((await sendBase64(transaction.serialize())).result).toBeDefined()
    await simulator.mineBlocks('SOLANA', 1)
    expect(await refused(transaction.serialize())).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: This transaction has already been processed',
      data: { err: 'AlreadyProcessed' },
    })
    expect(await connection.getBalance(payment.publicKey, 'confirmed')).toBe(SOL / 4)
  })
})

// Plans built without a node, from a fresh mnemonic, with the real tronweb and @solana/web3.js
// builders: what the signer's tests sign. A head block and a blockhash are made up; nothing here
// is ever broadcast.

import { randomBytes } from 'node:crypto'
import {
  createSolanaAddressDeriver,
  createTronAddressDeriver,
  tronAddressFromPublicKey,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { base58 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import {
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
} from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { TronWeb } from 'tronweb'
import { TREASURY_PATHS } from '../commands.js'
import {
  FORMAT_VERSION,
  OUTGOING_FORMAT_VERSION,
  PLAN_FORMAT,
  type PlanStep,
  type SweepPlan,
  type TronUnsignedTransaction,
} from '../sweep-plan.js'

export const USDT_NILE = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
export const USDC_DEVNET = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'

export interface TestWallet {
  mnemonic: string
  /** every private key and seed the mnemonic gives for the plan's signers, as the signer could print them */
  secrets: string[]
}

export function testWallet(): TestWallet {
  return { mnemonic: generateMnemonic(wordlist, 256), secrets: [] }
}

/** a TRON plan: the treasury activates address 3 and delegates to it, address 3 sends TRX to the treasury */
export async function offlineTronPlan(wallet: TestWallet): Promise<SweepPlan> {
  const keys = walletFromMnemonic(wallet.mnemonic)
  const payment = createTronAddressDeriver(keys.tronAccountXpub)(3)
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(wallet.mnemonic))
  const treasuryNode = root.derive(TREASURY_PATHS.TRON)
  const treasury = tronAddressFromPublicKey(treasuryNode.publicKey as Uint8Array)
  for (const node of [treasuryNode, root.derive(payment.derivationPath)]) {
    wallet.secrets.push(Buffer.from(node.privateKey as Uint8Array).toString('hex'))
  }
  wallet.secrets.push(keys.solanaSeed)
  const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' })
  const now = Date.now()
  const blockHeader = {
    ref_block_bytes: '1a2b',
    ref_block_hash: randomBytes(8).toString('hex'),
    expiration: now + 23 * 3600 * 1000,
    timestamp: now,
  }
  const unsigned = (transaction: unknown) => transaction as TronUnsignedTransaction
  const treasurySigner = {
    role: 'treasury' as const,
    address: treasury,
    derivationPath: TREASURY_PATHS.TRON,
  }
  const paymentSigner = {
    role: 'payment' as const,
    address: payment.address,
    derivationPath: payment.derivationPath,
  }
  const steps: PlanStep[] = [
    {
      id: `fund:${payment.address}`,
      description: 'activation',
      after: [],
      signers: [treasurySigner],
      tron: {
        transaction: unsigned(
          await tronWeb.transactionBuilder.sendTrx(payment.address, 1, treasury, { blockHeader }),
        ),
      },
    },
    {
      id: `delegate:${payment.address}`,
      description: 'energy',
      after: [`fund:${payment.address}`],
      signers: [treasurySigner],
      tron: {
        transaction: unsigned(
          await tronWeb.transactionBuilder.delegateResource(
            7_000_000,
            payment.address,
            'ENERGY',
            treasury,
            false,
            undefined,
            {
              blockHeader,
            },
          ),
        ),
      },
    },
    {
      id: `sweep:${payment.address}:USDT`,
      description: 'USDT to the treasury',
      after: [`delegate:${payment.address}`],
      signers: [paymentSigner],
      tron: {
        // a one-minute expiration extended locally, as the planner does to a node-built transfer
        transaction: unsigned(
          await tronWeb.transactionBuilder.extendExpiration(
            (
              await tronWeb.transactionBuilder.triggerSmartContract(
                USDT_NILE,
                'transfer(address,uint256)',
                {
                  feeLimit: 20_000_000,
                  txLocal: true,
                  blockHeader: { ...blockHeader, expiration: now + 60_000 },
                } as never,
                [
                  { type: 'address', value: treasury },
                  { type: 'uint256', value: '25000000' },
                ],
                payment.address,
              )
            ).transaction,
            23 * 3600 - 60,
            { txLocal: true },
          ),
        ),
      },
    },
  ]
  return plan(
    'TRON_NILE',
    'TRON',
    treasurySigner,
    steps,
    [
      {
        paymentId: 'pay_tron',
        address: payment.address,
        currency: 'USDT',
        amount: '25',
        fee: '1.1',
        feeCurrency: 'TRX',
        stepId: steps[2]?.id ?? '',
      },
    ],
    new Date(blockHeader.expiration),
  )
}

/**
 * a TRON plan that pays a refund: the treasury activates the recipient (1 sun), then sends it 25 USDT
 * (a recipient of no mnemonic: any address a customer gives)
 */
export async function offlineTronOutgoingPlan(wallet: TestWallet, recipient: string): Promise<SweepPlan> {
  const treasuryNode = HDKey.fromMasterSeed(mnemonicToSeedSync(wallet.mnemonic)).derive(TREASURY_PATHS.TRON)
  const treasury = tronAddressFromPublicKey(treasuryNode.publicKey as Uint8Array)
  wallet.secrets.push(Buffer.from(treasuryNode.privateKey as Uint8Array).toString('hex'))
  const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' })
  const now = Date.now()
  const blockHeader = {
    ref_block_bytes: '1a2b',
    ref_block_hash: randomBytes(8).toString('hex'),
    expiration: now + 23 * 3600 * 1000,
    timestamp: now,
  }
  const treasurySigner = { role: 'treasury' as const, address: treasury, derivationPath: TREASURY_PATHS.TRON }
  const ref = { kind: 'refund' as const, id: 'r_offline' }
  const steps: PlanStep[] = [
    {
      id: 'activate:refund:r_offline',
      description: 'activation',
      after: [],
      outgoing: { ...ref, role: 'activate' },
      signers: [treasurySigner],
      tron: {
        transaction: (await tronWeb.transactionBuilder.sendTrx(recipient, 1, treasury, {
          blockHeader,
        })) as unknown as TronUnsignedTransaction,
      },
    },
    {
      id: 'pay:refund:r_offline',
      description: 'the refund',
      after: ['activate:refund:r_offline'],
      outgoing: { ...ref, role: 'pay' },
      signers: [treasurySigner],
      tron: {
        transaction: (
          await tronWeb.transactionBuilder.triggerSmartContract(
            USDT_NILE,
            'transfer(address,uint256)',
            { feeLimit: 20_000_000, txLocal: true, blockHeader } as never,
            [
              { type: 'address', value: recipient },
              { type: 'uint256', value: '25000000' },
            ],
            treasury,
          )
        ).transaction as unknown as TronUnsignedTransaction,
      },
    },
  ]
  return {
    ...plan('TRON_NILE', 'TRON', treasurySigner, steps, [], new Date(blockHeader.expiration)),
    version: OUTGOING_FORMAT_VERSION,
    planId: '6f1d2c3b-0a4e-4f5a-9b8c-7d6e5f4a3b2c',
    outgoing: [
      {
        ...ref,
        merchantId: 'mer_test',
        currency: 'USDT',
        amount: '25',
        address: recipient,
        stepId: 'pay:refund:r_offline',
        stepIds: ['activate:refund:r_offline', 'pay:refund:r_offline'],
        estimatedFee: '14.2',
        feeCurrency: 'TRX',
        costs: 'test',
      },
    ],
  }
}

/** a Solana plan: address 5 sends its USDC to the treasury's token account and closes its own */
export function offlineSolanaPlan(wallet: TestWallet, durable?: { nonceAccount: PublicKey }): SweepPlan {
  const seed = mnemonicToSeedSync(wallet.mnemonic)
  const payment = createSolanaAddressDeriver(seed)(5)
  const treasuryKey = Slip10Key.fromMasterSeed(seed).derive(TREASURY_PATHS.SOLANA)
  const treasury = Keypair.fromSeed(treasuryKey.privateKey).publicKey
  const paymentKey = Slip10Key.fromMasterSeed(seed).derive(payment.derivationPath)
  for (const key of [treasuryKey, paymentKey]) {
    const keypair = Keypair.fromSeed(key.privateKey)
    wallet.secrets.push(
      Buffer.from(key.privateKey).toString('hex'),
      base58.encode(keypair.secretKey),
      JSON.stringify([...keypair.secretKey]),
    )
  }
  wallet.secrets.push(Buffer.from(seed).toString('hex'))
  const owner = new PublicKey(payment.address)
  const mint = new PublicKey(USDC_DEVNET)
  const tokenAccount = getAssociatedTokenAddressSync(mint, owner)
  const message = new TransactionMessage({
    payerKey: treasury,
    recentBlockhash: base58.encode(randomBytes(32)),
    instructions: [
      ...(durable === undefined
        ? []
        : [SystemProgram.nonceAdvance({ noncePubkey: durable.nonceAccount, authorizedPubkey: treasury })]),
      createTransferCheckedInstruction(
        tokenAccount,
        mint,
        getAssociatedTokenAddressSync(mint, treasury),
        owner,
        12_500_000n,
        6,
      ),
      createCloseAccountInstruction(tokenAccount, treasury, owner),
    ],
  }).compileToLegacyMessage()
  const treasurySigner = {
    role: 'treasury' as const,
    address: treasury.toBase58(),
    derivationPath: TREASURY_PATHS.SOLANA,
  }
  const id = `sweep:${payment.address}:USDC`
  return plan(
    'SOLANA_DEVNET',
    'SOLANA',
    treasurySigner,
    [
      {
        id,
        description: 'USDC to the treasury, token account closed',
        after: [],
        signers: [
          treasurySigner,
          { role: 'payment', address: payment.address, derivationPath: payment.derivationPath },
        ],
        solana: {
          message: Buffer.from(message.serialize()).toString('base64'),
          blockhash: message.recentBlockhash,
          lastValidBlockHeight: 1000,
        },
      },
    ],
    [
      {
        paymentId: 'pay_sol',
        address: payment.address,
        currency: 'USDC',
        amount: '12.5',
        fee: '0.00001',
        feeCurrency: 'SOL',
        stepId: id,
      },
    ],
    new Date(Date.now() + 60_000),
  )
}

export const USDT_SOLANA_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

/**
 * a Solana plan sweeping one owner whole, as the planner writes it: USDC from its associated account
 * and from a second account, USDT into a treasury account the message creates, every account closed,
 * then its SOL. `tamper` rewrites the instructions, as a plan altered on the online machine would
 */
export function offlineSolanaOwnerPlan(
  wallet: TestWallet,
  tamper: (instructions: TransactionInstruction[], thief: PublicKey) => TransactionInstruction[] = (
    instructions,
  ) => instructions,
): SweepPlan {
  const plan = offlineSolanaPlan(wallet)
  const step = plan.steps[0]
  const payment = step?.signers[1]
  if (!step?.solana || !payment) throw new Error('not an offline Solana plan')
  const owner = new PublicKey(payment.address)
  const treasury = new PublicKey(plan.treasury.address)
  const usdc = new PublicKey(USDC_DEVNET)
  const usdt = new PublicKey(USDT_SOLANA_MINT)
  const second = Keypair.generate().publicKey
  const sweep = (account: PublicKey, mint: PublicKey, amount: bigint) => [
    createTransferCheckedInstruction(
      account,
      mint,
      getAssociatedTokenAddressSync(mint, treasury),
      owner,
      amount,
      6,
    ),
    createCloseAccountInstruction(account, treasury, owner),
  ]
  const instructions = [
    ...sweep(getAssociatedTokenAddressSync(usdc, owner), usdc, 10_000_000n),
    ...sweep(second, usdc, 2_500_000n),
    createAssociatedTokenAccountIdempotentInstruction(
      treasury,
      getAssociatedTokenAddressSync(usdt, treasury),
      treasury,
      usdt,
    ),
    ...sweep(getAssociatedTokenAddressSync(usdt, owner), usdt, 3_000_000n),
    SystemProgram.transfer({ fromPubkey: owner, toPubkey: treasury, lamports: 200_000_000n }),
  ]
  const message = new TransactionMessage({
    payerKey: treasury,
    recentBlockhash: step.solana.blockhash,
    instructions: tamper(instructions, Keypair.generate().publicKey),
  }).compileToLegacyMessage()
  step.solana.message = Buffer.from(message.serialize()).toString('base64')
  return plan
}

/** the same message with its token transfer sent to another owner's token account */
export function redirectedSolanaMessage(plan: SweepPlan, thief: PublicKey): string {
  const step = plan.steps[0]
  const payment = step?.signers[1]
  if (!step?.solana || !payment) throw new Error('not an offline Solana plan')
  const owner = new PublicKey(payment.address)
  const mint = new PublicKey(USDC_DEVNET)
  const message = new TransactionMessage({
    payerKey: new PublicKey(plan.treasury.address),
    recentBlockhash: step.solana.blockhash,
    instructions: [
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(mint, owner),
        mint,
        getAssociatedTokenAddressSync(mint, thief),
        owner,
        12_500_000n,
        6,
      ),
    ],
  }).compileToLegacyMessage()
  return Buffer.from(message.serialize()).toString('base64')
}

function plan(
  network: string,
  chain: 'TRON' | 'SOLANA',
  treasury: SweepPlan['treasury'],
  steps: PlanStep[],
  sweeps: SweepPlan['sweeps'],
  validUntil: Date,
): SweepPlan {
  return {
    format: PLAN_FORMAT,
    version: FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    network,
    chain,
    treasury,
    validUntil: validUntil.toISOString(),
    validity: 'test',
    steps,
    sweeps,
    skipped: [],
    totals: { moved: {}, treasuryNativeChange: '0', feeCurrency: chain === 'TRON' ? 'TRX' : 'SOL' },
  }
}

/** an unsigned TRX transfer from the plan's treasury to `to`, as a tampered plan would carry it */
export async function treasuryTransferTo(plan: SweepPlan, to: string): Promise<TronUnsignedTransaction> {
  const now = Date.now()
  const blockHeader = {
    ref_block_bytes: '1a2b',
    ref_block_hash: randomBytes(8).toString('hex'),
    expiration: now + 3_600_000,
    timestamp: now,
  }
  const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' })
  return (await tronWeb.transactionBuilder.sendTrx(to, 1_000_000_000, plan.treasury.address, {
    blockHeader,
  })) as unknown as TronUnsignedTransaction
}

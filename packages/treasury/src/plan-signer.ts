// `chainpay-wallet sign`: derives each key of a plan from the mnemonic, refuses any step whose
// signer address or whose effect is not what a sweep to the plan's treasury does, and signs with
// tronweb (secp256k1) and @solana/web3.js (ed25519). Runs after refuseNetwork(); writes nothing
// but signatures (docs/treasury.md, "The key ceremony").

import { tronAddressFromPublicKey } from '@chainpay/wallet'
import { bytesToHex } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeCloseAccountInstruction,
  decodeTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
  TokenInstruction,
} from '@solana/spl-token'
import {
  Keypair,
  PublicKey,
  SystemInstruction,
  SystemProgram,
  TransactionMessage,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { TronWeb, utils as tronUtils } from 'tronweb'
import { CommandError } from './command-error.js'
import { checkOutgoing } from './outgoing-signer.js'
import {
  type PlanSigner,
  type PlanStep,
  SIGNED_FORMAT,
  type SignedStep,
  type SignedSweep,
  type SweepPlan,
} from './sweep-plan.js'

/** a treasury key given apart from the mnemonic (--treasury-key-file) */
export type TreasuryKey =
  | { chain: 'TRON'; privateKeyHex: string }
  | { chain: 'SOLANA'; secretKey: Uint8Array }

interface SigningKey {
  address: string
  tron?: string
  solana?: Keypair
}

export function signPlan(input: {
  plan: SweepPlan
  planSha256: string
  mnemonic: string
  treasuryKey?: TreasuryKey
}): SignedSweep {
  const { plan } = input
  // the refunds and payouts first: each step that names one does exactly what it says (outgoing-signer.ts)
  checkOutgoing(plan)
  const words = input.mnemonic.trim().split(/\s+/).join(' ')
  if (!validateMnemonic(words, wordlist)) {
    throw new CommandError('the mnemonic is not a valid BIP39 English mnemonic (word, length or checksum)')
  }
  const seed = mnemonicToSeedSync(words)
  const keys = new Map<string, SigningKey>()
  const keyOf = (signer: PlanSigner): SigningKey => {
    const cacheKey = `${signer.role}:${signer.address}`
    let key = keys.get(cacheKey)
    if (key === undefined) {
      key = signingKey(plan.chain, seed, signer, signer.role === 'treasury' ? input.treasuryKey : undefined)
      keys.set(cacheKey, key)
    }
    return key
  }
  // the addresses the treasury may fund or delegate to: only those the mnemonic itself gives (every
  // payment signer is derived and checked here), never a list the plan could have been given
  const paymentAddresses = new Set(
    plan.steps.flatMap((step) =>
      step.signers.filter((signer) => signer.role === 'payment').map((signer) => keyOf(signer).address),
    ),
  )
  const steps = plan.steps.map((step): SignedStep => {
    const stepKeys = step.signers.map(keyOf)
    if (step.signers[0]?.role === 'treasury' && step.signers[0].address !== plan.treasury.address) {
      throw new CommandError(`step ${step.id}: its treasury signer is not the plan's treasury`)
    }
    // a refund's or payout's step is the treasury's alone, and was checked against its item above
    const paysOut = step.outgoing !== undefined
    if (paysOut && (step.signers.length !== 1 || step.signers[0]?.role !== 'treasury')) {
      throw new CommandError(`step ${step.id}: a refund or payout is signed by the treasury alone`)
    }
    const base = {
      id: step.id,
      description: step.description,
      after: step.after,
      ...(step.undoes === undefined ? {} : { undoes: step.undoes }),
      ...(step.estimate === undefined ? {} : { estimate: step.estimate }),
      ...(step.outgoing === undefined ? {} : { outgoing: step.outgoing }),
    }
    if (plan.chain === 'TRON')
      return { ...base, ...signTron(step, stepKeys, plan.treasury.address, paymentAddresses, paysOut) }
    return { ...base, ...signSolana(step, stepKeys, plan.treasury.address, paysOut) }
  })
  return {
    format: SIGNED_FORMAT,
    version: plan.version,
    planSha256: input.planSha256,
    network: plan.network,
    chain: plan.chain,
    treasury: plan.treasury.address,
    validUntil: plan.validUntil,
    steps,
    sweeps: plan.sweeps,
    ...(plan.outgoing === undefined ? {} : { planId: plan.planId, outgoing: plan.outgoing }),
  }
}

function signingKey(
  chain: 'TRON' | 'SOLANA',
  seed: Uint8Array,
  signer: PlanSigner,
  separate?: TreasuryKey,
): SigningKey {
  let key: SigningKey
  if (separate !== undefined) {
    key =
      separate.chain === 'TRON'
        ? {
            address: TronWeb.address.fromPrivateKey(separate.privateKeyHex) || '',
            tron: separate.privateKeyHex,
          }
        : fromSolanaKeypair(Keypair.fromSecretKey(separate.secretKey))
  } else if (signer.derivationPath === null) {
    throw new CommandError(
      `the plan gives no derivation path for ${signer.address}: pass --treasury-key-file`,
    )
  } else if (chain === 'TRON') {
    const node = HDKey.fromMasterSeed(seed).derive(signer.derivationPath)
    if (!node.privateKey || !node.publicKey) throw new CommandError(`no key at ${signer.derivationPath}`)
    key = { address: tronAddressFromPublicKey(node.publicKey), tron: bytesToHex(node.privateKey) }
  } else {
    const node = Slip10Key.fromMasterSeed(seed).derive(signer.derivationPath)
    key = fromSolanaKeypair(Keypair.fromSeed(node.privateKey))
  }
  if (key.address !== signer.address) {
    const where = separate === undefined ? `the key at ${signer.derivationPath}` : 'the treasury key file'
    throw new CommandError(
      `${where} gives ${key.address}, the plan says ${signer.address}: wrong mnemonic or key, or a plan not made for this wallet`,
    )
  }
  return key
}

function fromSolanaKeypair(keypair: Keypair): SigningKey {
  return { address: keypair.publicKey.toBase58(), solana: keypair }
}

//////// TRON

const TRC20_TRANSFER_SELECTOR = 'a9059cbb'

function signTron(
  step: PlanStep,
  keys: SigningKey[],
  treasury: string,
  paymentAddresses: Set<string>,
  paysOut: boolean,
): Pick<SignedStep, 'txId' | 'tron'> {
  const transaction = step.tron?.transaction
  const [key] = keys
  if (transaction === undefined || key?.tron === undefined || keys.length !== 1) {
    throw new CommandError(`step ${step.id}: not a single-signer TRON transaction`)
  }
  // raw_data must be what raw_data_hex encodes and txID its hash: what is checked below is what is signed
  if (!tronUtils.transaction.txCheck(structuredClone(transaction) as never)) {
    throw new CommandError(`step ${step.id}: raw_data, raw_data_hex and txID do not agree`)
  }
  const contracts = transaction.raw_data.contract
  const contract = contracts[0]
  if (contracts.length !== 1 || contract === undefined)
    throw new CommandError(`step ${step.id}: one contract expected`)
  const value = contract.parameter.value
  const hex = (address: string) => TronWeb.address.toHex(address).toLowerCase()
  const same = (field: unknown, address: string) =>
    typeof field === 'string' && field.toLowerCase() === hex(address)
  const toPayment = (field: unknown) => [...paymentAddresses].some((address) => same(field, address))
  if (!same(value.owner_address, key.address))
    throw new CommandError(`step ${step.id}: the owner is not its signer`)
  const fromTreasury = key.address === treasury
  const allowed = (() => {
    switch (contract.type) {
      case 'TransferContract':
        return fromTreasury ? toPayment(value.to_address) : same(value.to_address, treasury)
      case 'TriggerSmartContract': {
        const data = typeof value.data === 'string' ? value.data.toLowerCase() : ''
        const recipient = `41${data.slice(8 + 24, 8 + 64)}`
        return (
          !fromTreasury &&
          data.length === 8 + 128 &&
          data.startsWith(TRC20_TRANSFER_SELECTOR) &&
          !value.call_value &&
          recipient === hex(treasury)
        )
      }
      case 'DelegateResourceContract':
        // never locked: a lock would keep the treasury's stake away for its whole period
        return fromTreasury && toPayment(value.receiver_address) && !value.lock
      case 'UnDelegateResourceContract':
        return fromTreasury && toPayment(value.receiver_address)
      default:
        return false
    }
  })()
  if (!allowed && !paysOut) {
    throw new CommandError(
      `step ${step.id}: a ${contract.type} that a sweep to ${treasury} does not make; refused`,
    )
  }
  const signed = tronUtils.crypto.signTransaction(
    key.tron,
    structuredClone(transaction),
  ) as unknown as Record<string, unknown>
  return { txId: transaction.txID, tron: signed }
}

//////// Solana

function signSolana(
  step: PlanStep,
  keys: SigningKey[],
  treasury: string,
  paysOut: boolean,
): Pick<SignedStep, 'txId' | 'solana'> {
  const planned = step.solana
  if (planned === undefined) throw new CommandError(`step ${step.id}: no Solana message`)
  const message = VersionedMessage.deserialize(Buffer.from(planned.message, 'base64'))
  const treasuryKey = new PublicKey(treasury)
  if (!message.staticAccountKeys[0]?.equals(treasuryKey)) {
    throw new CommandError(`step ${step.id}: the fee payer is not the treasury`)
  }
  for (const instruction of paysOut ? [] : TransactionMessage.decompile(message).instructions) {
    if (!solanaInstructionAllowed(instruction, treasuryKey)) {
      throw new CommandError(
        `step ${step.id}: an instruction that a sweep to ${treasury} does not make; refused`,
      )
    }
  }
  const transaction = new VersionedTransaction(message)
  const signers = keys.map((key) => {
    if (key.solana === undefined) throw new CommandError(`step ${step.id}: not a Solana key`)
    return key.solana
  })
  const required = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures)
  if (
    required.length !== signers.length ||
    !required.every((account, i) => account.equals(signers[i]?.publicKey ?? PublicKey.default))
  ) {
    throw new CommandError(`step ${step.id}: the message's signers are not the plan's`)
  }
  transaction.sign(signers)
  const signature = transaction.signatures[0]
  if (signature === undefined) throw new CommandError(`step ${step.id}: not signed`)
  return {
    txId: base58.encode(signature),
    solana: {
      transaction: Buffer.from(transaction.serialize()).toString('base64'),
      blockhash: planned.blockhash,
      lastValidBlockHeight: planned.lastValidBlockHeight,
      ...(planned.nonceAccount === undefined ? {} : { nonceAccount: planned.nonceAccount }),
    },
  }
}

function solanaInstructionAllowed(
  instruction: ReturnType<typeof TransactionMessage.decompile>['instructions'][number],
  treasury: PublicKey,
): boolean {
  const { programId } = instruction
  if (programId.equals(SystemProgram.programId)) {
    const type = SystemInstruction.decodeInstructionType(instruction)
    if (type === 'Transfer') return SystemInstruction.decodeTransfer(instruction).toPubkey.equals(treasury)
    if (type === 'AdvanceNonceAccount') {
      return SystemInstruction.decodeNonceAdvance(instruction).authorizedPubkey.equals(treasury)
    }
    return false
  }
  if (programId.equals(TOKEN_PROGRAM_ID)) {
    const type = instruction.data[0]
    if (type === TokenInstruction.TransferChecked) {
      const { keys } = decodeTransferCheckedInstruction(instruction)
      return keys.destination.pubkey.equals(getAssociatedTokenAddressSync(keys.mint.pubkey, treasury))
    }
    if (type === TokenInstruction.CloseAccount) {
      return decodeCloseAccountInstruction(instruction).keys.destination.pubkey.equals(treasury)
    }
    return false
  }
  if (programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) {
    // CreateIdempotent (data [1]): payer, account, owner, mint, system, token
    const [payer, , owner] = instruction.keys
    return (
      instruction.data[0] === 1 &&
      payer?.pubkey.equals(treasury) === true &&
      owner?.pubkey.equals(treasury) === true
    )
  }
  return false
}

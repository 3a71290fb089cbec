// What `sign` checks of a plan's refunds and payouts, offline, before it reads a key: every step that
// names an item does exactly what the item says and nothing else (the treasury pays exactly its
// amount of its currency to its address; on TRON, 1 sun that activates that address; on Solana, that
// address's associated token account created with the treasury's rent), every item has its payment
// step, and the lines `sign` prints come from the decoded transactions, not from the plan's words
// (docs/treasury.md, "Refunds and payouts in a plan").

import { formatUnits, toUnits } from '@chainpay/domain'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
  TokenInstruction,
} from '@solana/spl-token'
import {
  PublicKey,
  SystemInstruction,
  SystemProgram,
  TransactionMessage,
  VersionedMessage,
} from '@solana/web3.js'
import { TronWeb, utils as tronUtils } from 'tronweb'
import { CommandError } from './command-error.js'
import { outgoingKey, type PlannedOutgoing } from './outgoing-plan.js'
import { networkAssets } from './plan-input.js'
import type { PlanStep, SweepPlan } from './sweep-plan.js'

const NATIVE = { TRON: { currency: 'TRX', decimals: 6 }, SOLANA: { currency: 'SOL', decimals: 9 } } as const
const TRC20_TRANSFER_SELECTOR = 'a9059cbb'

/** what a step moves out of the treasury, decoded from its transaction */
interface Movement {
  role: 'activate' | 'pay'
  currency: string
  amountUnits: bigint
  to: string
}

/**
 * Checks every refund and payout of the plan against its transactions and says what they pay, one
 * line per item; throws when a step does anything else than what its item says.
 */
export function checkOutgoing(plan: SweepPlan): string[] {
  const items = plan.outgoing ?? []
  const byKey = new Map(items.map((item) => [outgoingKey(item), item]))
  if (byKey.size !== items.length) throw new CommandError('the plan names a refund or payout twice')
  if (items.length > 0 && plan.planId === undefined)
    throw new CommandError('the plan pays refunds or payouts but has no planId')
  for (const step of plan.steps) {
    if (step.outgoing === undefined) continue
    const item = byKey.get(outgoingKey(step.outgoing))
    if (item === undefined || !item.stepIds.includes(step.id)) {
      throw new CommandError(
        `step ${step.id}: it names ${outgoingKey(step.outgoing)}, which the plan does not pay with it`,
      )
    }
  }
  return items.map((item) => {
    const steps = item.stepIds.map((id) => plan.steps.find((step) => step.id === id))
    const pay = plan.steps.find((step) => step.id === item.stepId)
    // each of its steps names it, and no other item: one transaction never pays two
    if (
      pay === undefined ||
      pay.outgoing?.role !== 'pay' ||
      steps.some(
        (step) => step?.outgoing === undefined || outgoingKey(step.outgoing) !== outgoingKey(item),
      ) ||
      !item.stepIds.includes(item.stepId)
    )
      throw new CommandError(`${item.kind} ${item.id}: its steps are not in the plan, or are another item's`)
    for (const step of steps as PlanStep[]) checkOutgoingStep(plan, step, item)
    const decimals = decimalsOf(plan, item.currency)
    return `  pays ${item.kind} ${item.id} (merchant ${item.merchantId}): ${formatUnits(toUnits(item.amount, decimals), decimals)} ${item.currency} to ${item.address}`
  })
}

/** throws unless the step moves exactly what its item says, from the treasury to the item's address */
export function checkOutgoingStep(plan: SweepPlan, step: PlanStep, item: PlannedOutgoing): void {
  const role = step.outgoing?.role
  const movement = plan.chain === 'TRON' ? tronMovement(plan, step) : solanaMovement(plan, step, item)
  const decimals = decimalsOf(plan, item.currency)
  const native = NATIVE[plan.chain]
  const expected: Movement =
    role === 'activate'
      ? { role, currency: native.currency, amountUnits: 1n, to: item.address }
      : {
          role: 'pay',
          currency: item.currency,
          amountUnits: toUnits(item.amount, decimals),
          to: item.address,
        }
  if (
    role !== movement.role ||
    movement.currency !== expected.currency ||
    movement.amountUnits !== expected.amountUnits ||
    movement.to !== expected.to
  ) {
    const what = (m: Movement) =>
      `${m.role} ${formatUnits(m.amountUnits, decimalsOf(plan, m.currency))} ${m.currency} to ${m.to}`
    throw new CommandError(
      `step ${step.id}: its transaction does ${what(movement)}, and ${item.kind} ${item.id} says ${what(expected)}; refused`,
    )
  }
}

function decimalsOf(plan: SweepPlan, currency: string): number {
  const native = NATIVE[plan.chain]
  return currency === native.currency ? native.decimals : networkAssets(plan.network).decimals(currency)
}

function tronMovement(plan: SweepPlan, step: PlanStep): Movement {
  const transaction = step.tron?.transaction
  if (transaction === undefined) throw new CommandError(`step ${step.id}: not a TRON transaction`)
  if (!tronUtils.transaction.txCheck(structuredClone(transaction) as never))
    throw new CommandError(`step ${step.id}: raw_data, raw_data_hex and txID do not agree`)
  const [contract, ...others] = transaction.raw_data.contract
  if (contract === undefined || others.length > 0)
    throw new CommandError(`step ${step.id}: one contract expected`)
  const value = contract.parameter.value
  const treasury = TronWeb.address.toHex(plan.treasury.address).toLowerCase()
  if (String(value.owner_address).toLowerCase() !== treasury)
    throw new CommandError(`step ${step.id}: it is not the treasury's`)
  if (contract.type === 'TransferContract') {
    return {
      role: BigInt(String(value.amount)) === 1n && step.outgoing?.role === 'activate' ? 'activate' : 'pay',
      currency: 'TRX',
      amountUnits: BigInt(String(value.amount)),
      to: TronWeb.address.fromHex(String(value.to_address)),
    }
  }
  if (contract.type === 'TriggerSmartContract') {
    const data = typeof value.data === 'string' ? value.data.toLowerCase() : ''
    const token = networkAssets(plan.network).tokens.find(
      (candidate) =>
        TronWeb.address.toHex(candidate.contract).toLowerCase() ===
        String(value.contract_address).toLowerCase(),
    )
    if (
      token === undefined ||
      data.length !== 8 + 128 ||
      !data.startsWith(TRC20_TRANSFER_SELECTOR) ||
      value.call_value
    )
      throw new CommandError(`step ${step.id}: not a transfer of a token of the registry; refused`)
    return {
      role: 'pay',
      currency: token.currency,
      amountUnits: BigInt(`0x${data.slice(8 + 64)}`),
      to: TronWeb.address.fromHex(`41${data.slice(8 + 24, 8 + 64)}`),
    }
  }
  throw new CommandError(`step ${step.id}: a ${contract.type} pays no refund or payout; refused`)
}

function solanaMovement(plan: SweepPlan, step: PlanStep, item: PlannedOutgoing): Movement {
  if (step.solana === undefined) throw new CommandError(`step ${step.id}: no Solana message`)
  const message = VersionedMessage.deserialize(Buffer.from(step.solana.message, 'base64'))
  const treasury = new PublicKey(plan.treasury.address)
  if (!message.staticAccountKeys[0]?.equals(treasury) || message.header.numRequiredSignatures !== 1)
    throw new CommandError(`step ${step.id}: the treasury must be its fee payer and only signer`)
  const recipient = new PublicKey(item.address)
  const movements: Movement[] = []
  const refuse = () =>
    new CommandError(`step ${step.id}: an instruction that ${item.kind} ${item.id} does not make; refused`)
  for (const instruction of TransactionMessage.decompile(message).instructions) {
    const { programId } = instruction
    if (programId.equals(SystemProgram.programId)) {
      if (SystemInstruction.decodeInstructionType(instruction) !== 'Transfer') throw refuse()
      const transfer = SystemInstruction.decodeTransfer(instruction)
      if (!transfer.fromPubkey.equals(treasury)) throw refuse()
      movements.push({
        role: 'pay',
        currency: 'SOL',
        amountUnits: transfer.lamports,
        to: transfer.toPubkey.toBase58(),
      })
      continue
    }
    if (programId.equals(TOKEN_PROGRAM_ID)) {
      if (instruction.data[0] !== TokenInstruction.TransferChecked) throw refuse()
      const { keys, data } = decodeTransferCheckedInstruction(instruction)
      const token = networkAssets(plan.network).tokens.find(
        (candidate) => candidate.contract === keys.mint.pubkey.toBase58(),
      )
      if (
        token === undefined ||
        data.decimals !== token.decimals ||
        !keys.owner.pubkey.equals(treasury) ||
        !keys.source.pubkey.equals(getAssociatedTokenAddressSync(keys.mint.pubkey, treasury))
      )
        throw refuse()
      // to the recipient's associated account of the mint: the address it names is its owner's
      const to = keys.destination.pubkey.equals(
        getAssociatedTokenAddressSync(keys.mint.pubkey, recipient, true),
      )
        ? recipient.toBase58()
        : keys.destination.pubkey.toBase58()
      movements.push({ role: 'pay', currency: token.currency, amountUnits: data.amount, to })
      continue
    }
    if (programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) {
      // CreateIdempotent (data [1]): payer, account, owner, mint: the recipient's, paid by the treasury
      const [payer, account, owner, mint] = instruction.keys
      if (
        instruction.data[0] !== 1 ||
        payer?.pubkey.equals(treasury) !== true ||
        owner?.pubkey.equals(recipient) !== true ||
        mint === undefined ||
        account?.pubkey.equals(getAssociatedTokenAddressSync(mint.pubkey, recipient, true)) !== true
      )
        throw refuse()
      continue
    }
    throw refuse()
  }
  const [movement, ...more] = movements
  if (movement === undefined || more.length > 0)
    throw new CommandError(`step ${step.id}: one payment expected`)
  return movement
}

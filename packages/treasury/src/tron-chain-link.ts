// broadcast's TRON side, through tronweb: a step's receipt on the full node (in a block) and on the
// solidity node (final), and the chain read again before a step is sent. A TRC20 transfer is
// checked against what it will have when sent: the address's energy and TRX now, plus what the
// steps before it (top-up, delegation) will give it, against the node's energy estimate now, so
// that no TRX is burned on a transfer that would run out of energy (docs/treasury.md, "Broadcast").

import { formatUnits } from '@chainpay/domain'
import { TronWeb } from 'tronweb'
import type { BroadcastOptions, BroadcastRun, ChainLink, StepStatus } from './chain-link.js'
import { NodeRefusal } from './chain-link.js'
import type { SignedStep } from './sweep-plan.js'
import {
  HEADROOM_PERCENT,
  type TronAccountResources,
  tronAvailableBandwidth,
  tronBandwidthBurn,
  tronBandwidthBytes,
} from './sweep-rules.js'

const TRX_DECIMALS = 6
const SUN_PER_TRX = 1_000_000n
/** delegated energy must be taken back before the plan expires: no delegation this close to it */
const UNDELEGATE_MARGIN_MS = 10 * 60 * 1000

interface TronInfo {
  blockNumber?: number
  fee?: number
  receipt?: { result?: string }
  result?: string
  resMessage?: string
}

/** a signed step's one contract, as tronweb and java-tron write it */
interface Contract {
  type: string
  value: Record<string, unknown>
  rawBytes: number
  feeLimit: bigint
  expiration: number
}

export function tronChainLink(options: BroadcastOptions): ChainLink {
  const tronWeb = new TronWeb({
    fullNode: options.rpcUrl,
    solidityNode: options.solidityUrl ?? options.rpcUrl,
    ...(options.apiKey === undefined ? {} : { headers: { 'TRON-PRO-API-KEY': options.apiKey } }),
  })
  /** the sweeps a run checked before their first step: checked again only right before they are sent */
  const checked = new Set<string>()

  const receipt = (info: TronInfo): StepStatus => {
    const failed =
      info.result === 'FAILED' || (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS')
    if (!failed) return { state: 'included', feeUnits: BigInt(info.fee ?? 0) }
    const message = info.resMessage ? ` (${Buffer.from(info.resMessage, 'hex').toString('utf8')})` : ''
    return { state: 'failed', reason: `${info.receipt?.result ?? 'FAILED'}${message}` }
  }

  /** the prices and free bandwidth the node charges with now */
  async function chainParameters() {
    const parameters = new Map(
      (await tronWeb.trx.getChainParameters()).map(({ key, value }) => [key, BigInt(value ?? 0)]),
    )
    return {
      energySunPerUnit: parameters.get('getEnergyFee') ?? 100n,
      bandwidthSunPerByte: parameters.get('getTransactionFee') ?? 1000n,
      freeBandwidth: parameters.get('getFreeNetLimit') ?? 600n,
    }
  }

  /**
   * Whether a TRC20 transfer will have the energy it needs when sent: its energy now (staked or
   * delegated to it), what the steps before it that have not landed will give it, and what its TRX
   * buys up to its fee limit, against the node's estimate of that very call now
   */
  async function checkTransfer(
    sweep: SignedStep,
    run: BroadcastRun,
    self: boolean,
  ): Promise<string | undefined> {
    const transfer = contractOf(sweep)
    const owner = base58(transfer.value.owner_address)
    const data = String(transfer.value.data ?? '')
    const token = base58(transfer.value.contract_address)
    const recipient = base58(`41${data.slice(8 + 24, 8 + 64)}`)
    const amount = BigInt(`0x${data.slice(8 + 64)}`)
    const before = prerequisites(sweep, run).filter((step) => !run.state.confirmed[step.id])
    let topUp = 0n
    let stake = 0n
    for (const step of before) {
      const { type, value } = contractOf(step)
      if (type === 'TransferContract') topUp += BigInt(String(value.amount ?? 0))
      if (type === 'DelegateResourceContract') stake += BigInt(String(value.balance ?? 0))
    }
    const subject = self ? 'it' : sweep.id
    const outcome = consequence(sweep, run, owner)
    const account = await tronWeb.trx.getAccount(owner)
    const exists = typeof account.address === 'string'
    if (!exists && topUp === 0n)
      return `${owner} does not exist on chain and no step left activates it. ${outcome}`
    const held = BigInt(
      `0x${(await call(token, 'balanceOf(address)', [{ type: 'address', value: owner }], owner)).constant_result?.[0] || '0'}`,
    )
    if (held < amount) {
      return `${subject} moves ${amount} units of ${token}, and ${owner} holds ${held} now. ${outcome}`
    }
    const estimate = await call(
      token,
      'transfer(address,uint256)',
      [
        { type: 'address', value: recipient },
        { type: 'uint256', value: amount.toString() },
      ],
      owner,
    )
    const needed = BigInt(estimate.energy_used ?? 0)
    const prices = await chainParameters()
    const price = prices.energySunPerUnit
    const resources = exists
      ? ((await tronWeb.trx.getAccountResources(owner)) as TronAccountResources)
      : undefined
    const network = (await tronWeb.trx.getAccountResources(run.signed.treasury)) as TronAccountResources
    const delegated =
      (stake * BigInt(network.TotalEnergyLimit ?? 0)) / (BigInt(network.TotalEnergyWeight || 1) * SUN_PER_TRX)
    const own = BigInt((resources?.EnergyLimit ?? 0) - (resources?.EnergyUsed ?? 0))
    const trx = BigInt(account.balance ?? 0) + topUp
    const bandwidthBurn = tronBandwidthBurn(
      tronBandwidthBytes(transfer.rawBytes),
      tronAvailableBandwidth(resources, prices.freeBandwidth),
      prices,
    )
    if (trx < bandwidthBurn) {
      return `${subject} burns ${formatUnits(bandwidthBurn, TRX_DECIMALS)} TRX of bandwidth, and ${owner} will hold ${formatUnits(trx, TRX_DECIMALS)}. ${outcome}`
    }
    const spendable = trx - bandwidthBurn
    const burnable = (spendable < transfer.feeLimit ? spendable : transfer.feeLimit) / price
    const given = (own > 0n ? own : 0n) + delegated + burnable
    if (given >= needed) return undefined
    const planned = BigInt(sweep.estimate?.energy ?? 0)
    const plannedPrice = BigInt(sweep.estimate?.energyPriceSun ?? price)
    const cause =
      needed > planned
        ? "The transfer's energy rose: the recipient no longer holds the token, or the contract's dynamic energy factor went up."
        : price > plannedPrice
          ? `The energy price rose from ${plannedPrice} to ${price} sun.`
          : 'The energy it can get fell: less energy per staked TRX (TotalEnergyWeight rose), or the address used energy since.'
    const when =
      sweep.estimate?.energy === undefined
        ? ''
        : ` (the node estimated ${planned.toLocaleString('en-US')} when planning, plus ${HEADROOM_PERCENT}%)`
    return `${subject} needs ${needed.toLocaleString('en-US')} energy now; the plan gives it ${given.toLocaleString('en-US')}${when}. ${cause} ${outcome}`
  }

  async function call(
    contract: string,
    selector: string,
    parameters: Array<{ type: string; value: string }>,
    from: string,
  ) {
    return tronWeb.transactionBuilder.triggerConstantContract(contract, selector, {}, parameters, from)
  }

  /** a TRX transfer from a payment address: it must hold what it sends, and the bandwidth if burned */
  async function checkTrxTransfer(step: SignedStep): Promise<string | undefined> {
    const { value, rawBytes } = contractOf(step)
    const owner = base58(value.owner_address)
    const amount = BigInt(String(value.amount ?? 0))
    const account = await tronWeb.trx.getAccount(owner)
    const resources = (await tronWeb.trx.getAccountResources(owner)) as TronAccountResources
    const prices = await chainParameters()
    const burn = tronBandwidthBurn(
      tronBandwidthBytes(rawBytes),
      tronAvailableBandwidth(resources, prices.freeBandwidth),
      prices,
    )
    const held = BigInt(account.balance ?? 0)
    if (held >= amount + burn) return undefined
    return `it sends ${formatUnits(amount, TRX_DECIMALS)} TRX${burn > 0n ? ` and burns ${formatUnits(burn, TRX_DECIMALS)} TRX of bandwidth` : ''}, and ${owner} holds ${formatUnits(held, TRX_DECIMALS)} now. Plan again, sign and broadcast the new plan.`
  }

  /**
   * a refund's or payout's TRX from the treasury (or its 1 sun of activation): the treasury must hold
   * it, and what creating the recipient's account burns, or the node refuses it
   */
  async function checkTreasuryPayment(step: SignedStep): Promise<string | undefined> {
    const { value } = contractOf(step)
    const owner = base58(value.owner_address)
    const to = base58(value.to_address)
    const amount = BigInt(String(value.amount ?? 0))
    const creates = typeof (await tronWeb.trx.getAccount(to)).address !== 'string'
    const parameters = new Map(
      (await tronWeb.trx.getChainParameters()).map(({ key, value }) => [key, BigInt(value ?? 0)]),
    )
    const creation = creates
      ? (parameters.get('getCreateNewAccountFeeInSystemContract') ?? 1_000_000n) +
        (parameters.get('getCreateAccountFee') ?? 100_000n)
      : 0n
    const held = BigInt((await tronWeb.trx.getAccount(owner)).balance ?? 0)
    if (held >= amount + creation) return undefined
    return `the treasury holds ${formatUnits(held, TRX_DECIMALS)} TRX, and it sends ${formatUnits(amount, TRX_DECIMALS)}${creates ? ` and burns ${formatUnits(creation, TRX_DECIMALS)} creating ${to}` : ''}: send it TRX, then run broadcast again (before the plan expires).`
  }

  return {
    async status(step) {
      const info = (await tronWeb.trx.getUnconfirmedTransactionInfo(step.txId)) as TronInfo
      if (info.blockNumber !== undefined) return receipt(info)
      return Date.now() > contractOf(step).expiration ? { state: 'expired' } : { state: 'unknown' }
    },

    async send(step) {
      const answer = (await tronWeb.trx.sendRawTransaction(step.tron as never)) as {
        result?: boolean
        code?: string
        message?: string
      }
      // DUP_TRANSACTION_ERROR: the node already has it, from an earlier run
      if (answer.result !== true && answer.code !== 'DUP_TRANSACTION_ERROR') {
        const message = answer.message ? Buffer.from(answer.message, 'hex').toString('utf8') : ''
        throw new NodeRefusal(`the node refused ${step.id}: ${answer.code ?? 'error'} ${message}`.trim())
      }
    },

    async recheck(step, run) {
      const { type, value, expiration } = contractOf(step)
      if (type === 'TriggerSmartContract') {
        checked.add(step.id)
        return checkTransfer(step, run, true)
      }
      if (type === 'TransferContract' && base58(value.owner_address) !== run.signed.treasury)
        return checkTrxTransfer(step)
      if (type === 'TransferContract' && step.outgoing !== undefined) return checkTreasuryPayment(step)
      if (type === 'DelegateResourceContract' && expiration - Date.now() < UNDELEGATE_MARGIN_MS) {
        return `the plan expires at ${new Date(expiration).toISOString()}: too close to lend energy that must be taken back before then. Nothing more is sent. Plan again, sign and broadcast the new plan.`
      }
      // the treasury's top-up or delegation: only if the transfer it is for will go through
      for (const sweep of run.signed.steps) {
        if (checked.has(sweep.id) || run.state.confirmed[sweep.id]) continue
        if (contractOf(sweep).type !== 'TriggerSmartContract') continue
        if (!prerequisites(sweep, run).some((before) => before.id === step.id)) continue
        checked.add(sweep.id)
        const changed = await checkTransfer(sweep, run, false)
        if (changed !== undefined) return changed
      }
      return undefined
    },

    async finality(step) {
      const info = (await tronWeb.trx.getTransactionInfo(step.txId)) as TronInfo
      if (info.blockNumber === undefined) return 'pending'
      return receipt(info).state === 'included' ? 'final' : 'failed'
    },

    async treasuryOutflow(step) {
      const info = (await tronWeb.trx.getTransactionInfo(step.txId)) as TronInfo
      const { type, value } = contractOf(step)
      const sent = type === 'TransferContract' ? BigInt(String(value.amount ?? 0)) : 0n
      return BigInt(info.fee ?? 0) + sent
    },

    async spent(run) {
      const lines: string[] = []
      if (run.landed.size > 0) {
        const fees = [...run.landed.values()].reduce((sum, fee) => sum + fee, 0n)
        lines.push(
          `  fees burned on chain in this run: ${formatUnits(fees, TRX_DECIMALS)} TRX over ${run.landed.size} transactions`,
        )
      }
      // burn mode: what the addresses were given for energy and did not burn is still theirs
      let left = 0n
      let addresses = 0
      for (const sweep of run.signed.steps) {
        if (!run.landed.has(sweep.id) || contractOf(sweep).type !== 'TriggerSmartContract') continue
        // a refund's or payout's transfer is the treasury's: nothing set aside at an address
        if (sweep.outgoing !== undefined) continue
        if (prerequisites(sweep, run).some((step) => contractOf(step).type === 'DelegateResourceContract'))
          continue
        const owner = base58(contractOf(sweep).value.owner_address)
        const held = BigInt((await tronWeb.trx.getAccount(owner)).balance ?? 0)
        const reserved = contractOf(sweep).feeLimit
        const kept = held < reserved ? held : reserved
        if (kept > 0n) {
          left += kept
          addresses += 1
        }
      }
      if (addresses > 0) {
        lines.push(
          `  ${formatUnits(left, TRX_DECIMALS)} TRX set aside for energy was not burned: it stays at ${addresses} payment address${addresses === 1 ? '' : 'es'}`,
        )
      }
      return lines
    },
  }
}

/** what became of an address's steps when its transfer will not be sent */
function consequence(sweep: SignedStep, run: BroadcastRun, owner: string): string {
  const landed = prerequisites(sweep, run).filter((step) => run.state.confirmed[step.id])
  const parts: string[] = []
  if (landed.length === 0) parts.push(`Nothing was sent for ${owner}.`)
  if (landed.some((step) => contractOf(step).type === 'TransferContract'))
    parts.push(`The TRX sent to ${owner} stays there: the next plan counts it.`)
  if (landed.some((step) => contractOf(step).type === 'DelegateResourceContract'))
    parts.push(`The energy delegated to ${owner} is taken back.`)
  return `${parts.join(' ')} Plan again, sign and broadcast the new plan.`
}

/** the steps a step waits for, and theirs, in the plan's order */
function prerequisites(step: SignedStep, run: BroadcastRun): SignedStep[] {
  const wanted = new Set<string>()
  const visit = (id: string) => {
    for (const before of run.signed.steps.find((candidate) => candidate.id === id)?.after ?? []) {
      if (wanted.has(before)) continue
      wanted.add(before)
      visit(before)
    }
  }
  visit(step.id)
  return run.signed.steps.filter((candidate) => wanted.has(candidate.id))
}

function contractOf(step: SignedStep): Contract {
  const transaction = step.tron as
    | {
        raw_data?: {
          contract?: Array<{ type: string; parameter: { value: Record<string, unknown> } }>
          fee_limit?: number
          expiration?: number
        }
        raw_data_hex?: string
      }
    | undefined
  const contract = transaction?.raw_data?.contract?.[0]
  return {
    type: contract?.type ?? '',
    value: contract?.parameter.value ?? {},
    rawBytes: (transaction?.raw_data_hex?.length ?? 0) / 2,
    feeLimit: BigInt(transaction?.raw_data?.fee_limit ?? 0),
    expiration: transaction?.raw_data?.expiration ?? 0,
  }
}

function base58(hex: unknown): string {
  return TronWeb.address.fromHex(String(hex))
}

// A signed TRON transaction run as java-tron runs it (Manager.processTransaction): TaPoS,
// expiration and duplicate checks, bandwidth (free, else burned), the contract's validation, then
// energy for a TRC20 transfer (staked or delegated first, else burned up to fee_limit). The model
// and its numbers: docs/chains.md, "The simulator as a node for sweeping", TRON.
import { TronWeb } from 'tronweb'
import { type DecodedTronTransaction, TronRefusal } from './tron-transaction.js'

/** java-tron's chain parameters the simulated node runs with (mainnet's values) */
export const TRON_CHAIN_PARAMETERS = {
  getTransactionFee: 1000n,
  getEnergyFee: 100n,
  getCreateAccountFee: 100_000n,
  getCreateNewAccountFeeInSystemContract: 1_000_000n,
  getFreeNetLimit: 600n,
  getTotalEnergyLimit: 180_000_000_000n,
  getMaintenanceTimeInterval: 21_600_000n,
  getAllowDelegateResource: 1n,
  getUnfreezeDelayDays: 14n,
} as const
/** TRX staked for energy network-wide: a mainnet value, fixed here (10 energy per staked TRX a day) */
export const TRON_TOTAL_ENERGY_WEIGHT = 18_000_000_000n
/** energy of USDT's transfer on mainnet: to an address holding the token, and to one holding none */
export const TRC20_TRANSFER_ENERGY = { holder: 64_285n, newHolder: 130_285n }
/** bytes java-tron adds per contract for the result it stores (MAX_RESULT_SIZE_IN_TX) */
const RESULT_BYTES = 64
const DAY_MS = 24 * 60 * 60 * 1000
const MAX_EXPIRATION_MS = DAY_MS
const TRX = 1_000_000n
const TRANSFER_SELECTOR = 'a9059cbb'

/** the ledger as the simulated node reads it when a transaction arrives */
export interface TronLedgerView {
  head: { height: number; timeMs: number }
  /** the hash of the block at a height; undefined beyond the head */
  blockHash(height: number): string | undefined
  processed(txId: string): boolean
  exists(address: string): boolean
  balance(address: string): bigint
  /** free bandwidth used and staked energy used in the last 24 h */
  usage(address: string): { freeBytes: number; stakedEnergy: number }
  /** TRX staked for energy by the address itself, delegated out, delegated to it */
  stake(address: string): { frozen: bigint; delegatedOut: bigint; delegatedIn: bigint }
  delegated(owner: string, receiver: string): bigint
  /** the decimals of a TRC20 contract the chain knows; undefined for any other contract */
  tokenDecimals(contract: string): number | undefined
  tokenBalance(contract: string, address: string): bigint
}

export interface TronExecution {
  owner: string
  /** the movement it makes (base58 addresses); absent for stakes and delegations */
  transfer?: { to: string; contract: string | null; amountUnits: bigint; decimals: number }
  /** REVERT or OUT_OF_ENERGY: included and charged, nothing moved */
  failure: string | null
  fee: bigint
  freeBytes: number
  stakedEnergy: number
  frozenUnits: bigint
  delegation?: { receiver: string; units: bigint }
  /** TransactionInfo without its block fields, as gettransactioninfobyid prints it */
  info: Record<string, unknown>
}

export const base58Of = (hex: string): string => TronWeb.address.fromHex(hex)

/** energy a stake of `sun` gives a day */
export function energyOfStake(sun: bigint): bigint {
  return (sun * TRON_CHAIN_PARAMETERS.getTotalEnergyLimit) / (TRON_TOTAL_ENERGY_WEIGHT * TRX)
}

export function executeTronTransaction(tx: DecodedTronTransaction, ledger: TronLedgerView): TronExecution {
  checkCommon(tx, ledger)
  const owner = base58Of(String(tx.value.owner_address))
  if (!ledger.exists(owner)) {
    throw new TronRefusal('CONTRACT_VALIDATE_ERROR', `account [${owner}] does not exist`)
  }
  const balance = ledger.balance(owner)
  const bytes = tx.serializedBytes + RESULT_BYTES
  const prices = TRON_CHAIN_PARAMETERS
  const info: Record<string, unknown> = { id: tx.txID }
  const receipt: Record<string, unknown> = {}

  // bandwidth: creating an account burns 0.1 TRX (free bandwidth cannot pay it); else free, else burn
  const to = tx.type === 'TransferContract' ? base58Of(String(tx.value.to_address)) : undefined
  const creates = to !== undefined && !ledger.exists(to)
  let fee = 0n
  let freeBytes = 0
  if (creates) {
    if (balance < prices.getCreateAccountFee) throw bandwidthError()
    fee += prices.getCreateAccountFee
  } else if (BigInt(ledger.usage(owner).freeBytes + bytes) <= prices.getFreeNetLimit) {
    freeBytes = bytes
    receipt.net_usage = bytes
  } else {
    const burn = BigInt(bytes) * prices.getTransactionFee
    if (balance < burn) throw bandwidthError()
    fee += burn
    receipt.net_fee = Number(burn)
  }
  const spendable = balance - fee
  const base = { owner, freeBytes, stakedEnergy: 0, frozenUnits: 0n, failure: null }

  switch (tx.type) {
    case 'TransferContract': {
      const amount = BigInt(String(tx.value.amount))
      const accountFee = creates ? prices.getCreateNewAccountFeeInSystemContract : 0n
      if (amount <= 0n) throw validateError('TransferContract', 'Amount must be greater than 0.')
      if (to === owner) throw validateError('TransferContract', 'Cannot transfer TRX to yourself.')
      if (spendable < amount + accountFee) {
        throw validateError('TransferContract', 'balance is not sufficient.')
      }
      fee += accountFee
      return {
        ...base,
        transfer: { to: to as string, contract: null, amountUnits: amount, decimals: 6 },
        fee,
        info: withFee(info, fee, receipt),
      }
    }
    case 'FreezeBalanceV2Contract': {
      const frozen = BigInt(String(tx.value.frozen_balance ?? 0))
      if (String(tx.value.resource).toUpperCase() !== 'ENERGY') {
        throw validateError('FreezeBalanceV2Contract', 'the simulated node stakes for ENERGY only')
      }
      if (frozen < TRX) {
        throw validateError('FreezeBalanceV2Contract', 'frozenBalance must be greater than or equal to 1 TRX')
      }
      if (frozen > spendable) {
        throw validateError(
          'FreezeBalanceV2Contract',
          'frozenBalance must be less than or equal to accountBalance',
        )
      }
      return { ...base, frozenUnits: frozen, fee, info: withFee(info, fee, receipt) }
    }
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract': {
      const name = tx.type
      const units = BigInt(String(tx.value.balance ?? 0))
      const receiver = base58Of(String(tx.value.receiver_address))
      if (String(tx.value.resource).toUpperCase() !== 'ENERGY')
        throw validateError(name, 'the simulated node delegates ENERGY only')
      if (receiver === owner)
        throw validateError(name, 'receiverAddress must not be the same as ownerAddress')
      if (name === 'DelegateResourceContract') {
        if (units < TRX) throw validateError(name, 'delegateBalance must be greater than or equal to 1 TRX')
        if (!ledger.exists(receiver)) {
          throw validateError(name, `Account [${tx.value.receiver_address}] not exists`)
        }
        const { frozen, delegatedOut } = ledger.stake(owner)
        if (units > frozen - delegatedOut) {
          throw validateError(
            name,
            'delegateBalance must be less than or equal to available FreezeEnergyV2 balance',
          )
        }
        return { ...base, delegation: { receiver, units }, fee, info: withFee(info, fee, receipt) }
      }
      const delegated = ledger.delegated(owner, receiver)
      if (units <= 0n || units > delegated) {
        throw validateError(
          name,
          `insufficient delegatedFrozenBalance(Energy), request=${units}, unDelegateBalance=${delegated}`,
        )
      }
      return { ...base, delegation: { receiver, units: -units }, fee, info: withFee(info, fee, receipt) }
    }
    default:
      return triggerTrc20Transfer(tx, ledger, { ...base, fee, spendable, info, receipt })
  }
}

function triggerTrc20Transfer(
  tx: DecodedTronTransaction,
  ledger: TronLedgerView,
  paid: {
    owner: string
    freeBytes: number
    fee: bigint
    spendable: bigint
    info: Record<string, unknown>
    receipt: Record<string, unknown>
  },
): TronExecution {
  const contractHex = String(tx.value.contract_address)
  const contract = base58Of(contractHex)
  const decimals = ledger.tokenDecimals(contract)
  const data = String(tx.value.data ?? '')
  if (decimals === undefined || !data.startsWith(TRANSFER_SELECTOR) || data.length !== 8 + 128) {
    throw validateError(
      'TriggerSmartContract',
      'the simulated node runs transfer(address,uint256) of its TRC20 tokens only',
    )
  }
  const to = base58Of(`41${data.slice(8 + 24, 8 + 64)}`)
  const amount = BigInt(`0x${data.slice(8 + 64)}`)
  const { owner, receipt, info } = paid
  const prices = TRON_CHAIN_PARAMETERS
  const needed =
    ledger.tokenBalance(contract, to) > 0n ? TRC20_TRANSFER_ENERGY.holder : TRC20_TRANSFER_ENERGY.newHolder
  const { frozen, delegatedOut, delegatedIn } = ledger.stake(owner)
  const staked = energyOfStake(frozen - delegatedOut + delegatedIn) - BigInt(ledger.usage(owner).stakedEnergy)
  const fromStake = staked > 0n ? staked : 0n
  // what TRX may buy: up to fee_limit, up to the balance left after bandwidth
  const limitSun = BigInt(tx.feeLimit) < paid.spendable ? BigInt(tx.feeLimit) : paid.spendable
  const burnable = limitSun / prices.getEnergyFee
  let failure: string | null = null
  let used = needed
  if (fromStake + burnable < needed) {
    failure = 'OUT_OF_ENERGY'
    used = fromStake + burnable
  } else if (ledger.tokenBalance(contract, owner) < amount) {
    failure = 'REVERT'
  }
  const stakedEnergy = used < fromStake ? used : fromStake
  const energyFee = (used - stakedEnergy) * prices.getEnergyFee
  const fee = paid.fee + energyFee
  receipt.energy_usage_total = Number(used)
  if (stakedEnergy > 0n) receipt.energy_usage = Number(stakedEnergy)
  if (energyFee > 0n) receipt.energy_fee = Number(energyFee)
  receipt.result = failure ?? 'SUCCESS'
  const rendered: Record<string, unknown> = {
    ...withFee(info, fee, receipt),
    contractResult: [failure === null ? `${'0'.repeat(63)}1` : ''],
    contract_address: contractHex,
  }
  if (failure === null) {
    rendered.log = [
      {
        address: contractHex.slice(2),
        topics: [
          'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          String(tx.value.owner_address).slice(2).padStart(64, '0'),
          data.slice(8, 8 + 64),
        ],
        data: data.slice(8 + 64),
      },
    ]
  } else {
    rendered.result = 'FAILED'
    rendered.resMessage = Buffer.from(
      failure === 'REVERT' ? 'REVERT opcode executed' : 'Not enough energy',
    ).toString('hex')
  }
  return {
    owner,
    transfer: { to, contract, amountUnits: amount, decimals },
    failure,
    fee,
    freeBytes: paid.freeBytes,
    stakedEnergy: Number(stakedEnergy),
    frozenUnits: 0n,
    info: rendered,
  }
}

/** TaPoS, expiration and duplicates (Manager.validateTapos, validateCommon, validateDup) */
function checkCommon(tx: DecodedTronTransaction, ledger: TronLedgerView): void {
  const { head } = ledger
  if (tx.expiration <= head.timeMs || tx.expiration > head.timeMs + MAX_EXPIRATION_MS) {
    throw new TronRefusal(
      'TRANSACTION_EXPIRATION_ERROR',
      `Transaction expiration, transaction expiration time is ${tx.expiration}, but headBlockTime is ${head.timeMs}`,
    )
  }
  // the most recent block whose number ends in ref_block_bytes (java-tron's 65,536-slot table)
  const low = Number.parseInt(tx.refBlockBytes, 16)
  const height = head.height - ((head.height - low) & 0xffff)
  const hash = height >= 1 ? ledger.blockHash(height) : undefined
  if (hash?.slice(16, 32) !== tx.refBlockHash) {
    throw new TronRefusal(
      'TAPOS_ERROR',
      `Tapos failed, different block hash, ${tx.refBlockBytes}, ${tx.refBlockHash}, recent block ${hash ?? ''}`,
    )
  }
  if (ledger.processed(tx.txID)) throw new TronRefusal('DUP_TRANSACTION_ERROR', 'dup trans')
}

function withFee(info: Record<string, unknown>, fee: bigint, receipt: Record<string, unknown>) {
  // zero fields are left out, as java-tron prints them
  return { ...info, ...(fee > 0n ? { fee: Number(fee) } : {}), receipt }
}

function validateError(contract: string, text: string): TronRefusal {
  return new TronRefusal('CONTRACT_VALIDATE_ERROR', `Validate ${contract} error, ${text}`)
}

function bandwidthError(): TronRefusal {
  return new TronRefusal('BANDWIDTH_ERROR', 'Account resource insufficient error.')
}

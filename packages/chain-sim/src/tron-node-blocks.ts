// The simulator's TRON blocks as java-tron prints them (visible=false: 41-prefixed hex addresses):
// a TRX payment as a TransferContract, a TRC20 payment as a TriggerSmartContract call of
// transfer(address,uint256), several TRC20 payments as one call of a simulated multisend contract,
// each with the TransactionInfo receipt a real node gives, and raw_data_hex encoded as tronweb
// encodes raw_data. Signatures and witnesses are stand-ins derived from the hashes.
import { createHash } from 'node:crypto'
import { createBase58check } from '@scure/base'
import type { SimulatedBlock } from './simulator.js'

type StoredTransaction = SimulatedBlock['transactions'][number]
type Json = Record<string, unknown>

const BLOCK_VERSION = 34
const TRC20_FEE_LIMIT = 100_000_000
const TRANSFER_SELECTOR = 'a9059cbb'
/** multiTransfer(address[] tokens, address[] recipients, uint256[] amounts) */
const MULTISEND_SELECTOR = 'cd72250d'
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
/** payout(address[] recipients, uint256[] amounts): TRX paid on by the contract */
const PAYOUT_SELECTOR = '8f2d4c23'
/** the contract a simulated internal-TRX transaction calls: an exchange's payout contract */
export const SIMULATED_PAYOUT_CONTRACT_HEX = `41${sha256Hex('chainpay simulated TRX payout').slice(0, 40)}`
/** the contract a simulated multi-transfer transaction calls */
export const SIMULATED_MULTISEND_CONTRACT_HEX = `41${sha256Hex('chainpay simulated TRC20 multisend').slice(0, 40)}`
const SIMULATED_WITNESSES = 27
const FAILURE_MESSAGES: Record<string, string> = {
  REVERT: 'REVERT opcode executed',
  OUT_OF_ENERGY:
    "Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[64285], curOpEnergy[20000], usedEnergy[58572]",
}

const base58check = createBase58check(
  (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest()),
)
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON

/** a block as getblockbynum prints it; without `detail`, as getblock with detail=false does */
export function renderTronBlock(block: SimulatedBlock, detail = true): Json {
  const witness = block.height % SIMULATED_WITNESSES
  const rendered: Json = {
    blockID: block.hash,
    block_header: {
      raw_data: {
        number: block.height,
        txTrieRoot:
          block.transactions.length === 0
            ? '0'.repeat(64)
            : sha256Hex(block.transactions.map((transaction) => transaction.txHash).join('')),
        witness_address: `41${sha256Hex(`simulated witness ${witness}`).slice(0, 40)}`,
        parentHash: block.parentHash,
        version: BLOCK_VERSION,
        timestamp: Date.parse(block.time),
      },
      witness_signature: signature(block.hash),
    },
  }
  // java-tron leaves the key out of a block without transactions
  if (detail && block.transactions.length > 0) {
    rendered.transactions = block.transactions.map((transaction) => renderTronTransaction(transaction, block))
  }
  return rendered
}

/** a signed transaction as it was broadcast, and its TransactionInfo without the block fields */
interface TronRecord {
  transaction: Json
  info: Json
}

function tronRecordOf(transaction: StoredTransaction): TronRecord | undefined {
  return transaction.tronRecord === undefined ? undefined : (JSON.parse(transaction.tronRecord) as TronRecord)
}

/** a transaction as gettransactionbyid and a block print it */
export function renderTronTransaction(transaction: StoredTransaction, block: SimulatedBlock): Json {
  const record = tronRecordOf(transaction)
  if (record === undefined) return renderTransaction(transaction, block)
  return { ret: [{ contractRet: transaction.failure ?? 'SUCCESS' }], ...record.transaction }
}

function renderTransaction(transaction: StoredTransaction, block: SimulatedBlock): Json {
  const call = contractCall(transaction)
  // built when submitted; tronweb's default expiration is 60 s later (docs/chains.md, "Forks")
  const timestamp = Date.parse(transaction.submittedAt ?? block.time)
  // wallets reference a recent block: here the parent, by its low 2 number bytes and hash bytes 8..16
  const refBlock = {
    bytes: ((block.height - 1) & 0xffff).toString(16).padStart(4, '0'),
    hash: block.parentHash.slice(16, 32),
  }
  const raw = {
    refBlock,
    expiration: timestamp + 60_000,
    timestamp,
    feeLimit: call.type === 'TriggerSmartContract' ? TRC20_FEE_LIMIT : undefined,
  }
  return {
    ret: [{ contractRet: transaction.failure ?? 'SUCCESS' }],
    signature: [signature(transaction.txHash)],
    txID: transaction.txHash,
    raw_data: {
      contract: [
        {
          parameter: { value: call.value, type_url: `type.googleapis.com/protocol.${call.type}` },
          type: call.type,
        },
      ],
      ref_block_bytes: refBlock.bytes,
      ref_block_hash: refBlock.hash,
      expiration: raw.expiration,
      ...(raw.feeLimit === undefined ? {} : { fee_limit: raw.feeLimit }),
      timestamp,
    },
    raw_data_hex: rawDataHex(call, raw),
  }
}

interface ContractCall {
  type: 'TransferContract' | 'TriggerSmartContract'
  value: Json
  /** the protobuf fields of the contract message, in field order */
  fields: Array<[number, bigint | string]>
}

function contractCall(transaction: StoredTransaction): ContractCall {
  const owner = addressHex(transaction.from)
  const [first, ...others] = transaction.transfers
  if (!first) throw new Error(`simulated transaction ${transaction.txHash} has no transfers`)
  if (first.internal === true) {
    const data = PAYOUT_SELECTOR + payoutArguments(transaction)
    return {
      type: 'TriggerSmartContract',
      value: { data, owner_address: owner, contract_address: SIMULATED_PAYOUT_CONTRACT_HEX },
      fields: [
        [1, owner],
        [2, SIMULATED_PAYOUT_CONTRACT_HEX],
        [4, data],
      ],
    }
  }
  if (first.contract === null && others.length === 0) {
    const to = addressHex(first.to)
    return {
      type: 'TransferContract',
      value: { amount: rawJson(first.amountUnits), owner_address: owner, to_address: to },
      fields: [
        [1, owner],
        [2, to],
        [3, BigInt(first.amountUnits)],
      ],
    }
  }
  if (transaction.transfers.some((transfer) => transfer.contract === null)) {
    throw new Error(`simulated TRON transaction ${transaction.txHash} mixes TRX with TRC20 transfers`)
  }
  const contract =
    others.length === 0 ? addressHex(first.contract as string) : SIMULATED_MULTISEND_CONTRACT_HEX
  const data =
    others.length === 0
      ? TRANSFER_SELECTOR + word(first.to) + uint256(first.amountUnits)
      : MULTISEND_SELECTOR + multisendArguments(transaction)
  return {
    type: 'TriggerSmartContract',
    value: { data, owner_address: owner, contract_address: contract },
    fields: [
      [1, owner],
      [2, contract],
      [4, data],
    ],
  }
}

/** ABI encoding of (address[] recipients, uint256[] amounts) */
function payoutArguments(transaction: StoredTransaction): string {
  const count = transaction.transfers.length
  const offsets = [2, 3 + count].map((words) => uint256(String(words * 32)))
  const array = (items: string[]) => uint256(String(count)) + items.join('')
  return (
    offsets.join('') +
    array(transaction.transfers.map((transfer) => word(transfer.to))) +
    array(transaction.transfers.map((transfer) => uint256(transfer.amountUnits)))
  )
}

/** ABI encoding of (address[] tokens, address[] recipients, uint256[] amounts) */
function multisendArguments(transaction: StoredTransaction): string {
  const count = transaction.transfers.length
  const arrayWords = count + 1
  const offsets = [3, 3 + arrayWords, 3 + 2 * arrayWords].map((words) => uint256(String(words * 32)))
  const array = (items: string[]) => uint256(String(count)) + items.join('')
  return (
    offsets.join('') +
    array(transaction.transfers.map((transfer) => word(transfer.contract as string))) +
    array(transaction.transfers.map((transfer) => word(transfer.to))) +
    array(transaction.transfers.map((transfer) => uint256(transfer.amountUnits)))
  )
}

/** a transaction's TransactionInfo as gettransactioninfobyblocknum prints it */
export function renderTronTransactionInfo(transaction: StoredTransaction, block: SimulatedBlock): Json {
  const when = { blockNumber: block.height, blockTimeStamp: Date.parse(block.time) }
  const record = tronRecordOf(transaction)
  if (record !== undefined) {
    const { id, fee, ...rest } = record.info
    return { id, ...(fee === undefined ? {} : { fee }), ...when, contractResult: [''], ...rest }
  }
  const call = contractCall(transaction)
  const base: Json = { id: transaction.txHash }
  if (call.type === 'TransferContract') {
    // a TRX transfer paid from free bandwidth: no fee, no receipt.result
    return {
      ...base,
      ...when,
      contractResult: [''],
      receipt: { net_usage: 268 },
      ...(transaction.failure === null ? {} : { result: 'FAILED' }),
    }
  }
  const contractAddress = call.value.contract_address
  if (transaction.failure !== null) {
    const energyFee = transaction.failure === 'OUT_OF_ENERGY' ? 16_500_120 : 6_842_100
    return {
      ...base,
      fee: energyFee + 345_000,
      ...when,
      contractResult: [''],
      contract_address: contractAddress,
      receipt: {
        energy_fee: energyFee,
        energy_usage_total: Math.round(energyFee / 210),
        net_fee: 345_000,
        result: transaction.failure,
      },
      result: 'FAILED',
      resMessage: Buffer.from(FAILURE_MESSAGES[transaction.failure] ?? transaction.failure).toString('hex'),
    }
  }
  if (transaction.transfers.some((transfer) => transfer.internal === true)) {
    // TRX the contract paid on: no Transfer logs, only internal transactions, which a node records
    // with vm.saveInternalTx = true (docs/chains.md, "Internal transactions")
    return {
      ...base,
      fee: 2_100_000,
      ...when,
      contractResult: [''],
      contract_address: contractAddress,
      receipt: { energy_fee: 2_100_000, energy_usage_total: 10_000, net_usage: 345, result: 'SUCCESS' },
      internal_transactions: transaction.transfers.map((transfer, position) => ({
        hash: sha256Hex(`${transaction.txHash} internal ${position}`),
        caller_address: contractAddress,
        transferTo_address: addressHex(transfer.to),
        callValueInfo: [{ callValue: rawJson(transfer.amountUnits) }],
        note: Buffer.from('call').toString('hex'),
      })),
    }
  }
  const energyFee = 6_379_500 * transaction.transfers.length
  return {
    ...base,
    fee: energyFee,
    ...when,
    contractResult: ['0'.repeat(64)],
    contract_address: contractAddress,
    receipt: {
      energy_fee: energyFee,
      energy_usage_total: 30_379 * transaction.transfers.length,
      net_usage: 345,
      result: 'SUCCESS',
    },
    // java-tron prints log addresses as 20 bytes, without the 41 prefix
    log: transaction.transfers.map((transfer) => ({
      address: addressHex(transfer.contract as string).slice(2),
      topics: [TRANSFER_TOPIC, word(transaction.from), word(transfer.to)],
      data: uint256(transfer.amountUnits),
    })),
  }
}

//////// Encodings

/** 0x41 || 20 bytes as hex; an address that is no base58check TRON address maps to a stable stand-in */
function addressHex(address: string): string {
  try {
    const payload = base58check.decode(address)
    if (payload.length === 21 && payload[0] === 0x41) return Buffer.from(payload).toString('hex')
  } catch {
    // the dev routes accept any address string; the node renders one it can print
  }
  return `41${sha256Hex(address).slice(0, 40)}`
}

/** an address as a 32-byte ABI word: 12 zero bytes, then its 20 bytes */
function word(address: string): string {
  return addressHex(address).slice(2).padStart(64, '0')
}

function uint256(units: string): string {
  return BigInt(units).toString(16).padStart(64, '0')
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** a 65-byte stand-in for a secp256k1 signature, stable for the same signed thing */
function signature(of: string): string {
  return `${sha256Hex(`r${of}`)}${sha256Hex(`s${of}`)}1b`
}

/** protocol.Transaction.raw as protobuf (proto3 defaults omitted, fields in number order) */
function rawDataHex(
  call: ContractCall,
  raw: {
    refBlock: { bytes: string; hash: string }
    expiration: number
    timestamp: number
    feeLimit?: number | undefined
  },
): string {
  const contractType = call.type === 'TransferContract' ? 1 : 31
  const any =
    bytesField(1, Buffer.from(`type.googleapis.com/protocol.${call.type}`).toString('hex')) +
    bytesField(2, call.fields.map(([field, value]) => anyField(field, value)).join(''))
  const contract = varintField(1, BigInt(contractType)) + bytesField(2, any)
  return (
    bytesField(1, raw.refBlock.bytes) +
    bytesField(4, raw.refBlock.hash) +
    varintField(8, BigInt(raw.expiration)) +
    bytesField(11, contract) +
    varintField(14, BigInt(raw.timestamp)) +
    (raw.feeLimit === undefined ? '' : varintField(18, BigInt(raw.feeLimit)))
  )
}

function anyField(field: number, value: bigint | string): string {
  return typeof value === 'bigint' ? varintField(field, value) : bytesField(field, value)
}

function varintField(field: number, value: bigint): string {
  return value === 0n ? '' : varint(BigInt(field << 3)) + varint(value)
}

function bytesField(field: number, hex: string): string {
  return hex === '' ? '' : varint(BigInt((field << 3) | 2)) + varint(BigInt(hex.length / 2)) + hex
}

function varint(value: bigint): string {
  let rest = value
  let hex = ''
  do {
    const low = Number(rest & 0x7fn)
    rest >>= 7n
    hex += (rest === 0n ? low : low | 0x80).toString(16).padStart(2, '0')
  } while (rest !== 0n)
  return hex
}

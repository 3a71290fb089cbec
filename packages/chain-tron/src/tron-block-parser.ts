// java-tron's block and TransactionInfo JSON (visible=false: 41-prefixed hex addresses) to the
// chain port's blocks. TRX comes from TransferContract bodies; TRC20 from the Transfer logs of the
// registry's contracts in successful receipts; a failed call of a registry contract's
// transfer(address,uint256) is decoded from its calldata and reported with success=false (a failed
// call of any other contract, such as a multisend, is reported as nothing: it paid nothing).
import type { AssetRegistry } from '@chainpay/domain'
import { type ChainBlock, ChainRpcError, type ChainTransfer } from '@chainpay/ports'
import { TronWeb } from 'tronweb'

export const TRANSFER_EVENT_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const TRANSFER_SELECTOR = 'a9059cbb'
const HEX_ADDRESS = /^41[0-9a-f]{40}$/
const HASH = /^[0-9a-f]{64}$/
const WORD = /^[0-9a-f]{64}$/

/** the registry's TRC20 contracts of one network: 41-hex address to the contract as registered */
export type TronTokenContracts = ReadonlyMap<string, string>

export interface TronBlockHeader {
  height: number
  hash: string
  parentHash: string
  /** ISO 8601 */
  time: string
}

export interface TronTransactionBody {
  txID: string
  /** ret[0].contractRet: SUCCESS, REVERT, OUT_OF_ENERGY, ... */
  contractRet: string | undefined
  /** raw_data.contract[0].type */
  type: string | undefined
  value: Record<string, unknown>
  /** raw_data.expiration, ISO 8601: the last moment a block may include the transaction */
  expiresAt: string | undefined
}

export interface TronBlockBody extends TronBlockHeader {
  transactions: TronTransactionBody[]
}

export interface TronTransactionInfo {
  id: string
  blockNumber: number
  /** receipt.result; absent for a TRX transfer */
  result: string | undefined
  logs: Array<{ address: string; topics: string[]; data: string }>
  /** TRX the contract sent on (callValue, sun), where the node records internal transactions */
  internalTrx: Array<{ from: string; to: string; amountUnits: string }>
}

/**
 * Internal transfers get transfer indexes from here on, so that they never meet a log's index in
 * the same transaction.
 */
export const INTERNAL_TRANSFER_INDEX_BASE = 1_000_000

export function tronTokenContracts(registry: AssetRegistry, network: string): TronTokenContracts {
  const contracts = new Map<string, string>()
  for (const asset of registry.assets) {
    if (asset.network !== network || asset.contract === null) continue
    if (!TronWeb.isAddress(asset.contract)) {
      throw new Error(`asset ${network}:${asset.currency}: ${asset.contract} is not a TRON address`)
    }
    contracts.set(TronWeb.address.toHex(asset.contract).toLowerCase(), asset.contract)
  }
  return contracts
}

/** a block of getnowblock / getblockbynum / getblockbylimitnext; undefined for java-tron's `{}` */
export function readTronBlock(raw: unknown, what: string): TronBlockBody | undefined {
  const block = object(raw, what)
  if (Object.keys(block).length === 0) return undefined
  const header = object(object(block.block_header, `${what} block_header`).raw_data, `${what} raw_data`)
  const height = safeInteger(header.number ?? 0, `${what} number`)
  const timestamp = safeInteger(header.timestamp, `${what} timestamp`)
  const transactions = block.transactions ?? []
  if (!Array.isArray(transactions)) throw badResponse(`${what}: transactions is not an array`)
  return {
    height,
    hash: hash(block.blockID, `${what} blockID`),
    parentHash: hash(header.parentHash, `${what} parentHash`),
    time: new Date(timestamp).toISOString(),
    transactions: transactions.map((transaction, position) =>
      readTransaction(transaction, `${what} transactions[${position}]`),
    ),
  }
}

/** gettransactioninfobyblocknum's array by transaction id; java-tron's `{}` reads as empty */
export function readTransactionInfos(raw: unknown, what: string): Map<string, TronTransactionInfo> {
  const infos = new Map<string, TronTransactionInfo>()
  if (!Array.isArray(raw)) {
    if (Object.keys(object(raw, what)).length === 0) return infos
    throw badResponse(`${what}: not an array of TransactionInfo`)
  }
  for (const [position, entry] of raw.entries()) {
    const where = `${what}[${position}]`
    const info = object(entry, where)
    const receipt = info.receipt === undefined ? {} : object(info.receipt, `${where} receipt`)
    const logs = info.log ?? []
    if (!Array.isArray(logs)) throw badResponse(`${where}: log is not an array`)
    const id = hash(info.id, `${where} id`)
    infos.set(id, {
      id,
      blockNumber: safeInteger(info.blockNumber ?? 0, `${where} blockNumber`),
      result: optionalString(receipt.result, `${where} receipt.result`),
      logs: logs.map((log, index) => readLog(log, `${where} log[${index}]`)),
      internalTrx: readInternalTrx(info.internal_transactions, `${where} internal_transactions`),
    })
  }
  return infos
}

/** whether the block's transfers need its receipts: any smart contract call may emit TRC20 logs */
export function needsTransactionInfos(block: TronBlockBody): boolean {
  return block.transactions.some((transaction) => transaction.type === 'TriggerSmartContract')
}

/**
 * The chain port's block. `infos` must hold the receipt of every TriggerSmartContract transaction
 * of the block (gettransactioninfobyblocknum of the same block); a missing one means the node
 * switched forks between the two reads, which is worth reading again.
 */
export function toChainBlock(
  block: TronBlockBody,
  infos: ReadonlyMap<string, TronTransactionInfo>,
  tokens: TronTokenContracts,
): ChainBlock {
  const transfers: ChainTransfer[] = []
  for (const transaction of block.transactions) {
    if (transaction.type === 'TransferContract') transfers.push(trxTransfer(transaction))
    if (transaction.type !== 'TriggerSmartContract') continue
    const info = infos.get(transaction.txID)
    if (info === undefined || info.blockNumber !== block.height) {
      throw new ChainRpcError(
        'unavailable',
        `TRON block ${block.height}: no receipt of ${transaction.txID} at that height (the node switched forks while it was read)`,
      )
    }
    transfers.push(...tokenTransfers(transaction, info, tokens), ...internalTransfers(transaction, info))
  }
  const { height, hash, parentHash, time } = block
  const expiration = new Map(
    block.transactions.map((transaction) => [transaction.txID, transaction.expiresAt]),
  )
  for (const transfer of transfers) {
    const expiresAt = expiration.get(transfer.txHash)
    if (expiresAt !== undefined) transfer.expiresAt = expiresAt
  }
  return { height, hash, parentHash, time, transfers }
}

/** TRX the contract sent (TRON internal transactions), only from a successful call */
function internalTransfers(transaction: TronTransactionBody, info: TronTransactionInfo): ChainTransfer[] {
  if (info.result !== 'SUCCESS') return []
  return info.internalTrx.map((internal, position) => ({
    txHash: transaction.txID,
    index: INTERNAL_TRANSFER_INDEX_BASE + position,
    from: internal.from,
    to: internal.to,
    asset: { kind: 'native' },
    amountUnits: internal.amountUnits,
    success: true,
    internal: true,
  }))
}

/**
 * internal_transactions' TRX: callValueInfo entries without a tokenId (a TRC10 has one), not
 * rejected, of a positive callValue
 */
function readInternalTrx(raw: unknown, where: string): TronTransactionInfo['internalTrx'] {
  if (raw === undefined) return []
  if (!Array.isArray(raw)) throw badResponse(`${where}: not an array`)
  return raw.flatMap((entry, position) => {
    const internal = object(entry, `${where}[${position}]`)
    if (internal.rejected === true) return []
    const values = internal.callValueInfo ?? []
    if (!Array.isArray(values)) throw badResponse(`${where}[${position}]: callValueInfo is not an array`)
    return values.flatMap((value, index) => {
      const info = object(value, `${where}[${position}] callValueInfo[${index}]`)
      if (info.tokenId !== undefined && info.tokenId !== '') return []
      const amountUnits = units(info.callValue, `${where}[${position}] callValue`)
      if (amountUnits === '0') return []
      return [
        {
          from: base58(internal.caller_address, `${where}[${position}] caller_address`),
          to: base58(internal.transferTo_address, `${where}[${position}] transferTo_address`),
          amountUnits,
        },
      ]
    })
  })
}

function trxTransfer(transaction: TronTransactionBody): ChainTransfer {
  const where = `transaction ${transaction.txID}`
  return {
    txHash: transaction.txID,
    index: 0,
    from: base58(transaction.value.owner_address, `${where} owner_address`),
    to: base58(transaction.value.to_address, `${where} to_address`),
    asset: { kind: 'native' },
    amountUnits: units(transaction.value.amount, `${where} amount`),
    success: transaction.contractRet === 'SUCCESS',
  }
}

function tokenTransfers(
  transaction: TronTransactionBody,
  info: TronTransactionInfo,
  tokens: TronTokenContracts,
): ChainTransfer[] {
  if (info.result === 'SUCCESS') {
    return info.logs.flatMap((log, index): ChainTransfer[] => {
      const contract = tokens.get(`41${log.address}`)
      const [topic, from, to] = log.topics
      // Transfer(address indexed, address indexed, uint256): 3 topics (an NFT's has 4), one word of data
      if (contract === undefined || topic !== TRANSFER_EVENT_TOPIC || log.topics.length !== 3) return []
      if (!from || !to || !WORD.test(log.data)) return []
      return [
        {
          txHash: transaction.txID,
          index,
          from: base58(`41${from.slice(24)}`, 'log topics[1]'),
          to: base58(`41${to.slice(24)}`, 'log topics[2]'),
          asset: { kind: 'token', contract },
          amountUnits: BigInt(`0x${log.data}`).toString(),
          success: true,
        },
      ]
    })
  }
  // A failed call left no logs: what it tried is in its calldata. Deliberately only a direct
  // transfer(address,uint256) of a registry token is decoded: a failed call of any other contract
  // (a multisend, a router) speaks that contract's own ABI, which cannot be known in general, and
  // paid nothing, so it reports no transfer.
  const contract = tokens.get(String(transaction.value.contract_address ?? '').toLowerCase())
  const data = typeof transaction.value.data === 'string' ? transaction.value.data.toLowerCase() : ''
  if (contract === undefined || !data.startsWith(TRANSFER_SELECTOR) || data.length < 8 + 128) return []
  const toWord = data.slice(8, 72)
  const amountWord = data.slice(72, 136)
  if (!WORD.test(toWord) || !WORD.test(amountWord)) return []
  return [
    {
      txHash: transaction.txID,
      index: 0,
      from: base58(transaction.value.owner_address, `transaction ${transaction.txID} owner_address`),
      // the last 20 bytes: some wallets put 41 inside the word, others zeros
      to: base58(`41${toWord.slice(24)}`, `transaction ${transaction.txID} calldata`),
      asset: { kind: 'token', contract },
      amountUnits: BigInt(`0x${amountWord}`).toString(),
      success: false,
    },
  ]
}

//////// Shape checks: anything off is the node's fault, reported as bad-response

function readTransaction(raw: unknown, where: string): TronTransactionBody {
  const transaction = object(raw, where)
  const ret = Array.isArray(transaction.ret) ? transaction.ret[0] : undefined
  const rawData = object(transaction.raw_data, `${where} raw_data`)
  const contracts = rawData.contract ?? []
  if (!Array.isArray(contracts)) throw badResponse(`${where}: raw_data.contract is not an array`)
  const contract = contracts[0] === undefined ? undefined : object(contracts[0], `${where} contract[0]`)
  const parameter = contract?.parameter === undefined ? {} : object(contract.parameter, `${where} parameter`)
  return {
    txID: hash(transaction.txID, `${where} txID`),
    contractRet:
      ret === undefined
        ? undefined
        : optionalString(object(ret, `${where} ret[0]`).contractRet, `${where} contractRet`),
    type: optionalString(contract?.type, `${where} type`),
    value: parameter.value === undefined ? {} : object(parameter.value, `${where} parameter.value`),
    expiresAt:
      rawData.expiration === undefined
        ? undefined
        : new Date(safeInteger(rawData.expiration, `${where} expiration`)).toISOString(),
  }
}

function readLog(raw: unknown, where: string): TronTransactionInfo['logs'][number] {
  const log = object(raw, where)
  const topics = log.topics ?? []
  if (!Array.isArray(topics) || topics.some((topic) => typeof topic !== 'string')) {
    throw badResponse(`${where}: topics is not an array of strings`)
  }
  return {
    address: String(log.address ?? '').toLowerCase(),
    topics: topics.map((topic: string) => topic.toLowerCase()),
    data: String(log.data ?? '').toLowerCase(),
  }
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badResponse(`${where}: expected an object`)
  }
  const error = (value as Record<string, unknown>).Error
  // java-tron reports what it could not do as {"Error": "..."} with status 200
  if (typeof error === 'string') throw badResponse(`${where}: the node answered ${error.slice(0, 200)}`)
  return value as Record<string, unknown>
}

function safeInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw badResponse(`${where}: expected a non-negative integer`)
  }
  return value
}

function hash(value: unknown, where: string): string {
  if (typeof value !== 'string' || !HASH.test(value.toLowerCase()))
    throw badResponse(`${where}: expected 32 bytes of hex`)
  return value.toLowerCase()
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value
  throw badResponse(`${where}: expected a string`)
}

/** a TRX amount: a JSON number, or the decimal text parseExactJson keeps for one above 2^53 */
function units(value: unknown, where: string): string {
  if (value === undefined) return '0'
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value === 'string' && /^\d+$/.test(value)) return BigInt(value).toString()
  throw badResponse(`${where}: expected a non-negative integer`)
}

function base58(hex: unknown, where: string): string {
  const text = typeof hex === 'string' ? hex.toLowerCase() : ''
  if (!HEX_ADDRESS.test(text)) throw badResponse(`${where}: expected a 41-prefixed hex address`)
  return TronWeb.address.fromHex(text)
}

function badResponse(message: string): ChainRpcError {
  return new ChainRpcError('bad-response', `TRON node answer: ${message}`)
}

// A Solana JSON-RPC node in front of the simulator: POST /chains/<network> answers what
// @solana/web3.js's Connection asks a real node while following blocks or accounts, in the node's shapes and
// with its errors. Slots are the simulator's block heights; `processed` and `confirmed` stand at
// the head, `finalized` at the simulator's finalized height.
import { base58 } from '@scure/base'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import type { ChainSimulator, SimulatedBlock, SolanaAccountState } from './simulator.js'
import {
  type AccountEncoding,
  renderAccount,
  renderNonceAccount,
  type TokenHolding,
} from './solana-accounts.js'
import { blockhashIsRecent, decodeWireTransaction } from './solana-execution.js'
import { BLOCKHASH_VALIDITY } from './solana-ledger.js'
import {
  type BlockEncoding,
  type BlockRenderOptions,
  nodeJson,
  renderSolanaBlock,
  renderSolanaTransaction,
  SolanaRpcError,
  type SolanaTransaction,
  simulatedSolanaTransactions,
  TOKEN_PROGRAM_ID,
  type TransactionDetails,
  uiTokenAmount,
} from './solana-rpc-blocks.js'

export { SolanaRpcError, simulatedSolanaVersion } from './solana-rpc-blocks.js'

export interface SolanaRpcRoutesOptions {
  simulator: ChainSimulator
}

/** what a node allows between the first and the last slot of getBlocks (MAX_GET_CONFIRMED_BLOCKS_RANGE) */
const MAX_SLOT_RANGE = 500_000
const API_VERSION = '2.2.16'
const FEATURE_SET = 3_294_202_862
/** the clusters' real genesis hashes, so that a client checking which cluster it talks to is satisfied */
const GENESIS_HASHES: Record<string, string> = {
  SOLANA: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d',
  SOLANA_DEVNET: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG',
}
const OTHER_GENESIS_HASH = '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY'
/** what getSignatureStatuses takes at once (MAX_GET_SIGNATURE_STATUSES_QUERY_ITEMS) */
const MAX_SIGNATURE_STATUSES = 256
/** what getMultipleAccounts reads at once (MAX_MULTIPLE_ACCOUNTS) */
const MAX_MULTIPLE_ACCOUNTS = 100
/** what getSignaturesForAddress lists at once, and by default */
const MAX_SIGNATURES_FOR_ADDRESS = 1000

type Commitment = 'processed' | 'confirmed' | 'finalized'
type Params = unknown[]

interface Node {
  simulator: ChainSimulator
  network: string
}

interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: unknown
  method: string
  params?: unknown
}

export const solanaRpcRoutes: FastifyPluginAsync<SolanaRpcRoutesOptions> = async (app, options) => {
  const { simulator } = options
  // Scoped to this plugin: a node answers a body that is not JSON with a JSON-RPC parse error.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    done(null, body)
  })

  app.post<{ Params: { network: string } }>('/chains/:network', async (request, reply) => {
    const network = simulator.networkNamed(request.params.network)
    if (network === undefined || simulator.chainOf(network) !== 'SOLANA') {
      const message = `no simulated Solana network ${request.params.network}`
      return reply.code(404).send({ error: { code: 'NOT_FOUND', message } })
    }
    const node: Node = { simulator, network }
    let body: unknown
    try {
      body = JSON.parse(typeof request.body === 'string' ? request.body : '')
    } catch {
      return sendJson(reply, failure(null, new SolanaRpcError(-32700, 'Parse error')))
    }
    if (!Array.isArray(body)) return sendJson(reply, await answer(node, body))
    if (body.length === 0)
      return sendJson(reply, failure(null, new SolanaRpcError(-32600, 'Invalid request')))
    const answers: unknown[] = []
    for (const call of body) answers.push(await answer(node, call))
    return sendJson(reply, answers)
  })
}

async function answer(node: Node, call: unknown): Promise<unknown> {
  if (!isRequest(call)) {
    const id = typeof call === 'object' && call !== null && 'id' in call ? call.id : null
    return failure(id ?? null, new SolanaRpcError(-32600, 'Invalid request'))
  }
  const method = METHODS[call.method]
  if (method === undefined) return failure(call.id, new SolanaRpcError(-32601, 'Method not found'))
  const params = call.params ?? []
  if (!Array.isArray(params)) {
    return failure(call.id, invalidParams('invalid type: map, expected a sequence of parameters'))
  }
  try {
    return { jsonrpc: '2.0', result: await method(node, params), id: call.id }
  } catch (error) {
    if (error instanceof SolanaRpcError) return failure(call.id, error)
    throw error
  }
}

function isRequest(call: unknown): call is JsonRpcRequest {
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return false
  const { jsonrpc, method } = call as Record<string, unknown>
  return jsonrpc === '2.0' && typeof method === 'string'
}

function failure(id: unknown, error: SolanaRpcError): unknown {
  const body: Record<string, unknown> = { code: error.code, message: error.message }
  if (error.data !== undefined) body.data = error.data
  return { jsonrpc: '2.0', error: body, id }
}

const METHODS: Record<string, (node: Node, params: Params) => Promise<unknown>> = {
  async getSlot(node, [config]) {
    return contextSlot(node, readConfig(config))
  },

  // the simulator never skips a slot, so a slot's block height is the slot
  async getBlockHeight(node, [config]) {
    return contextSlot(node, readConfig(config))
  },

  async getLatestBlockhash(node, [config]) {
    const slot = await contextSlot(node, readConfig(config))
    const [block] = await node.simulator.blockDetails(node.network, Math.max(1, slot), Math.max(1, slot))
    const blockhash = slot === 0 ? block?.parentHash : block?.hash
    if (blockhash === undefined) throw new SolanaRpcError(-32004, `Block not available for slot ${slot}`)
    return {
      context: { apiVersion: API_VERSION, slot },
      value: { blockhash, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY },
    }
  },

  async isBlockhashValid(node, [blockhashParam, config]) {
    if (typeof blockhashParam !== 'string' || !decodesTo(blockhashParam, 32)) throw invalidParam()
    const slot = await contextSlot(node, readConfig(config))
    return { context: { apiVersion: API_VERSION, slot }, value: await blockhashValid(node, blockhashParam) }
  },

  // a signed transaction, run as a validator's preflight runs it: refused with the node's errors,
  // else in the next block (docs/chains.md, "The simulator as a node for sweeping")
  async sendTransaction(node, [wireParam, configParam]) {
    if (typeof wireParam !== 'string') throw invalidParams('invalid type: expected a string')
    const config = readConfig(configParam)
    const wire = decodeWireTransaction(wireParam, config.encoding)
    return (await node.simulator.sendSolanaTransaction(node.network, wire)).signature
  },

  // what sending would do, without doing it; signatures are checked only with sigVerify
  async simulateTransaction(node, [wireParam, configParam]) {
    if (typeof wireParam !== 'string') throw invalidParams('invalid type: expected a string')
    const config = readConfig(configParam)
    const wire = decodeWireTransaction(wireParam, config.encoding)
    const slot = await contextSlot(node, config)
    const value = await node.simulator.simulateSolanaTransaction(node.network, wire, {
      sigVerify: config.sigVerify === true,
      replaceRecentBlockhash: config.replaceRecentBlockhash === true,
    })
    return { context: { apiVersion: API_VERSION, slot }, value }
  },

  async getFeeForMessage(node, [messageParam, config]) {
    if (typeof messageParam !== 'string') throw invalidParams('invalid type: expected a string')
    const slot = await contextSlot(node, readConfig(config))
    // null for a message whose blockhash is unknown or expired
    const value = await node.simulator.solanaFeeForMessage(node.network, messageParam)
    return { context: { apiVersion: API_VERSION, slot }, value }
  },

  async getBalance(node, [addressParam, config]) {
    const address = readPubkey(addressParam)
    const slot = await contextSlot(node, readConfig(config))
    const { lamports } = await node.simulator.solanaAccount(node.network, address)
    return { context: { apiVersion: API_VERSION, slot }, value: lamports }
  },

  async getAccountInfo(node, [addressParam, configParam]) {
    const address = readPubkey(addressParam)
    const config = readConfig(configParam)
    const encoding = readAccountEncoding(config.encoding)
    const slot = await contextSlot(node, config)
    const state = await node.simulator.solanaAccount(node.network, address)
    return { context: { apiVersion: API_VERSION, slot }, value: ledgerAccount(state, encoding) }
  },

  async getMultipleAccounts(node, [addressesParam, configParam]) {
    if (!Array.isArray(addressesParam)) throw invalidParams('invalid type: expected a sequence of pubkeys')
    if (addressesParam.length > MAX_MULTIPLE_ACCOUNTS) {
      throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`)
    }
    const addresses = addressesParam.map(readPubkey)
    const config = readConfig(configParam)
    const encoding = readAccountEncoding(config.encoding)
    const slot = await contextSlot(node, config)
    const value: unknown[] = []
    for (const address of addresses) {
      value.push(ledgerAccount(await node.simulator.solanaAccount(node.network, address), encoding))
    }
    return { context: { apiVersion: API_VERSION, slot }, value }
  },

  async getTokenAccountBalance(node, [addressParam, config]) {
    const address = readPubkey(addressParam)
    const slot = await contextSlot(node, readConfig(config))
    const { lamports, token } = await node.simulator.solanaAccount(node.network, address)
    if (token === undefined) {
      throw new SolanaRpcError(
        -32602,
        lamports === 0n ? 'Invalid param: could not find account' : 'Invalid param: not a Token account',
      )
    }
    return { context: { apiVersion: API_VERSION, slot }, value: uiTokenAmount(token.amount, token.decimals) }
  },

  async getBlocks(node, [start, second, third]) {
    const startSlot = readSlot(start)
    const endSlot = typeof second === 'number' ? readSlot(second) : undefined
    const config = readConfig(typeof second === 'object' && second !== null ? second : third)
    const last = Math.min(
      endSlot ?? startSlot + MAX_SLOT_RANGE,
      await slotAt(node, atLeastConfirmed(config.commitment)),
    )
    if (last < startSlot) return []
    if (last - startSlot > MAX_SLOT_RANGE) throw invalidParams(`Slot range too large; max ${MAX_SLOT_RANGE}`)
    return slotsHeld(node, startSlot, last)
  },

  async getBlocksWithLimit(node, [start, limit, config]) {
    const startSlot = readSlot(start)
    const count = readSlot(limit)
    if (count > MAX_SLOT_RANGE) throw invalidParams(`Limit too large; max ${MAX_SLOT_RANGE}`)
    const last = Math.min(
      startSlot + count - 1,
      await slotAt(node, atLeastConfirmed(readConfig(config).commitment)),
    )
    return slotsHeld(node, startSlot, last)
  },

  async getBlock(node, [slotParam, configParam]) {
    const slot = readSlot(slotParam)
    const config = readConfig(typeof configParam === 'string' ? { encoding: configParam } : configParam)
    const render = readRenderOptions(config)
    const commitment = atLeastConfirmed(config.commitment)
    if (slot > (await slotAt(node, commitment))) {
      throw new SolanaRpcError(-32004, `Block not available for slot ${slot}`)
    }
    if (slot < node.simulator.firstAvailableHeight(node.network)) {
      // a node started from a snapshot: older slots are not in its ledger
      throw new SolanaRpcError(
        -32007,
        `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`,
      )
    }
    if (node.simulator.lacksBlock(node.network, slot)) {
      // what a node answers for a block it does not have in long-term storage
      throw new SolanaRpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`)
    }
    const [block] = slot < 1 ? [] : await node.simulator.blockDetails(node.network, slot, slot)
    if (block === undefined) {
      if (slot <= (await node.simulator.finalizedHeight(node.network))) {
        throw new SolanaRpcError(
          -32007,
          `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`,
        )
      }
      throw new SolanaRpcError(-32004, `Block not available for slot ${slot}`)
    }
    return renderSolanaBlock(block, render)
  },

  async getBlockTime(node, [slotParam]) {
    const slot = readSlot(slotParam)
    const [block] = slot < 1 ? [] : await node.simulator.blockDetails(node.network, slot, slot)
    if (block === undefined) throw new SolanaRpcError(-32004, `Block not available for slot ${slot}`)
    return Math.floor(Date.parse(block.time) / 1000)
  },

  // what a node knows of each signature: null when it does not know it (never sent, dropped, or
  // older than its status cache without searchTransactionHistory), else its slot and commitment
  async getSignatureStatuses(node, [signatures, config]) {
    if (!Array.isArray(signatures) || !signatures.every((signature) => typeof signature === 'string')) {
      throw invalidParams('invalid type: expected a sequence of signatures')
    }
    if (signatures.length > MAX_SIGNATURE_STATUSES) {
      throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`)
    }
    readConfig(config)
    const head = (await node.simulator.head(node.network)).height
    const finalized = await node.simulator.finalizedHeight(node.network)
    const value: unknown[] = []
    for (const signature of signatures as string[]) {
      const slot = await node.simulator.transactionHeight(node.network, signature)
      const [block] =
        slot === null || slot === undefined ? [] : await node.simulator.blockDetails(node.network, slot, slot)
      const stored = block?.transactions.find((transaction) => transaction.txHash === signature)
      if (slot === null || slot === undefined || stored === undefined) {
        value.push(null)
        continue
      }
      const err = stored.failure === null ? null : { InstructionError: [0, { Custom: 1 }] }
      const final = slot <= finalized
      value.push({
        slot,
        confirmations: final ? null : head - slot,
        err,
        status: err === null ? { Ok: null } : { Err: err },
        confirmationStatus: final ? 'finalized' : 'confirmed',
      })
    }
    return { context: { apiVersion: API_VERSION, slot: head }, value }
  },

  // the transactions whose account keys (lookup table keys included) hold the address, newest
  // first, failed ones too: a token account receiving SPL is listed, its owner is not
  async getSignaturesForAddress(node, [addressParam, configParam]) {
    const address = readPubkey(addressParam)
    const config = readConfig(configParam)
    const limit = config.limit === undefined ? MAX_SIGNATURES_FOR_ADDRESS : readSlot(config.limit)
    if (limit < 1 || limit > MAX_SIGNATURES_FOR_ADDRESS) {
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`)
    }
    const commitment = atLeastConfirmed(config.commitment)
    let newest = await contextSlot(node, { ...config, commitment })
    const before = readOptionalSignature(config.before)
    const until = readOptionalSignature(config.until)
    // before: listing starts below it; until: listing stops above it
    let listing = true
    if (before !== undefined) {
      // a node that does not know `before` has nothing older to list
      const slot = await node.simulator.transactionHeight(node.network, before)
      if (slot === null || slot === undefined) return []
      if (slot <= newest) {
        newest = slot
        listing = false
      }
    }
    const finalized = await node.simulator.finalizedHeight(node.network)
    const oldest = Math.max(1, node.simulator.firstAvailableHeight(node.network))
    // the listing walks the node's transactions newest first: `until` ends it where it is met
    const untilAt = until === undefined ? undefined : await positionOf(node, until)
    const stop = untilAt !== undefined && untilAt.slot <= newest ? untilAt : undefined
    let start: Position | undefined
    if (!listing) {
      start = await positionOf(node, before as string)
      // a `before` in a block the node lacks is never met: nothing is listed after it
      if (start === undefined) return []
      if (stop !== undefined && !precedes(stop, start)) return []
    }
    const found: unknown[] = []
    const entries = (await addressIndexOf(node)).byAddress.get(address) ?? []
    for (let at = entries.length - 1; at >= 0 && found.length < limit; at--) {
      const entry = entries[at] as IndexedTransaction
      if (entry.slot > newest) continue
      if (entry.slot < oldest) break
      if (start !== undefined && !precedes(entry, start)) continue
      if (stop !== undefined && !precedes(stop, entry)) break
      if (node.simulator.lacksBlock(node.network, entry.slot)) continue
      found.push({
        blockTime: entry.blockTime,
        confirmationStatus: entry.slot <= finalized ? 'finalized' : 'confirmed',
        err: entry.err,
        memo: null,
        signature: entry.signature,
        slot: entry.slot,
      })
    }
    return found
  },

  // the token accounts opened with this owner (ChainSimulator.openTokenAccount), each as the last
  // transaction that touched it left it
  async getTokenAccountsByOwner(node, [ownerParam, filterParam, configParam]) {
    const owner = readPubkey(ownerParam)
    const filter = readConfig(filterParam)
    let mint: string | undefined
    if (filter.mint !== undefined) mint = readPubkey(filter.mint)
    else if (filter.programId !== TOKEN_PROGRAM_ID) {
      throw new SolanaRpcError(-32602, 'Invalid param: unrecognized Token program id')
    }
    const config = readConfig(configParam)
    const encoding = readAccountEncoding(config.encoding)
    const slot = await contextSlot(node, config)
    const accounts = (await node.simulator.tokenAccountsOf(node.network, owner)).filter(
      (account) => mint === undefined || account.mint === mint,
    )
    // what each account holds now, from the ledger, as getAccountInfo answers it
    const value: unknown[] = []
    for (const account of accounts) {
      const state = await node.simulator.solanaAccount(node.network, account.address)
      value.push({ account: ledgerAccount(state, encoding), pubkey: account.address })
    }
    return { context: { apiVersion: API_VERSION, slot }, value }
  },

  // null for a signature the node does not know, holds only in its mempool, or above the commitment
  async getTransaction(node, [signatureParam, configParam]) {
    const signature = readSignature(signatureParam)
    const config = readConfig(typeof configParam === 'string' ? { encoding: configParam } : configParam)
    const render = readRenderOptions(config)
    const highest = await slotAt(node, atLeastConfirmed(config.commitment))
    const found = await transactionAt(node, signature)
    if (found === undefined || found.block.height > highest) return null
    return renderSolanaTransaction(found.block, found.transaction, render)
  },

  async getFirstAvailableBlock(node) {
    return node.simulator.firstAvailableHeight(node.network)
  },

  async minimumLedgerSlot(node) {
    return node.simulator.firstAvailableHeight(node.network)
  },

  // the rent of the default cluster: (128 bytes of account overhead + data) x 3,480 lamports per
  // byte-year x 2 years, 890,880 lamports for a system account (docs/api.md, "Amount floors")
  async getMinimumBalanceForRentExemption(_node, [dataLength]) {
    if (typeof dataLength !== 'number' || !Number.isSafeInteger(dataLength) || dataLength < 0) {
      throw invalidParams('invalid type: expected usize')
    }
    return (128 + dataLength) * 3480 * 2
  },

  async getVersion() {
    return { 'feature-set': FEATURE_SET, 'solana-core': API_VERSION }
  },

  async getHealth() {
    return 'ok'
  },

  async getGenesisHash(node) {
    return GENESIS_HASHES[node.network] ?? OTHER_GENESIS_HASH
  },
}

//////// Commitments and slots

async function slotAt(node: Node, commitment: Commitment): Promise<number> {
  if (commitment === 'finalized') return node.simulator.finalizedHeight(node.network)
  return (await node.simulator.head(node.network)).height
}

/** the slot a context-bound read answers at, honouring minContextSlot as a node does */
async function contextSlot(node: Node, config: Record<string, unknown>): Promise<number> {
  const slot = await slotAt(node, readCommitment(config.commitment))
  const { minContextSlot } = config
  if (minContextSlot !== undefined && readSlot(minContextSlot) > slot) {
    throw new SolanaRpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot })
  }
  return slot
}

/**
 * the slots from `first` to `last` the node has a block of: none below its first available block,
 * and a node that lacks one leaves it out
 */
function slotsHeld(node: Node, first: number, last: number): number[] {
  const oldest = Math.max(first, node.simulator.firstAvailableHeight(node.network))
  return slotsBetween(oldest, last).filter((slot) => !node.simulator.lacksBlock(node.network, slot))
}

function slotsBetween(first: number, last: number): number[] {
  const from = Math.max(1, first)
  return last < from ? [] : Array.from({ length: last - from + 1 }, (_, offset) => from + offset)
}

/** where a transaction sits in the chain: its slot, then its place in the block */
interface Position {
  slot: number
  position: number
}

/** a transaction as getSignaturesForAddress lists it, indexed under every account key it holds */
interface IndexedTransaction extends Position {
  signature: string
  err: unknown
  blockTime: number
}

/**
 * Every account key of every block up to `through`, in chain order: getSignaturesForAddress then
 * costs what an address holds, not the chain's length (a simulated week is 1.5 million slots).
 * Blocks only ever change below the head by a fork, which gives them new hashes: an index whose
 * last block has another hash now is built again.
 */
interface AddressIndex {
  through: number
  throughHash: string | undefined
  byAddress: Map<string, IndexedTransaction[]>
}

const addressIndexes = new WeakMap<ChainSimulator, Map<string, AddressIndex>>()
/** blocks read at once while the index is extended */
const INDEX_BATCH = 1024

async function addressIndexOf(node: Node): Promise<AddressIndex> {
  const byNetwork = addressIndexes.get(node.simulator) ?? new Map<string, AddressIndex>()
  addressIndexes.set(node.simulator, byNetwork)
  let index = byNetwork.get(node.network)
  if (index !== undefined && index.through > 0) {
    const [last] = await node.simulator.blockDetails(node.network, index.through, index.through)
    if (last?.hash !== index.throughHash) index = undefined
  }
  if (index === undefined) {
    index = { through: 0, throughHash: undefined, byAddress: new Map() }
    byNetwork.set(node.network, index)
  }
  const head = (await node.simulator.head(node.network)).height
  while (index.through < head) {
    const last = Math.min(head, index.through + INDEX_BATCH)
    const blocks = await node.simulator.blockDetails(node.network, index.through + 1, last)
    for (const block of blocks) {
      if (block.transactions.length === 0) continue
      const blockTime = Math.floor(Date.parse(block.time) / 1000)
      for (const [position, transaction] of simulatedSolanaTransactions(block).entries()) {
        const entry = {
          slot: block.height,
          position,
          signature: transaction.signature,
          err: transaction.err,
          blockTime,
        }
        for (const key of new Set(transaction.keys.map(({ pubkey }) => pubkey))) {
          const list = index.byAddress.get(key)
          if (list === undefined) index.byAddress.set(key, [entry])
          else list.push(entry)
        }
      }
    }
    index.through = last
    index.throughHash = blocks.at(-1)?.hash
  }
  return index
}

/** where a transaction is in a block the node holds; undefined if it holds none with it */
async function positionOf(node: Node, signature: string): Promise<Position | undefined> {
  const found = await transactionAt(node, signature)
  if (found === undefined) return undefined
  const position = found.block.transactions.findIndex((transaction) => transaction.txHash === signature)
  return { slot: found.block.height, position }
}

/** whether `a` comes before `b` in the chain */
function precedes(a: Position, b: Position): boolean {
  return a.slot < b.slot || (a.slot === b.slot && a.position < b.position)
}

async function blockhashValid(node: Node, blockhash: string): Promise<boolean> {
  const issued = await node.simulator.blockHeightOfHash(node.network, blockhash)
  return blockhashIsRecent(issued, (await node.simulator.head(node.network)).height)
}

/** an account of the ledger in the node's shape; null for one that holds nothing (does not exist) */
function ledgerAccount(state: SolanaAccountState, encoding: AccountEncoding): unknown {
  const { lamports, token, nonce } = state
  if (nonce !== undefined) return renderNonceAccount(lamports, nonce, encoding)
  if (token === undefined) return lamports === 0n ? null : renderAccount(lamports, undefined, encoding)
  const holding: TokenHolding = {
    mint: token.mint,
    owner: token.owner,
    uiTokenAmount: uiTokenAmount(token.amount, token.decimals) as TokenHolding['uiTokenAmount'],
  }
  return renderAccount(lamports, holding, encoding)
}

/** a transaction in the block that holds it, as the node renders it; undefined if it has none */
async function transactionAt(
  node: Node,
  signature: string,
): Promise<{ block: SimulatedBlock; transaction: SolanaTransaction } | undefined> {
  const slot = await node.simulator.transactionHeight(node.network, signature)
  if (slot === null || slot === undefined) return undefined
  if (
    slot < node.simulator.firstAvailableHeight(node.network) ||
    node.simulator.lacksBlock(node.network, slot)
  ) {
    return undefined
  }
  const [block] = await node.simulator.blockDetails(node.network, slot, slot)
  const transaction =
    block && simulatedSolanaTransactions(block).find((candidate) => candidate.signature === signature)
  return block && transaction ? { block, transaction } : undefined
}

//////// Parameters

function readPubkey(value: unknown): string {
  if (typeof value !== 'string' || !decodesTo(value, 32)) throw invalidParam()
  return value
}

function readAccountEncoding(encoding: unknown): AccountEncoding {
  // a node's default is the legacy `binary`, a bare base58 string
  if (encoding === undefined) return 'binary'
  if (encoding === 'binary' || encoding === 'base58' || encoding === 'base64' || encoding === 'jsonParsed')
    return encoding
  throw invalidParams(
    `encoding ${String(encoding)} is not served by the simulator; use binary, base58, base64 or jsonParsed`,
  )
}

function readSignature(value: unknown): string {
  if (typeof value !== 'string' || !decodesTo(value, 64)) throw invalidParam()
  return value
}

function readOptionalSignature(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : readSignature(value)
}

function decodesTo(text: string, length: number): boolean {
  try {
    return base58.decode(text).length === length
  } catch {
    return false
  }
}

/** what a node answers for a key or signature that is not one */
function invalidParam(): SolanaRpcError {
  return new SolanaRpcError(-32602, 'Invalid param: Invalid')
}

function readConfig(config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object' || Array.isArray(config)) {
    throw invalidParams('invalid type: expected a configuration object')
  }
  return config as Record<string, unknown>
}

function readCommitment(commitment: unknown): Commitment {
  // a node's default commitment is finalized
  if (commitment === undefined) return 'finalized'
  if (commitment === 'processed' || commitment === 'confirmed' || commitment === 'finalized') {
    return commitment
  }
  throw invalidParams(
    `unknown variant \`${String(commitment)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``,
  )
}

function atLeastConfirmed(commitment: unknown): Commitment {
  const level = readCommitment(commitment)
  if (level === 'processed') throw invalidParams('Method does not support commitment below `confirmed`')
  return level
}

function readSlot(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidParams(`invalid type: ${JSON.stringify(value) ?? 'nothing'}, expected u64`)
  }
  return value
}

const ENCODINGS: readonly BlockEncoding[] = ['json', 'jsonParsed']
const DETAILS: readonly TransactionDetails[] = ['full', 'accounts', 'signatures', 'none']

function readRenderOptions(config: Record<string, unknown>): BlockRenderOptions {
  const encoding = config.encoding ?? 'json'
  if (!ENCODINGS.includes(encoding as BlockEncoding)) {
    // base58 and base64 need signed wire transactions, which the simulator does not make
    throw invalidParams(`encoding ${String(encoding)} is not served by the simulator; use json or jsonParsed`)
  }
  const transactionDetails = config.transactionDetails ?? 'full'
  if (!DETAILS.includes(transactionDetails as TransactionDetails)) {
    throw invalidParams(
      `unknown variant \`${String(transactionDetails)}\`, expected one of \`full\`, \`signatures\`, \`none\`, \`accounts\``,
    )
  }
  const { rewards, maxSupportedTransactionVersion } = config
  if (rewards !== undefined && typeof rewards !== 'boolean') throw invalidParams('rewards must be a boolean')
  if (maxSupportedTransactionVersion !== undefined) readSlot(maxSupportedTransactionVersion)
  return {
    encoding: encoding as BlockEncoding,
    transactionDetails: transactionDetails as TransactionDetails,
    rewards: rewards ?? true,
    maxSupportedTransactionVersion: maxSupportedTransactionVersion as number | undefined,
  }
}

function invalidParams(reason: string): SolanaRpcError {
  return new SolanaRpcError(-32602, `Invalid params: ${reason}.`)
}

//////// Replies

/** JSON with u64 values (bigint) written as the exact integers a node writes */
function sendJson(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type('application/json').send(nodeJson(value))
}

// What a simulated Solana node knows, in the node's terms: the slot at each commitment and
// minContextSlot, block times, signature statuses, the transactions holding an address, a
// transaction in its block, whether an account exists. One definition for the JSON-RPC routes
// (solana-rpc-routes.ts), the websocket pubsub (solana-pubsub.ts) and the in-process address reader
// (simulator-address-reader.ts), so that all three answer alike. Slots are the simulator's block
// heights; `processed` and `confirmed` stand at the head, `finalized` at the finalized height.
import type { ChainSimulator, SimulatedBlock, SolanaAccountState } from './simulator.js'
import {
  SolanaRpcError,
  type SolanaTransaction,
  simulatedSolanaTransactions,
  solanaRecordErr,
} from './solana-rpc-blocks.js'

export type Commitment = 'processed' | 'confirmed' | 'finalized'

export interface SolanaNode {
  simulator: ChainSimulator
  network: string
  /** slots this node is behind the simulator's head: it answers as a lagging node does */
  behind?: number | undefined
}

/** getSignatureStatuses' entry for a signature the node holds */
export interface SignatureStatus {
  slot: number
  confirmations: number | null
  err: SolanaTransaction['err']
  status: { Ok: null } | { Err: SolanaTransaction['err'] }
  confirmationStatus: 'confirmed' | 'finalized'
}

/** getSignaturesForAddress' entry */
export interface AddressSignature {
  blockTime: number
  confirmationStatus: 'confirmed' | 'finalized'
  err: SolanaTransaction['err']
  memo: null
  signature: string
  slot: number
}

export async function slotAt(node: SolanaNode, commitment: Commitment): Promise<number> {
  const head = Math.max(0, (await node.simulator.head(node.network)).height - (node.behind ?? 0))
  if (commitment === 'finalized') return Math.min(head, await node.simulator.finalizedHeight(node.network))
  return head
}

/** the slot a context-bound read answers at; a node below `minContextSlot` refuses (-32016) */
export async function contextSlotAt(
  node: SolanaNode,
  commitment: Commitment,
  minContextSlot: number | undefined,
): Promise<number> {
  const slot = await slotAt(node, commitment)
  if (minContextSlot !== undefined && minContextSlot > slot) {
    throw new SolanaRpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot })
  }
  return slot
}

/** getBlockTime: the block's time in whole seconds */
export async function blockTimeAt(node: SolanaNode, slot: number): Promise<number> {
  const [block] = slot < 1 ? [] : await node.simulator.blockDetails(node.network, slot, slot)
  if (block === undefined) throw new SolanaRpcError(-32004, `Block not available for slot ${slot}`)
  return Math.floor(Date.parse(block.time) / 1000)
}

/**
 * what the node knows of each signature, at its head: null when it does not know it (never sent,
 * dropped by a fork), else its slot and commitment
 */
export async function signatureStatuses(
  node: SolanaNode,
  signatures: readonly string[],
): Promise<{ contextSlot: number; value: Array<SignatureStatus | null> }> {
  const head = await slotAt(node, 'processed')
  const finalized = await slotAt(node, 'finalized')
  const value: Array<SignatureStatus | null> = []
  for (const signature of signatures) {
    const slot = await node.simulator.transactionHeight(node.network, signature)
    const [block] =
      slot === null || slot === undefined ? [] : await node.simulator.blockDetails(node.network, slot, slot)
    const stored = block?.transactions.find((transaction) => transaction.txHash === signature)
    // a node behind the chain does not know it yet
    if (slot === null || slot === undefined || stored === undefined || slot > head) {
      value.push(null)
      continue
    }
    // a signed transaction's own error, as getTransaction's meta.err has it; a dev route's, the blocks'
    const err =
      stored.failure === null
        ? null
        : stored.solanaRecord === undefined
          ? { InstructionError: [0, { Custom: 1 }] }
          : solanaRecordErr(stored.solanaRecord)
    const final = slot <= finalized
    value.push({
      slot,
      confirmations: final ? null : head - slot,
      err,
      status: err === null ? { Ok: null } : { Err: err },
      confirmationStatus: final ? 'finalized' : 'confirmed',
    })
  }
  return { contextSlot: head, value }
}

/**
 * the transactions whose account keys (lookup table keys included) hold the address, newest first,
 * failed ones too, below `before` and above `until`: a token account receiving SPL is listed, its
 * owner only where the transaction names it. Read from the address index (addressIndexOf): a
 * listing costs what the address holds, not the chain's length.
 */
export async function signaturesForAddress(
  node: SolanaNode,
  address: string,
  options: {
    commitment: Commitment
    minContextSlot?: number | undefined
    before?: string | undefined
    until?: string | undefined
    limit: number
  },
): Promise<AddressSignature[]> {
  const { before, until, limit } = options
  let newest = await contextSlotAt(node, options.commitment, options.minContextSlot)
  // before: listing starts below it; until: listing stops above it
  let start: Position | undefined
  if (before !== undefined) {
    // a node that does not know `before` has nothing older to list
    const slot = await node.simulator.transactionHeight(node.network, before)
    if (slot === null || slot === undefined) return []
    if (slot <= newest) {
      newest = slot
      start = await positionOf(node, before)
      // a `before` in a block the node lacks is never met: nothing is listed after it
      if (start === undefined) return []
    }
  }
  // the listing goes newest first: `until` ends it where it is met, in a block the node holds
  const untilAt = until === undefined ? undefined : await positionOf(node, until)
  const stop = untilAt !== undefined && untilAt.slot <= newest ? untilAt : undefined
  if (start !== undefined && stop !== undefined && !precedes(stop, start)) return []
  const finalized = await node.simulator.finalizedHeight(node.network)
  const oldest = Math.max(1, node.simulator.firstAvailableHeight(node.network))
  const entries = (await addressIndexOf(node)).byAddress.get(address) ?? []
  const found: AddressSignature[] = []
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
}

export function mentions(transaction: SolanaTransaction, address: string): boolean {
  return transaction.keys.some((key) => key.pubkey === address)
}

/**
 * a transaction in the block that holds it, as the node renders it; undefined if the node does not
 * hold it at the commitment (unknown, in the mempool, dropped, in a block the node lacks)
 */
export async function transactionAt(
  node: SolanaNode,
  signature: string,
  commitment: Commitment,
): Promise<{ block: SimulatedBlock; transaction: SolanaTransaction } | undefined> {
  const slot = await node.simulator.transactionHeight(node.network, signature)
  if (slot === null || slot === undefined || slot > (await slotAt(node, commitment))) return undefined
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

/** whether the account exists: a node answers null for one that holds nothing */
export function accountExists(state: SolanaAccountState): boolean {
  return (
    state.nonce !== undefined ||
    state.token !== undefined ||
    state.mint !== undefined ||
    state.lamports !== 0n
  )
}

/** where a transaction sits in the chain: its slot, then its place in the block */
interface Position {
  slot: number
  position: number
}

/** a transaction as getSignaturesForAddress lists it, indexed under every account key it holds */
interface IndexedTransaction extends Position {
  signature: string
  err: SolanaTransaction['err']
  blockTime: number
}

/**
 * Every account key of every block up to `through`, in chain order: a simulated week is 1.5 million
 * slots, which a listing walked from the head would read again and again. Blocks only ever change
 * below the head by a fork (ChainSimulator.dropTransaction), which gives the block it starts at and
 * every later one new hashes: an index whose last block has another hash now is built again.
 */
interface AddressIndex {
  through: number
  throughHash: string | undefined
  byAddress: Map<string, IndexedTransaction[]>
}

const addressIndexes = new WeakMap<ChainSimulator, Map<string, AddressIndex>>()
/** blocks read at once while the index is extended */
const INDEX_BATCH = 1024

async function addressIndexOf(node: SolanaNode): Promise<AddressIndex> {
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
        const entry: IndexedTransaction = {
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

/** where a transaction is, in a block the node holds; undefined if it holds none with it */
async function positionOf(node: SolanaNode, signature: string): Promise<Position | undefined> {
  const slot = await node.simulator.transactionHeight(node.network, signature)
  if (slot === null || slot === undefined) return undefined
  if (
    slot < node.simulator.firstAvailableHeight(node.network) ||
    node.simulator.lacksBlock(node.network, slot)
  ) {
    return undefined
  }
  const [block] = await node.simulator.blockDetails(node.network, slot, slot)
  const position = block?.transactions.findIndex((transaction) => transaction.txHash === signature) ?? -1
  return position < 0 ? undefined : { slot, position }
}

/** whether `a` comes before `b` in the chain */
function precedes(a: Position, b: Position): boolean {
  return a.slot < b.slot || (a.slot === b.slot && a.position < b.position)
}

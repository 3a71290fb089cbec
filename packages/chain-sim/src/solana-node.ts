// What a simulated Solana node knows, in the node's terms: the slot at each commitment and
// minContextSlot, block times, signature statuses, the transactions holding an address, a
// transaction in its block, whether an account exists. One definition for the JSON-RPC routes
// (solana-rpc-routes.ts), the websocket pubsub (solana-pubsub.ts) and the in-process address reader
// (simulator-address-reader.ts), so that all three answer alike. Slots are the simulator's block
// heights; `processed` and `confirmed` stand at the head, `finalized` at the finalized height.
import type { ChainSimulator, SimulatedBlock, SolanaAccountState } from './simulator.js'
import { SolanaRpcError, type SolanaTransaction, simulatedSolanaTransactions } from './solana-rpc-blocks.js'

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

/** how many blocks the simulator reads at once while looking for an address */
const SEARCH_BATCH = 256

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
  return { contextSlot: head, value }
}

/**
 * the transactions whose account keys (lookup table keys included) hold the address, newest first,
 * failed ones too, below `before` and above `until`: a token account receiving SPL is listed, its
 * owner only where the transaction names it
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
  const found: AddressSignature[] = []
  for await (const { block, transaction } of transactionsNewestFirst(node, newest)) {
    if (transaction.signature === until) break
    if (!listing) {
      listing = transaction.signature === before
      continue
    }
    if (!mentions(transaction, address)) continue
    found.push({
      blockTime: Math.floor(Date.parse(block.time) / 1000),
      confirmationStatus: block.height <= finalized ? 'finalized' : 'confirmed',
      err: transaction.err,
      memo: null,
      signature: transaction.signature,
      slot: block.height,
    })
    if (found.length === limit) break
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

/** the node's transactions from slot `newest` down to its first available block, newest first */
async function* transactionsNewestFirst(
  node: SolanaNode,
  newest: number,
): AsyncGenerator<{ block: SimulatedBlock; transaction: SolanaTransaction }> {
  const oldest = Math.max(1, node.simulator.firstAvailableHeight(node.network))
  for (let top = newest; top >= oldest; top -= SEARCH_BATCH) {
    const blocks = await node.simulator.blockDetails(
      node.network,
      Math.max(oldest, top - SEARCH_BATCH + 1),
      top,
    )
    for (const block of blocks.reverse()) {
      if (node.simulator.lacksBlock(node.network, block.height)) continue
      for (const transaction of simulatedSolanaTransactions(block).reverse()) yield { block, transaction }
    }
  }
}

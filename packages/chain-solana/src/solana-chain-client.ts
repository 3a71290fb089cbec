// The chain port over a Solana JSON-RPC node with @solana/web3.js: the head at `confirmed` with
// the `finalized` slot beside it, and blocks as getBlocks lists them at `confirmed`, each read with
// accounts only (keys and balance changes: what a transfer is read from, solana-transfers.ts in
// @chainpay/ports). A slot is a height; a slot without a block is absent, but only once the chain of
// parent slots shows it skipped: a node may lack a block (a ledger jump to a recent snapshot,
// long-term storage), and neither its getBlocks list nor its -32007/-32009 tell that apart from a
// skipped slot (docs/chains.md, "When a node lacks a block"). A block it lacks is a ChainRpcError 'unavailable': unknown, ask again later or elsewhere.
import { type AssetRegistry, findNetwork } from '@chainpay/domain'
import {
  type ChainBlock,
  type ChainClient,
  ChainRpcError,
  type ChainTransfer,
  solanaTransferFilter,
  solanaTransfersOf,
} from '@chainpay/ports'
import { type AccountsModeBlock, getAccountsModeBlock } from './accounts-mode-block.js'
import { createSolanaConnection, type SolanaConnectionOptions } from './solana-connection.js'
import { isMissingBlock, toChainRpcError, whereAndRedactor } from './solana-rpc-errors.js'

export interface SolanaChainClientOptions
  extends Pick<SolanaConnectionOptions, 'rpcUrl' | 'fallbacks' | 'timeoutMs' | 'headers' | 'logger'> {
  /** the registry's network name, e.g. SOLANA or SOLANA_DEVNET */
  network: string
  registry: AssetRegistry
}

/** a block with the slot of its parent: what shows that the slots between them were skipped */
interface LinkedBlock {
  block: ChainBlock
  parentSlot: number
}

const DEFAULT_TIMEOUT_MS = 10_000
/**
 * A transaction's recent blockhash is valid for 150 blocks after the block it names, which is at or
 * before the block that included it: past 150 blocks after its block, no fork can include it again.
 * 150 blocks are 60 s at 400 ms; twice that leaves room for skipped slots (docs/chains.md, "Forks").
 */
export const BLOCKHASH_EXPIRY_MS = 2 * 150 * 400
/** how far after a range to look for the block that shows its last slots skipped */
const NEXT_BLOCK_LOOKAHEAD = 100
/** what a node lists in one getBlocks call at most (MAX_GET_CONFIRMED_BLOCKS_RANGE) */
const MAX_SLOTS_PER_LIST = 500_000
/** getBlock calls in flight at once while reading a range */
const BLOCK_READS_IN_FLIGHT = 4

export function createSolanaChainClient(options: SolanaChainClientOptions): ChainClient {
  const { network, registry, rpcUrl } = options
  if (findNetwork(registry, network)?.chain !== 'SOLANA') {
    throw new Error(`Solana chain client: ${network} is not a Solana network of the asset registry`)
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new Error(`Solana chain client: timeoutMs must be a positive integer, got ${timeoutMs}`)
  }
  const filter = solanaTransferFilter(registry, network)
  const { where, redact } = whereAndRedactor(network, [
    rpcUrl,
    ...(options.fallbacks ?? []).map((node) => node.rpcUrl),
  ])
  const connection = createSolanaConnection({ ...options, timeoutMs })

  async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw toChainRpcError(error, `Solana ${method} on ${where}`, redact)
    }
  }

  /** the block at `slot` with its parent slot, or undefined when this node answers it has none */
  async function readBlock(slot: number): Promise<LinkedBlock | undefined> {
    let block: AccountsModeBlock | null
    try {
      // accounts only: keys and balance changes, no instructions (accounts-mode-block.ts)
      block = await getAccountsModeBlock(connection, slot)
    } catch (error) {
      // listed a moment ago and missing now: skipped (its fork abandoned) or lacking on this node;
      // the parent slots decide which (provenComplete)
      if (isMissingBlock(error)) return undefined
      throw toChainRpcError(error, `Solana getBlock ${slot} on ${where}`, redact)
    }
    if (block === null) return undefined
    let transfers: ChainTransfer[]
    const time = blockTime(block.blockTime, slot)
    // the latest a transaction of this block could be included again after a fork popped it
    const expiresAt = new Date(Date.parse(time) + BLOCKHASH_EXPIRY_MS).toISOString()
    try {
      transfers = block.transactions.flatMap((transaction) =>
        solanaTransfersOf(transaction, filter).map((transfer) => ({ ...transfer, expiresAt })),
      )
    } catch (error) {
      throw toChainRpcError(error, `Solana block ${slot} on ${where}`, redact)
    }
    return {
      block: {
        height: slot,
        hash: block.blockhash,
        parentHash: block.previousBlockhash,
        time,
        transfers,
      },
      parentSlot: block.parentSlot,
    }
  }

  /**
   * the parent slot of the first block after `slot` at `confirmed`, or undefined when none is
   * there yet: what shows whether the slots before it that no block was read for are skipped
   */
  async function parentSlotAfter(slot: number): Promise<number | undefined> {
    // web3.js has no getBlocksWithLimit; a short range finds the next block all the same
    const [next] = await call(`getBlocks ${slot + 1}..${slot + NEXT_BLOCK_LOOKAHEAD}`, () =>
      connection.getBlocks(slot + 1, slot + NEXT_BLOCK_LOOKAHEAD, 'confirmed'),
    )
    if (next === undefined) return undefined
    let block: { parentSlot: number } | null
    try {
      block = await connection.getParsedBlock(next, {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
        transactionDetails: 'none',
        rewards: false,
      })
    } catch (error) {
      throw toChainRpcError(error, `Solana getBlock ${next} on ${where}`, redact)
    }
    if (block === null) {
      throw new ChainRpcError('unavailable', `Solana getBlock ${next} on ${where}: no block at a listed slot`)
    }
    return block.parentSlot
  }

  /**
   * Throws 'unavailable' unless every slot from `fromSlot` to `toSlot` without a block in `read`
   * is skipped on the chain: walking down the parent slots from the newest block (the first one
   * after `toSlot` when the range ends in slots without a block), every parent at or above
   * `fromSlot` must be a block that was read. A parent that was not is a block this node lacks.
   */
  async function provenComplete(read: LinkedBlock[], fromSlot: number, toSlot: number): Promise<void> {
    const bySlot = new Map(read.map((linked) => [linked.block.height, linked]))
    const newest = read.at(-1)
    let parent = newest?.block.height === toSlot ? newest.parentSlot : await parentSlotAfter(toSlot)
    // nothing after the range yet: the slots after the newest block are not produced yet
    if (parent === undefined) parent = newest?.parentSlot
    // slot 0, the genesis, carries no transfer: a node need not serve it
    while (parent !== undefined && parent >= Math.max(fromSlot, 1)) {
      const linked = bySlot.get(parent)
      if (linked === undefined) {
        throw new ChainRpcError(
          'unavailable',
          `Solana ${where} lacks the block at slot ${parent}, which the chain holds (a later block names it as its parent)`,
        )
      }
      parent = linked.parentSlot
    }
  }

  function blockTime(seconds: number | null, slot: number): string {
    if (seconds === null || !Number.isSafeInteger(seconds)) {
      throw new ChainRpcError('bad-response', `Solana block ${slot} on ${where} has no block time`)
    }
    return new Date(seconds * 1000).toISOString()
  }

  return {
    network,

    async getHead() {
      const [slot, finalized] = await Promise.all([
        call('getSlot confirmed', () => connection.getSlot('confirmed')),
        call('getSlot finalized', () => connection.getSlot('finalized')),
      ])
      const block = await call(`getBlock ${slot}`, () =>
        connection.getParsedBlock(slot, {
          commitment: 'confirmed',
          maxSupportedTransactionVersion: 0,
          transactionDetails: 'none',
          rewards: false,
        }),
      )
      if (block === null) {
        throw new ChainRpcError('unavailable', `Solana getBlock ${slot} on ${where}: no block at the head`)
      }
      // behind a load balancer the finalized answer may come from a node ahead of the confirmed one
      const finalizedHeight = Math.min(finalized, slot)
      return { height: slot, hash: block.blockhash, time: blockTime(block.blockTime, slot), finalizedHeight }
    },

    // Where the finalized chain has the transaction: one getSignatureStatuses call instead of
    // re-reading its block (docs/chains.md, "Forks: transfers in doubt"). Not known, or known only
    // at confirmed: not final (yet).
    async finalInclusion(txHash) {
      const { value } = await call('getSignatureStatuses', () =>
        connection.getSignatureStatuses([txHash], { searchTransactionHistory: true }),
      )
      const [status] = value
      if (status === null || status === undefined || status.confirmationStatus !== 'finalized')
        return undefined
      return { blockHeight: status.slot, success: status.err === null }
    },

    // a node started from a snapshot has no older block (docs/chains.md, "Backfill")
    firstAvailableHeight: () => call('getFirstAvailableBlock', () => connection.getFirstAvailableBlock()),

    async getBlocks(fromHeight, toHeight) {
      if (!Number.isSafeInteger(fromHeight) || !Number.isSafeInteger(toHeight)) {
        throw new RangeError(`block heights must be integers, got ${fromHeight}..${toHeight}`)
      }
      const slots: number[] = []
      for (let first = Math.max(0, fromHeight); first <= toHeight; first += MAX_SLOTS_PER_LIST) {
        const last = Math.min(toHeight, first + MAX_SLOTS_PER_LIST - 1)
        const listed = await call(`getBlocks ${first}..${last}`, () =>
          connection.getBlocks(first, last, 'confirmed'),
        )
        slots.push(...listed.filter((slot) => slot >= first && slot <= last))
      }
      const read = (
        await mapInFlight(
          [...new Set(slots)].sort((a, b) => a - b),
          readBlock,
        )
      ).filter((linked): linked is LinkedBlock => linked !== undefined)
      await provenComplete(read, Math.max(0, fromHeight), toHeight)
      return read.map((linked) => linked.block)
    },
  }
}

/** `work` over `items` with at most BLOCK_READS_IN_FLIGHT running, results in the items' order */
async function mapInFlight<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (next < items.length && !failed) {
      const position = next++
      try {
        results[position] = await work(items[position] as T)
      } catch (error) {
        // the range fails as a whole: no point reading the rest
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(BLOCK_READS_IN_FLIGHT, items.length) }, worker))
  return results
}

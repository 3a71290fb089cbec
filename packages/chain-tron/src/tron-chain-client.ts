// The chain port over a java-tron full node (and its solidity node), or TronGrid, through tronweb.
// The head is getnowblock, whose answer is the whole head block: kept, so that reading the head
// block right after costs only its receipts. Other blocks come 100 at a time from
// getblockbylimitnext, with gettransactioninfobyblocknum for the blocks that call contracts (their
// TRC20 logs and internal TRX). Finality is asked per transaction of the solidity node
// (walletsolidity/gettransactioninfobyid), once, instead of reading its head every pass
// (docs/chains.md, "Call budget").
import { type AssetRegistry, findNetwork } from '@chainpay/domain'
import {
  type ChainBlock,
  type ChainClient,
  type ChainHead,
  ChainRpcError,
  type FinalInclusion,
} from '@chainpay/ports'
import {
  needsTransactionInfos,
  readTransactionInfos,
  readTronBlock,
  type TronBlockBody,
  toChainBlock,
  tronTokenContracts,
} from './tron-block-parser.js'
import { toChainRpcError } from './tron-rpc-errors.js'
import { createTronWeb, type TronNodeOptions } from './tron-web.js'

export interface TronChainClientOptions extends Omit<TronNodeOptions, 'timeoutMs'> {
  /** a TRON network of the registry, e.g. TRON or TRON_NILE */
  network: string
  registry: AssetRegistry
  /** per request; default 10 s */
  timeoutMs?: number | undefined
  /**
   * the head carries finalizedHeight, read from walletsolidity/getnowblock: one more call per head,
   * for a one-off check (chainpay chain check), never for the indexer, which asks per transaction
   */
  readFinalizedHeight?: boolean | undefined
}

/** java-tron's getblockbylimitnext limit */
const MAX_BLOCKS_PER_REQUEST = 100
/** receipt requests in flight at once while reading a range */
const RECEIPT_CONCURRENCY = 4
const DEFAULT_TIMEOUT_MS = 10_000

export function createTronChainClient(options: TronChainClientOptions): ChainClient {
  const { network, registry, apiKey } = options
  const definition = findNetwork(registry, network)
  if (definition?.chain !== 'TRON') {
    throw new Error(`TRON chain client: ${network} is not a TRON network of the registry`)
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new Error('TRON chain client: timeoutMs must be a positive integer')
  }
  const tokens = tronTokenContracts(registry, network)
  const tronWeb = createTronWeb({ ...options, timeoutMs })

  async function call<T>(endpoint: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      throw toChainRpcError(error, `${network} ${endpoint}`, apiKey)
    }
  }

  async function withTransfers(block: TronBlockBody): Promise<ChainBlock> {
    if (!needsTransactionInfos(block)) return toChainBlock(block, new Map(), tokens)
    const endpoint = 'wallet/gettransactioninfobyblocknum'
    const raw = await call(endpoint, () => tronWeb.fullNode.request(endpoint, { num: block.height }, 'post'))
    return toChainBlock(block, readTransactionInfos(raw, `${network} ${endpoint} ${block.height}`), tokens)
  }

  /** every failure as a ChainRpcError without the API key, the reading of the answers included */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      throw toChainRpcError(error, network, apiKey)
    }
  }

  /** the body of the last head read: the block the indexer reads next when it is caught up */
  let lastHead: TronBlockBody | undefined
  let firstAvailable: number | undefined

  async function readHead(): Promise<ChainHead> {
    const latest = await call('wallet/getnowblock', () => tronWeb.trx.getCurrentBlock())
    const head = readTronBlock(latest, `${network} wallet/getnowblock`)
    if (head === undefined) {
      throw new ChainRpcError('unavailable', `${network} wallet/getnowblock: the node has no block yet`)
    }
    lastHead = head
    const { height, hash, time } = head
    if (options.readFinalizedHeight !== true) return { height, hash, time }
    const solidified = await call('walletsolidity/getnowblock', () => tronWeb.trx.getConfirmedCurrentBlock())
    const final = readTronBlock(solidified, `${network} walletsolidity/getnowblock`)
    if (final === undefined) return { height, hash, time }
    // behind a load balancer the solidity node can be ahead of the full node just read
    return { height, hash, time, finalizedHeight: Math.min(final.height, height) }
  }

  async function readRange(fromHeight: number, toHeight: number): Promise<ChainBlock[]> {
    const kept = lastHead
    if (kept !== undefined && toHeight === kept.height && fromHeight <= toHeight) {
      const below = fromHeight < toHeight ? await readRange(fromHeight, toHeight - 1) : []
      // the kept head is still the block at its height only if the blocks below lead to it
      const linked = below.length === 0 || below.at(-1)?.hash === kept.parentHash
      if (linked && (below.length > 0 || fromHeight === toHeight))
        return [...below, await withTransfers(kept)]
    }
    const blocks: ChainBlock[] = []
    for (let start = Math.max(fromHeight, 0); start <= toHeight; start += MAX_BLOCKS_PER_REQUEST) {
      const end = Math.min(toHeight, start + MAX_BLOCKS_PER_REQUEST - 1)
      const endpoint = 'wallet/getblockbylimitnext'
      const what = `${network} ${endpoint} ${start}..${end}`
      // the raw answer rather than trx.getBlockRange, which reads any body without `block` as no blocks
      const raw = await call(endpoint, () =>
        tronWeb.fullNode.request(endpoint, { startNum: start, endNum: end + 1 }, 'post'),
      )
      const bodies = uniqueAscending(
        readBlockList(raw, what).flatMap(
          (block, position) => readTronBlock(block, `${what} [${position}]`) ?? [],
        ),
      ).filter((block) => block.height >= start && block.height <= end)
      blocks.push(...(await mapInOrder(bodies, RECEIPT_CONCURRENCY, withTransfers)))
      // TRON has a block at every height up to its head: a short answer means the head was reached
      if ((bodies.at(-1)?.height ?? -1) < end) break
    }
    return blocks
  }

  /** the receipt on the solidified chain; `{}` (not solidified, or unknown) reads as undefined */
  async function readFinalInclusion(txHash: string): Promise<FinalInclusion | undefined> {
    const endpoint = 'walletsolidity/gettransactioninfobyid'
    const raw = await call(endpoint, () => tronWeb.trx.getTransactionInfo(txHash))
    const [info] = readTransactionInfos(
      raw === undefined ? {} : [raw].filter(isNonEmpty),
      `${network} ${endpoint}`,
    ).values()
    if (info === undefined) return undefined
    // receipt.result is absent for a TRX transfer; a failed call says FAILED in `result`
    const failed = (raw as { result?: unknown }).result === 'FAILED'
    const success = !failed && (info.result === undefined || info.result === 'SUCCESS')
    return { blockHeight: info.blockNumber, success }
  }

  /**
   * The lowest block the node has: a java-tron lite full node (started from a snapshot) answers `{}`
   * for older ones. Block 1 answers on a full-history node (one call); otherwise a binary search
   * over getblockbynum, once per client.
   */
  async function readFirstAvailableHeight(): Promise<number> {
    if (firstAvailable !== undefined) return firstAvailable
    const has = async (height: number) => {
      const raw = await call('wallet/getblockbynum', () =>
        tronWeb.fullNode.request('wallet/getblockbynum', { num: height }, 'post'),
      )
      return readTronBlock(raw, `${network} wallet/getblockbynum ${height}`) !== undefined
    }
    let low = 1
    let high = (await readHead()).height
    if (!(await has(low))) {
      while (low < high) {
        const middle = Math.floor((low + high) / 2)
        if (await has(middle)) high = middle
        else low = middle + 1
      }
    }
    firstAvailable = low
    return low
  }

  return {
    network,
    getHead: () => guarded(readHead),
    finalInclusion: (txHash) => guarded(() => readFinalInclusion(txHash)),
    firstAvailableHeight: () => guarded(readFirstAvailableHeight),
    async getBlocks(fromHeight, toHeight) {
      if (!Number.isSafeInteger(fromHeight) || !Number.isSafeInteger(toHeight)) {
        throw new RangeError(`block heights must be integers, got ${fromHeight}..${toHeight}`)
      }
      return guarded(() => readRange(fromHeight, toHeight))
    },
  }
}

/** getblockbylimitnext's `{"block": [...]}`; `{}` when there are none */
function readBlockList(raw: unknown, what: string): unknown[] {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const answer = raw as Record<string, unknown>
    if (Array.isArray(answer.block)) return answer.block
    if (Object.keys(answer).length === 0) return []
    if (typeof answer.Error === 'string') {
      throw new ChainRpcError(
        'bad-response',
        `TRON node answer: ${what}: the node answered ${answer.Error.slice(0, 200)}`,
      )
    }
  }
  throw new ChainRpcError('bad-response', `TRON node answer: ${what}: expected {"block": [...]}`)
}

function isNonEmpty(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0
}

function uniqueAscending(blocks: TronBlockBody[]): TronBlockBody[] {
  const byHeight = new Map(blocks.map((block) => [block.height, block]))
  return [...byHeight.values()].sort((left, right) => left.height - right.height)
}

/** `work` over `items` with at most `limit` running at once; results in the items' order */
async function mapInOrder<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const position = next++
      results[position] = await work(items[position] as T)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

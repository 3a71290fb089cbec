// The chain port over a java-tron full node (and its solidity node), or TronGrid, through tronweb.
// The head is getnowblock, the final height walletsolidity/getnowblock; blocks come 100 at a time
// from getblockbylimitnext, with gettransactioninfobyblocknum for the blocks that call contracts.
import { type AssetRegistry, findNetwork } from '@chainpay/domain'
import { type ChainBlock, type ChainClient, type ChainHead, ChainRpcError } from '@chainpay/ports'
import { providers, TronWeb } from 'tronweb'
import { parseExactJson } from './exact-json.js'
import {
  needsTransactionInfos,
  readTransactionInfos,
  readTronBlock,
  type TronBlockBody,
  toChainBlock,
  tronTokenContracts,
} from './tron-block-parser.js'
import { toChainRpcError } from './tron-rpc-errors.js'

export interface TronChainClientOptions {
  /** a TRON network of the registry, e.g. TRON or TRON_NILE */
  network: string
  registry: AssetRegistry
  /** e.g. https://api.trongrid.io, or http://host:port/chains/TRON on the simulator */
  fullNodeUrl: string
  /** where walletsolidity/* is served; default the full node's URL (TronGrid serves both) */
  solidityNodeUrl?: string | undefined
  /** sent as the TRON-PRO-API-KEY header */
  apiKey?: string | undefined
  /** per request; default 10 s */
  timeoutMs?: number | undefined
  /** more headers on every request (the simulator's X-Simulator-Token) */
  headers?: Record<string, string> | undefined
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
  const headers: Record<string, string> = {
    ...options.headers,
    ...(apiKey ? { 'TRON-PRO-API-KEY': apiKey } : {}),
  }
  // Providers built here rather than TronWeb's `headers` option, which rebuilds them with a 30 s
  // timeout; their JSON parsing keeps int64 values above 2^53 (TRX amounts) exact.
  const provider = (url: string) => {
    const built = new providers.HttpProvider(url, timeoutMs, '', '', headers)
    ;(built.instance as unknown as { defaults: { transformResponse: unknown } }).defaults.transformResponse =
      [parseExactJson]
    return built
  }
  const tronWeb = new TronWeb({
    fullNode: provider(options.fullNodeUrl),
    solidityNode: provider(options.solidityNodeUrl ?? options.fullNodeUrl),
  })

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

  async function readHead(): Promise<ChainHead> {
    const [latest, solidified] = await Promise.all([
      call('wallet/getnowblock', () => tronWeb.trx.getCurrentBlock()),
      call('walletsolidity/getnowblock', () => tronWeb.trx.getConfirmedCurrentBlock()),
    ])
    const head = readTronBlock(latest, `${network} wallet/getnowblock`)
    if (head === undefined) {
      throw new ChainRpcError('unavailable', `${network} wallet/getnowblock: the node has no block yet`)
    }
    const final = readTronBlock(solidified, `${network} walletsolidity/getnowblock`)
    const { height, hash, time } = head
    if (final === undefined) return { height, hash, time }
    // behind a load balancer the solidity node can be ahead of the full node just read
    return { height, hash, time, finalizedHeight: Math.min(final.height, height) }
  }

  async function readRange(fromHeight: number, toHeight: number): Promise<ChainBlock[]> {
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

  return {
    network,
    getHead: () => guarded(readHead),
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

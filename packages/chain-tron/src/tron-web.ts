// One TronWeb for a network's nodes, as every chainpay TRON client builds it: providers built here
// rather than TronWeb's `headers` option, which rebuilds them with a 30 s timeout; their JSON parsing
// keeps int64 values above 2^53 (TRX amounts) exact. With several endpoints, each request goes to
// them in order, on to the next when one fails, rate limits or is behind (@chainpay/rpc-failover;
// docs/chains.md, "Several endpoints per network"); wallet/getnowblock's block number is an
// endpoint's head, compared with the others' (asked too, once a minute).

import { createRpcEndpointPool, endpointOrigin, type FailoverLogger } from '@chainpay/rpc-failover'
import { providers, TronWeb } from 'tronweb'
import { parseExactJson } from './exact-json.js'
import { toChainRpcError } from './tron-rpc-errors.js'

/** one java-tron node (full node and its solidity API), or a TronGrid key */
export interface TronNodeEndpoint {
  /** e.g. https://api.trongrid.io, or http://host:port/chains/TRON on the simulator */
  fullNodeUrl: string
  /** where walletsolidity/* is served; default the full node's URL (TronGrid serves both) */
  solidityNodeUrl?: string | undefined
  /** sent as the TRON-PRO-API-KEY header */
  apiKey?: string | undefined
}

export interface TronNodeOptions extends TronNodeEndpoint {
  /** for messages and log lines */
  network: string
  timeoutMs: number
  /** more endpoints of the network, asked in order when the ones before fail, rate limit or lag */
  fallbacks?: readonly TronNodeEndpoint[] | undefined
  /** more headers on every request (the simulator's X-Simulator-Token) */
  headers?: Record<string, string> | undefined
  /** where an endpoint that keeps failing or falls behind is reported */
  logger?: FailoverLogger | undefined
}

/** a block every 3 s: three are 9 s, more than two nodes of one provider usually differ by */
export const TRON_LAG_TOLERANCE_BLOCKS = 3

type HttpProvider = InstanceType<typeof providers.HttpProvider>

/** an endpoint's own providers */
interface Endpoint {
  origin: string
  apiKey: string | undefined
  full: HttpProvider
  solidity: HttpProvider
}

export function createTronWeb(options: TronNodeOptions): TronWeb {
  const provider = (url: string, apiKey: string | undefined) => {
    const headers = { ...options.headers, ...(apiKey ? { 'TRON-PRO-API-KEY': apiKey } : {}) }
    const built = new providers.HttpProvider(url, options.timeoutMs, '', '', headers)
    ;(built.instance as unknown as { defaults: { transformResponse: unknown } }).defaults.transformResponse =
      [parseExactJson]
    return built
  }
  const endpoints = [options, ...(options.fallbacks ?? [])].map(
    ({ fullNodeUrl, solidityNodeUrl, apiKey }): Endpoint => ({
      origin: endpointOrigin(fullNodeUrl),
      apiKey,
      full: provider(fullNodeUrl, apiKey),
      solidity: provider(solidityNodeUrl ?? fullNodeUrl, apiKey),
    }),
  )
  const pool = createRpcEndpointPool(endpoints, {
    network: options.network,
    lagToleranceHeights: TRON_LAG_TOLERANCE_BLOCKS,
    logger: options.logger,
  })
  // the providers tronweb holds (built for the first endpoint, whose URL they show) send every
  // request through the pool, to each endpoint's own providers
  const failingOver = (role: 'full' | 'solidity'): HttpProvider => {
    const front = provider(
      role === 'full' ? options.fullNodeUrl : (options.solidityNodeUrl ?? options.fullNodeUrl),
      undefined,
    )
    front.request = <T>(url: string, payload?: object, method?: Parameters<HttpProvider['request']>[2]) =>
      pool.call<T>(
        async (endpoint) => {
          let answer: T
          try {
            answer = await endpoint[role].request<T>(url, payload, method)
          } catch (error) {
            throw toChainRpcError(error, `${options.network} ${url}`, endpoint.apiKey)
          }
          return { value: answer, head: url === 'wallet/getnowblock' ? blockNumberOf(answer) : undefined }
        },
        { probe: url === 'wallet/getnowblock' },
      )
    return front
  }
  return new TronWeb({ fullNode: failingOver('full'), solidityNode: failingOver('solidity') })
}

/** the number of the block getnowblock answered */
function blockNumberOf(answer: unknown): number | undefined {
  const number = (answer as { block_header?: { raw_data?: { number?: unknown } } } | undefined)?.block_header
    ?.raw_data?.number
  return typeof number === 'number' ? number : undefined
}

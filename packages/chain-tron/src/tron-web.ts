// One TronWeb for a node, as every chainpay TRON client builds it: providers built here rather than
// TronWeb's `headers` option, which rebuilds them with a 30 s timeout; their JSON parsing keeps int64
// values above 2^53 (TRX amounts) exact.

import { providers, TronWeb } from 'tronweb'
import { parseExactJson } from './exact-json.js'

export interface TronNodeOptions {
  fullNodeUrl: string
  /** where walletsolidity/* is served; default the full node's URL */
  solidityNodeUrl?: string | undefined
  /** sent as the TRON-PRO-API-KEY header */
  apiKey?: string | undefined
  timeoutMs: number
  /** more headers on every request (the simulator's X-Simulator-Token) */
  headers?: Record<string, string> | undefined
}

export function createTronWeb(options: TronNodeOptions): TronWeb {
  const headers: Record<string, string> = {
    ...options.headers,
    ...(options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {}),
  }
  const provider = (url: string) => {
    const built = new providers.HttpProvider(url, options.timeoutMs, '', '', headers)
    ;(built.instance as unknown as { defaults: { transformResponse: unknown } }).defaults.transformResponse =
      [parseExactJson]
    return built
  }
  return new TronWeb({
    fullNode: provider(options.fullNodeUrl),
    solidityNode: provider(options.solidityNodeUrl ?? options.fullNodeUrl),
  })
}

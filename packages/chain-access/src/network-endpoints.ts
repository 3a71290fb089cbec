// Where a network's chain is read: its RPC endpoints, in the operator's order of preference
// (docs/chains.md, "Configuration" and "Several endpoints per network"), as every service reads them
// from the same variables: `<NETWORK>_RPC_URL` names one node or several, comma-separated, and
// `<NETWORK>_SOLIDITY_RPC_URL`, `<NETWORK>_RPC_API_KEY` (TRON) and `<NETWORK>_WS_URL` (Solana) give
// one value per endpoint, in the same order, an empty one for the default. A URL may carry a
// provider's key in its path or query, so no message repeats one: an endpoint is only ever shown as
// its scheme and host (endpointOrigin).
import type { Chain } from '@chainpay/domain'
import type { EnvReader } from '@chainpay/platform'
import { endpointOrigin } from '@chainpay/rpc-failover'
import { SIMULATOR_TOKEN_HEADER, SIMULATOR_TOKEN_QUERY } from '@chainpay/service-kit'

export { endpointOrigin }

export interface TronNode {
  /** the full node's URL (`<NETWORK>_RPC_URL`) */
  rpcUrl: string
  /** where walletsolidity/* is served (`<NETWORK>_SOLIDITY_RPC_URL`); default the RPC URL (TronGrid serves both) */
  solidityRpcUrl: string
  /** TronGrid's TRON-PRO-API-KEY header (`<NETWORK>_RPC_API_KEY`); never logged */
  apiKey: string | null
}

export interface SolanaNode {
  /** the JSON-RPC URL (`<NETWORK>_RPC_URL`) */
  rpcUrl: string
  /**
   * the node's websocket (`<NETWORK>_WS_URL`) for SOLANA_WATCH_MODE=address; null: the RPC URL with
   * the ws scheme (and port + 1 where it names a port), as @solana/web3.js guesses
   */
  wsUrl: string | null
}

/** a network's endpoints, the first one preferred */
export type NetworkEndpoints = (
  | { network: string; chain: 'TRON'; nodes: TronNode[] }
  | { network: string; chain: 'SOLANA'; nodes: SolanaNode[] }
) & {
  /** sent with every HTTP request: the simulator's token */
  headers?: Record<string, string> | undefined
}

/** the suffixes of a network's endpoint variables, longest first (TRON_NILE_SOLIDITY_RPC_URL is TRON_NILE's) */
export const ENDPOINT_VARIABLE_SUFFIXES = [
  '_SOLIDITY_RPC_URL',
  '_RPC_URL',
  '_WS_URL',
  '_RPC_API_KEY',
] as const

/**
 * A network's endpoints from its variables, recording a problem for each bad value (never repeating
 * a URL or a key); undefined when `<NETWORK>_RPC_URL` is unset (a problem too when `required`).
 */
export function readNetworkEndpoints(
  read: EnvReader,
  network: string,
  chain: Chain,
  options: { required: boolean },
): NetworkEndpoints | undefined {
  const urlsName = `${network}_RPC_URL`
  const text = read.optionalString(urlsName)
  if (text === undefined) {
    if (options.required) {
      read.problem(
        `${urlsName}: required; the node's http(s) URL, or several comma-separated in order of preference`,
      )
    }
    return undefined
  }
  const rpcUrls = entries(text).map((url, index, all) =>
    url === ''
      ? missing(read, urlsName, index, all.length)
      : checkedUrl(read, urlsName, url, index, all.length),
  )
  /** one value per endpoint, in their order; an empty one (or none at all) for the default */
  const perEndpoint = (suffix: string): string[] => {
    const name = `${network}${suffix}`
    const values = entries(read.optionalString(name) ?? '')
    if (values.length === 1 && values[0] === '') return rpcUrls.map(() => '')
    if (values.length !== rpcUrls.length) {
      read.problem(
        `${name}: ${values.length} value${values.length === 1 ? '' : 's'} for the ${rpcUrls.length} endpoints of ${urlsName}; give one per endpoint, in the same order (an empty one for the default)`,
      )
      return rpcUrls.map(() => '')
    }
    return values
  }
  if (chain === 'SOLANA') {
    const wsUrls = perEndpoint('_WS_URL')
    const nodes = rpcUrls.map((rpcUrl, index) => {
      const wsUrl = wsUrls[index] ?? ''
      return {
        rpcUrl,
        wsUrl:
          wsUrl === '' ? null : checkedUrl(read, `${network}_WS_URL`, wsUrl, index, rpcUrls.length, true),
      }
    })
    return { network, chain, nodes }
  }
  const solidityUrls = perEndpoint('_SOLIDITY_RPC_URL')
  const apiKeys = perEndpoint('_RPC_API_KEY')
  const nodes = rpcUrls.map((rpcUrl, index) => {
    const solidity = solidityUrls[index] ?? ''
    const apiKey = apiKeys[index] ?? ''
    return {
      rpcUrl,
      solidityRpcUrl:
        solidity === ''
          ? rpcUrl
          : checkedUrl(read, `${network}_SOLIDITY_RPC_URL`, solidity, index, rpcUrls.length),
      apiKey:
        apiKey === '' ? null : checkedApiKey(read, `${network}_RPC_API_KEY`, apiKey, index, rpcUrls.length),
    }
  })
  return { network, chain, nodes }
}

/**
 * The simulator's node-shaped routes of a network (docs/chains.md, "Real chains": `/chains/<network>`
 * on the chain-indexer's port), read as real nodes are: the token, when set, in a header for HTTP
 * and in the query for the websocket (web3.js sends no header there).
 */
export function simulatorEndpoints(
  url: string,
  network: string,
  chain: Chain,
  token: string | undefined,
): NetworkEndpoints {
  const rpcUrl = `${url}/chains/${network}`
  const headers: Record<string, string> = token === undefined ? {} : { [SIMULATOR_TOKEN_HEADER]: token }
  if (chain === 'TRON')
    return { network, chain, nodes: [{ rpcUrl, solidityRpcUrl: rpcUrl, apiKey: null }], headers }
  const wsUrl = new URL(rpcUrl.replace(/^http/, 'ws'))
  if (token !== undefined) wsUrl.searchParams.set(SIMULATOR_TOKEN_QUERY, token)
  return { network, chain, nodes: [{ rpcUrl, wsUrl: wsUrl.toString() }], headers }
}

/**
 * TronGrid mainnet without an API key: TronGrid throttles keyless callers hard, so the scans keep
 * meeting 429s. Said once at start as a warning, not refused: it works, slowly.
 */
export function isKeylessTronGrid(node: TronNode | SolanaNode): boolean {
  return (
    'solidityRpcUrl' in node &&
    node.apiKey === null &&
    [node.rpcUrl, node.solidityRpcUrl].some((url) => new URL(url).hostname === 'api.trongrid.io')
  )
}

//////// Helpers

function entries(text: string): string[] {
  return text.split(',').map((entry) => entry.trim())
}

/** `TRON_RPC_URL` for one endpoint, `TRON_RPC_URL (endpoint 2)` among several */
function named(name: string, index: number, count: number): string {
  return count === 1 ? name : `${name} (endpoint ${index + 1})`
}

function missing(read: EnvReader, name: string, index: number, count: number): string {
  read.problem(`${named(name, index, count)}: empty; expected an http or https URL`)
  return ''
}

function checkedUrl(
  read: EnvReader,
  name: string,
  text: string,
  index: number,
  count: number,
  websocket = false,
): string {
  const schemes = websocket ? ['ws:', 'wss:'] : ['http:', 'https:']
  const expected = websocket ? 'a ws or wss URL' : 'an http or https URL'
  const url = URL.parse(text)
  // not even a URL: still never echoed, it may be a key pasted into the wrong variable
  if (url === null) read.problem(`${named(name, index, count)}: expected ${expected}`)
  else if (!schemes.includes(url.protocol)) {
    read.problem(`${named(name, index, count)}: expected ${expected}, got a ${url.protocol} URL`)
  }
  return text
}

/** sent as an HTTP header value: visible ASCII only, so a stray newline cannot smuggle a header */
function checkedApiKey(read: EnvReader, name: string, key: string, index: number, count: number): string {
  if (!/^[\x21-\x7e]+$/.test(key)) {
    read.problem(`${named(name, index, count)}: expected visible ASCII characters without spaces`)
  }
  return key
}

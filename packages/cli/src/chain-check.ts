// `chainpay-admin chain check`: connects to a network's node with the chain-indexer's own client,
// prints its head block and how far it lags, confirms which chain it serves, and derives the
// receiving address of an index from the key material payment-command would use. It needs no admin
// API: an operator runs it before the first start, or beside a running chain-indexer with its
// environment (<NETWORK>_RPC_URL, <NETWORK>_RPC_API_KEY, ...) to see what the indexer sees: each
// endpoint the network names, one after the other.

import { chainAccess, readNetworkEndpoints } from '@chainpay/chain-access'
import {
  type Asset,
  type Chain,
  defaultAssetRegistry,
  MAX_REQUIRED_CONFIRMATIONS,
  type NetworkDefinition,
  requiredConfirmationsVariable,
} from '@chainpay/domain'
import { ConfigError, createRootLogger, readEnv } from '@chainpay/platform'
import { type ChainClient, type ChainHead, type ChainRpcError, isChainRpcError } from '@chainpay/ports'
import {
  answersAs,
  identifyGenesis,
  type NodeEndpoint,
  readGenesis,
  readRentExemptMinimum,
} from './chain-identity.js'
import { CliError } from './cli-error.js'
import { type DerivedReceivingAddress, deriveReceivingAddress, findKeyMaterial } from './key-material.js'

/** the command line options of `chain check`, parsed together with the admin commands' */
export const chainCheckOptions = {
  network: { type: 'string' },
  'rpc-url': { type: 'string' },
  'solidity-url': { type: 'string' },
  'api-key': { type: 'string' },
  'timeout-ms': { type: 'string' },
  index: { type: 'string' },
  xpub: { type: 'string' },
  seed: { type: 'string' },
} as const

export type ChainCheckFlags = { [Name in keyof typeof chainCheckOptions]?: string | undefined } & {
  json?: boolean | undefined
}

export interface ChainCheckContext {
  env: Record<string, string | undefined>
  out(line: string): void
}

export interface ChainCheckReport {
  network: string
  chain: Chain
  testnet: boolean
  /** scheme and host only: the URL may carry a provider key */
  endpoint: string
  genesis: { hash: string; knownAs: string | null } | null
  head: { height: number; hash: string; time: string; behindClockMs: number }
  finalizedHeight: number | null
  requiredConfirmations: number
  address: DerivedReceivingAddress | null
  /**
   * Solana: the smallest SOL payment (the registry's floor) beside the node's rent-exempt minimum
   * of a system account, in lamports; `enough` false when the floor is below it (docs/api.md,
   * "Amount floors"). null on TRON.
   */
  solFloor: { floorLamports: string; nodeMinimumLamports: string | null; enough: boolean | null } | null
}

const DEFAULT_TIMEOUT_MS = 10_000
const MAX_ADDRESS_INDEX = 0x7fffffff

/** what chain check is given of one endpoint */
type CheckedEndpoint = NodeEndpoint & { solidityUrl?: string | undefined }

export async function runChainCheck(flags: ChainCheckFlags, context: ChainCheckContext): Promise<void> {
  const { env } = context
  const definition = readNetwork(flags.network)
  const { network, chain } = definition
  const endpoints = readEndpoints(flags, env, definition)
  const index = readIndex(flags.index)
  const assets = defaultAssetRegistry.assets.filter((asset) => asset.network === network)
  if (chain === 'TRON' && flags.seed !== undefined) throw new CliError('--seed is for Solana networks')
  if (chain === 'SOLANA' && flags.xpub !== undefined) throw new CliError('--xpub is for TRON networks')
  // the key is checked before any connection: a bad key is the quicker thing to fix
  const keyMaterial = findKeyMaterial(chain, chain === 'TRON' ? flags.xpub : flags.seed, env)
  const address = keyMaterial ? deriveReceivingAddress(chain, keyMaterial, index, assets) : null
  const requiredConfirmations = readRequiredConfirmations(env, definition)

  const reports: Array<{ report: ChainCheckReport; endpoint: CheckedEndpoint }> = []
  const failures: string[] = []
  for (const [position, endpoint] of endpoints.entries()) {
    try {
      const report = await checkEndpoint(definition, endpoint, { address, requiredConfirmations, assets })
      reports.push({ report, endpoint })
    } catch (error) {
      if (!(error instanceof CliError) || endpoints.length === 1) throw error
      failures.push(`endpoint ${position + 1}: ${error.message}`)
    }
  }
  if (flags.json) {
    const printed = reports.map(({ report }) => report)
    context.out(JSON.stringify(endpoints.length === 1 ? printed[0] : printed, null, 2))
  } else {
    for (const [position, { report, endpoint }] of reports.entries()) {
      if (position > 0) context.out('')
      for (const line of describeReport(report, endpoint, keyMaterial === undefined)) context.out(line)
    }
  }
  if (failures.length > 0) throw new CliError(failures.join('\n'))
}

async function checkEndpoint(
  definition: NetworkDefinition,
  endpoint: CheckedEndpoint,
  expected: Pick<ChainCheckReport, 'address' | 'requiredConfirmations'> & { assets: readonly Asset[] },
): Promise<ChainCheckReport> {
  const { network, chain } = definition
  const client = await createClient(definition, endpoint)
  const head = await readHead(client, definition, endpoint)
  const genesisHash = await readGenesis(chain, endpoint)
  const known = genesisHash === undefined ? undefined : identifyGenesis(genesisHash)
  if (known && known.network !== network) {
    throw new CliError(
      `${origin(endpoint.rpcUrl)} serves ${known.label}${known.network ? ` (${known.network})` : ''}, not ${network}: check the URL`,
    )
  }
  const now = new Date()
  return {
    network,
    chain,
    testnet: definition.testnet,
    endpoint: origin(endpoint.rpcUrl),
    genesis: genesisHash === undefined ? null : { hash: genesisHash, knownAs: known?.label ?? null },
    head: {
      height: head.height,
      hash: head.hash,
      time: head.time,
      behindClockMs: now.getTime() - Date.parse(head.time),
    },
    finalizedHeight: head.finalizedHeight ?? null,
    requiredConfirmations: expected.requiredConfirmations,
    address: expected.address,
    solFloor: chain === 'SOLANA' ? await readSolFloor(endpoint, expected.assets) : null,
  }
}

/** the SOL floor of the registry against the node's rent-exempt minimum */
async function readSolFloor(
  endpoint: NodeEndpoint,
  assets: readonly Asset[],
): Promise<ChainCheckReport['solFloor']> {
  const floor = BigInt(assets.find((asset) => asset.tokenStandard === 'NATIVE')?.minAmountUnits ?? '0')
  const minimum = await readRentExemptMinimum(endpoint)
  return {
    floorLamports: floor.toString(),
    nodeMinimumLamports: minimum === undefined ? null : minimum.toString(),
    enough: minimum === undefined ? null : floor >= minimum,
  }
}

//////// Options

function readNetwork(name: string | undefined): NetworkDefinition {
  const known = defaultAssetRegistry.networks
  const list = known.map((definition) => definition.network).join(', ')
  if (name === undefined) throw new CliError(`chain check: --network is required (${list})`)
  const definition = known.find((candidate) => candidate.network === name.toUpperCase())
  if (!definition) throw new CliError(`--network: unknown network '${name}'; known: ${list}`)
  return definition
}

/** --rpc-url (and --solidity-url, --api-key), or every endpoint of the variables the services read */
function readEndpoints(
  flags: ChainCheckFlags,
  env: Record<string, string | undefined>,
  { network, chain }: NetworkDefinition,
): CheckedEndpoint[] {
  const fromEnv = (name: string) => env[name]?.trim() || undefined
  if (chain === 'SOLANA' && (flags['solidity-url'] !== undefined || flags['api-key'] !== undefined)) {
    throw new CliError('--solidity-url and --api-key are for TRON networks')
  }
  const timeoutText = flags['timeout-ms'] ?? fromEnv('CHAIN_RPC_TIMEOUT_MS')
  const timeoutMs =
    timeoutText === undefined ? DEFAULT_TIMEOUT_MS : integer('--timeout-ms', timeoutText, 1, 600_000)
  const rpcUrl = flags['rpc-url']
  if (rpcUrl === undefined) {
    const read = readEnv(env)
    const endpoints = readNetworkEndpoints(read, network, chain, { required: false })
    try {
      read.done()
    } catch (error) {
      if (error instanceof ConfigError) throw new CliError(error.problems.join('\n'))
      throw error
    }
    if (endpoints === undefined) {
      throw new CliError(`chain check: --rpc-url is required (or set ${network}_RPC_URL)`)
    }
    return endpoints.nodes.map((node) => ({
      rpcUrl: node.rpcUrl,
      timeoutMs,
      ...('solidityRpcUrl' in node
        ? { solidityUrl: node.solidityRpcUrl, apiKey: node.apiKey ?? undefined }
        : {}),
    }))
  }
  checkUrl('--rpc-url', rpcUrl)
  const solidityUrl =
    chain === 'TRON' ? (flags['solidity-url'] ?? fromEnv(`${network}_SOLIDITY_RPC_URL`)) : undefined
  if (solidityUrl !== undefined) checkUrl('--solidity-url', solidityUrl)
  const apiKey = chain === 'TRON' ? (flags['api-key'] ?? fromEnv(`${network}_RPC_API_KEY`)) : undefined
  return [{ rpcUrl, solidityUrl, apiKey, timeoutMs }]
}

function checkUrl(flag: string, url: string): void {
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    throw new CliError(`${flag}: expected an http or https URL`)
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new CliError(`${flag}: expected an http or https URL, got a ${protocol} URL`)
  }
}

/** the services' `<NETWORK>_REQUIRED_CONFIRMATIONS` when set, else the registry's */
function readRequiredConfirmations(
  env: Record<string, string | undefined>,
  definition: NetworkDefinition,
): number {
  const variable = requiredConfirmationsVariable(definition.network)
  const text = env[variable]?.trim()
  return text ? integer(variable, text, 1, MAX_REQUIRED_CONFIRMATIONS) : definition.requiredConfirmations
}

function readIndex(text: string | undefined): number {
  return text === undefined ? 0 : integer('--index', text, 0, MAX_ADDRESS_INDEX)
}

function integer(flag: string, text: string, min: number, max: number): number {
  const value = Number(text)
  if (!/^[0-9]+$/.test(text) || value < min || value > max) {
    throw new CliError(`${flag}: expected an integer from ${min} to ${max}, got '${text.slice(0, 20)}'`)
  }
  return value
}

//////// The node

async function createClient(
  { network, chain }: NetworkDefinition,
  endpoint: CheckedEndpoint,
): Promise<ChainClient> {
  const { rpcUrl, timeoutMs } = endpoint
  const nodes =
    chain === 'TRON'
      ? {
          chain,
          nodes: [
            { rpcUrl, solidityRpcUrl: endpoint.solidityUrl ?? rpcUrl, apiKey: endpoint.apiKey ?? null },
          ],
        }
      : { chain, nodes: [{ rpcUrl, wsUrl: null }] }
  const logger = createRootLogger({ service: 'chainpay-admin', level: 'silent' })
  const access = chainAccess({ network, ...nodes }, { registry: defaultAssetRegistry, timeoutMs, logger })
  return access.chainClient({ readFinalizedHeight: true })
}

async function readHead(
  client: ChainClient,
  definition: NetworkDefinition,
  endpoint: NodeEndpoint,
): Promise<ChainHead> {
  try {
    return await client.getHead()
  } catch (error) {
    if (!isChainRpcError(error)) throw error
    throw new CliError(await describeHeadFailure(error, definition, endpoint))
  }
}

/** what went wrong, in the operator's terms; a node of the other chain is named as such */
export async function describeHeadFailure(
  error: ChainRpcError,
  { network, chain }: NetworkDefinition,
  endpoint: NodeEndpoint,
): Promise<string> {
  const where = origin(endpoint.rpcUrl)
  switch (error.failure) {
    case 'timeout':
      return `no answer from ${where} within ${endpoint.timeoutMs} ms (--timeout-ms): ${error.message}`
    case 'rate-limited': {
      const wait =
        error.retryAfterMs === undefined ? '' : `, asked to wait ${Math.ceil(error.retryAfterMs / 1000)} s`
      const advice =
        chain === 'TRON'
          ? `TronGrid needs an API key (--api-key or ${network}_RPC_API_KEY), and a 403 can also mean the key's quota is spent`
          : 'public Solana endpoints allow a few requests per second: use a private RPC URL'
      return `${where} rate limits this client${wait}: ${error.message}; ${advice}`
    }
    default: {
      const other: Chain = chain === 'TRON' ? 'SOLANA' : 'TRON'
      if (await answersAs(other, endpoint)) {
        return `${where} answers as a ${chainName(other)} node, not as a ${chainName(chain)} one: ${network} needs a ${chainName(chain)} URL`
      }
      if (error.failure === 'unavailable') return `cannot reach a working node at ${where}: ${error.message}`
      const refused = /HTTP 40[13]\b/.test(error.message)
        ? '; the node refused the request: check the API key'
        : ''
      return `${where} does not answer as a ${chainName(chain)} node: ${error.message}${refused}`
    }
  }
}

//////// Output

function describeReport(report: ChainCheckReport, endpoint: NodeEndpoint, noKey: boolean): string[] {
  const { head, finalizedHeight, genesis, address } = report
  const lines = [
    `Network:                ${report.network} (${chainName(report.chain)} ${report.testnet ? 'testnet' : 'mainnet'})`,
    `Endpoint:               ${report.endpoint}${report.chain === 'TRON' ? `, API key ${endpoint.apiKey ? 'set' : 'none'}` : ''}`,
    `Genesis:                ${describeGenesis(genesis)}`,
    `Head block:             ${head.height}`,
    `  hash:                 ${head.hash}`,
    `  time:                 ${head.time} (${describeLag(head.behindClockMs)})`,
    `Finalized block:        ${finalizedHeight === null ? 'unknown' : `${finalizedHeight} (${head.height - finalizedHeight} behind the head)`}`,
    `Required confirmations: ${report.requiredConfirmations}`,
  ]
  if (report.solFloor) lines.push(`SOL floor:              ${describeSolFloor(report.solFloor)}`)
  if (address) {
    lines.push(
      `Address ${address.index}:${' '.repeat(15 - String(address.index).length)}${address.address} (${address.derivationPath})`,
    )
    for (const account of address.tokenAccounts) {
      lines.push(
        `  ${`${account.currency} token account:`.padEnd(22)}${account.tokenAccount} (mint ${account.mint})`,
      )
    }
  } else if (noKey) {
    const where =
      report.chain === 'TRON'
        ? '--xpub, TRON_ACCOUNT_XPUB or WALLET_FILE'
        : 'SOLANA_SEED or WALLET_FILE (or --seed)'
    lines.push(`Address:                no key material given (${where})`)
  }
  return lines
}

function describeSolFloor(floor: NonNullable<ChainCheckReport['solFloor']>): string {
  const stated = `${floor.floorLamports} lamports`
  if (floor.nodeMinimumLamports === null) return `${stated} (the node did not say its rent-exempt minimum)`
  if (floor.enough) return `${stated} (the node's rent-exempt minimum: ${floor.nodeMinimumLamports})`
  return `${stated}, BELOW the node's rent-exempt minimum of ${floor.nodeMinimumLamports}: raise the SOL minAmount (docs/operations.md, "The asset registry")`
}

function describeGenesis(genesis: ChainCheckReport['genesis']): string {
  if (genesis === null) return 'not served (a pruned node, or the chainpay simulator)'
  return `${genesis.hash} (${genesis.knownAs ?? 'not a public chain chainpay knows: a private one or the simulator'})`
}

function describeLag(behindMs: number): string {
  const seconds = (Math.abs(behindMs) / 1000).toFixed(1)
  return behindMs >= 0 ? `${seconds} s behind the clock` : `${seconds} s ahead of the clock`
}

function chainName(chain: Chain): string {
  return chain === 'TRON' ? 'TRON' : 'Solana'
}

/** scheme and host: what may be printed of a URL that can hold a key */
function origin(url: string): string {
  const { protocol, host } = new URL(url)
  return `${protocol}//${host}`
}

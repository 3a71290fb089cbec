// The asset registry (docs/api.md, "Assets") as data. Operators extend it through configuration;
// the defaults below are the v1 registry.

import { DomainError } from './errors.js'
import { formatUnits, toUnits } from './money.js'

export type Chain = 'TRON' | 'SOLANA'
export type TokenStandard = 'NATIVE' | 'TRC20' | 'SPL'

export interface NetworkDefinition {
  /** canonical upper-case name, e.g. TRON, TRON_NILE, SOLANA, SOLANA_DEVNET */
  network: string
  chain: Chain
  /** confirmations at which a transfer counts as final: TRON 20, SOLANA 32 (finalized) */
  requiredConfirmations: number
  testnet: boolean
}

export interface Asset {
  network: string
  chain: Chain
  currency: string
  tokenStandard: TokenStandard
  decimals: number
  /** TRC20 contract or SPL mint; null for the native coin */
  contract: string | null
  /** largest accepted amount, in smallest units (default 1,000,000,000 whole units) */
  maxAmountUnits: string
  /**
   * smallest accepted amount, in smallest units, when the chain refuses less: SOL's is the
   * rent-exempt minimum of a system account (docs/api.md, "Amount floors"); absent: any amount > 0
   */
  minAmountUnits?: string
}

export interface AssetRegistry {
  readonly networks: readonly NetworkDefinition[]
  readonly assets: readonly Asset[]
}

/** an asset as an operator writes it in configuration: the chain comes from its network */
export interface AssetConfig {
  network: string
  currency: string
  tokenStandard: TokenStandard
  decimals: number
  contract: string | null
  /** whole units as a decimal string; default 1,000,000,000 */
  maxAmount?: string
  /** whole units as a decimal string; the smallest accepted amount (SOL: the rent-exempt minimum) */
  minAmount?: string
}

export interface AssetRegistryConfig {
  networks?: NetworkDefinition[]
  assets?: AssetConfig[]
}

const DEFAULT_MAX_AMOUNT = '1000000000'
/**
 * The rent-exempt minimum of a system account (0 data bytes), in SOL: what
 * getMinimumBalanceForRentExemption(0) answers on mainnet and devnet (890,880 lamports). A first
 * transfer of less to a fresh address fails on chain (docs/chains.md, "SOL floor").
 */
export const SOLANA_RENT_EXEMPT_MINIMUM_SOL = '0.00089088'
const upperCaseName = /^[A-Z0-9][A-Z0-9_]{0,31}$/
const base58 = /^[1-9A-HJ-NP-Za-km-z]{25,64}$/
const standardsByChain: Record<Chain, readonly TokenStandard[]> = {
  TRON: ['NATIVE', 'TRC20'],
  SOLANA: ['NATIVE', 'SPL'],
}

const tronNetworks: NetworkDefinition[] = [
  { network: 'TRON', chain: 'TRON', requiredConfirmations: 20, testnet: false },
  { network: 'TRON_NILE', chain: 'TRON', requiredConfirmations: 20, testnet: true },
]
const solanaNetworks: NetworkDefinition[] = [
  { network: 'SOLANA', chain: 'SOLANA', requiredConfirmations: 32, testnet: false },
  { network: 'SOLANA_DEVNET', chain: 'SOLANA', requiredConfirmations: 32, testnet: true },
]

export const defaultAssetRegistry: AssetRegistry = buildRegistry(
  [...tronNetworks, ...solanaNetworks],
  [
    { network: 'TRON', currency: 'TRX', tokenStandard: 'NATIVE', decimals: 6, contract: null },
    {
      network: 'TRON',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      decimals: 6,
      contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    },
    {
      network: 'SOLANA',
      currency: 'SOL',
      tokenStandard: 'NATIVE',
      decimals: 9,
      contract: null,
      minAmount: SOLANA_RENT_EXEMPT_MINIMUM_SOL,
    },
    {
      network: 'SOLANA',
      currency: 'USDC',
      tokenStandard: 'SPL',
      decimals: 6,
      contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    },
    {
      network: 'SOLANA',
      currency: 'USDT',
      tokenStandard: 'SPL',
      decimals: 6,
      contract: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    },
    { network: 'TRON_NILE', currency: 'TRX', tokenStandard: 'NATIVE', decimals: 6, contract: null },
    {
      network: 'TRON_NILE',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      decimals: 6,
      contract: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
    },
    {
      network: 'SOLANA_DEVNET',
      currency: 'SOL',
      tokenStandard: 'NATIVE',
      decimals: 9,
      contract: null,
      minAmount: SOLANA_RENT_EXEMPT_MINIMUM_SOL,
    },
    {
      network: 'SOLANA_DEVNET',
      currency: 'USDC',
      tokenStandard: 'SPL',
      decimals: 6,
      contract: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
    },
  ],
)

/** `${network}:${currency}`, the key of per-asset settings such as fixed fees */
export function assetKey(asset: Pick<Asset, 'network' | 'currency'>): string {
  return `${asset.network}:${asset.currency}`
}

/**
 * The asset for a request; tokenStandard may be omitted (inferred) but must match when sent.
 * Throws DomainError UNSUPPORTED_ASSET with a message listing what is supported.
 */
export function resolveAsset(
  registry: AssetRegistry,
  request: { network: string; currency: string; tokenStandard?: string | undefined },
): Asset {
  const { network, currency, tokenStandard } = request
  const asset = registry.assets.find(
    (candidate) =>
      candidate.network === network &&
      candidate.currency === currency &&
      (tokenStandard === undefined || candidate.tokenStandard === tokenStandard),
  )
  if (asset) return asset
  const standard = tokenStandard === undefined ? '' : ` (${echo(tokenStandard)})`
  throw new DomainError(
    'UNSUPPORTED_ASSET',
    `unsupported asset ${echo(currency)}${standard} on ${echo(network)}; supported: ${describeSupported(registry)}`,
  )
}

export function findNetwork(registry: AssetRegistry, network: string): NetworkDefinition | undefined {
  return registry.networks.find((candidate) => candidate.network === network)
}

/**
 * The networks whose receiving addresses come from one key and one derivation path, and so share one
 * sequence of derivation indexes: every network of one chain, mainnet and test networks alike (TRON
 * and TRON_NILE derive the same address from the same index). Addresses are unique per chain family
 * (docs/chains.md, "Addresses: one sequence per chain family"): a mainnet and its test network never
 * share one.
 */
export interface AddressFamily {
  /** the chain, e.g. TRON: names the family's sequence */
  chain: Chain
  /**
   * every network of the registry on that chain. Before 2026-11 each network counted its own
   * indexes: the family's sequence starts above every index any of them handed out.
   */
  networks: readonly string[]
}

/** the address family of `chain`: pass the whole registry, not one narrowed to the networks served */
export function addressFamily(registry: AssetRegistry, chain: Chain): AddressFamily {
  return {
    chain,
    networks: registry.networks.filter((definition) => definition.chain === chain).map((d) => d.network),
  }
}

/** the asset whose contract or mint is `contract` on `network`, or the native coin when null */
export function findAssetByContract(
  registry: AssetRegistry,
  network: string,
  contract: string | null,
): Asset | undefined {
  return registry.assets.find((asset) => asset.network === network && asset.contract === contract)
}

/**
 * The registry with an operator's configuration applied: a network replaces the one of the same
 * name, an asset the one of the same network and currency; anything new is added. Throws an Error
 * naming the offending entry when the configuration is invalid.
 */
export function mergeAssetRegistry(base: AssetRegistry, overrides: AssetRegistryConfig): AssetRegistry {
  const networks = mergeBy(
    base.networks,
    readList(overrides.networks, 'networks').map((entry, index) => readNetwork(entry, `networks[${index}]`)),
    (network) => network.network,
    'networks',
  )
  const configured = readList(overrides.assets, 'assets').map((entry, index) =>
    readAssetConfig(entry, `assets[${index}]`),
  )
  const assets = mergeBy(base.assets.map(toAssetConfig), configured, (asset) => assetKey(asset), 'assets')
  return buildRegistry(networks, assets)
}

//////// Helpers

function buildRegistry(networks: NetworkDefinition[], configs: AssetConfig[]): AssetRegistry {
  const assets = configs.map((config) => {
    const where = `asset ${assetKey(config)}`
    const network = networks.find((candidate) => candidate.network === config.network)
    if (!network) throw configError(where, `network ${config.network} is not defined`)
    if (!standardsByChain[network.chain].includes(config.tokenStandard)) {
      throw configError(where, `tokenStandard ${config.tokenStandard} does not exist on ${network.chain}`)
    }
    return toAsset(config, network.chain, where)
  })
  for (const network of networks) {
    const onNetwork = assets.filter((asset) => asset.network === network.network)
    const contracts = onNetwork.map((asset) => asset.contract ?? 'the native coin')
    const repeated = contracts.find((contract, index) => contracts.indexOf(contract) !== index)
    if (repeated) throw configError(`network ${network.network}`, `${repeated} is registered twice`)
  }
  return { networks, assets }
}

function toAsset(config: AssetConfig, chain: Chain, where: string): Asset {
  let maxAmountUnits: bigint
  try {
    maxAmountUnits = toUnits(config.maxAmount ?? DEFAULT_MAX_AMOUNT, config.decimals)
  } catch {
    throw configError(where, `maxAmount must be a decimal string with at most ${config.decimals} decimals`)
  }
  if (maxAmountUnits <= 0n) throw configError(where, 'maxAmount must be greater than 0')
  const minAmountUnits = config.minAmount === undefined ? undefined : readMinAmountUnits(config, where)
  if (minAmountUnits !== undefined && minAmountUnits > maxAmountUnits) {
    throw configError(where, 'minAmount must not exceed maxAmount')
  }
  const { network, currency, tokenStandard, decimals, contract } = config
  return {
    network,
    chain,
    currency,
    tokenStandard,
    decimals,
    contract,
    maxAmountUnits: maxAmountUnits.toString(),
    ...(minAmountUnits === undefined ? {} : { minAmountUnits: minAmountUnits.toString() }),
  }
}

function readMinAmountUnits(config: AssetConfig, where: string): bigint {
  let units: bigint
  try {
    units = toUnits(config.minAmount ?? '', config.decimals)
  } catch {
    throw configError(where, `minAmount must be a decimal string with at most ${config.decimals} decimals`)
  }
  if (units <= 0n) throw configError(where, 'minAmount must be greater than 0')
  return units
}

function toAssetConfig(asset: Asset): AssetConfig {
  const { network, currency, tokenStandard, decimals, contract } = asset
  return {
    network,
    currency,
    tokenStandard,
    decimals,
    contract,
    maxAmount: formatUnits(asset.maxAmountUnits, asset.decimals),
    ...(asset.minAmountUnits === undefined
      ? {}
      : { minAmount: formatUnits(asset.minAmountUnits, asset.decimals) }),
  }
}

function mergeBy<T>(base: readonly T[], overrides: T[], key: (item: T) => string, what: string): T[] {
  const merged = [...base]
  const seen = new Set<string>()
  for (const override of overrides) {
    const name = key(override)
    if (seen.has(name)) throw configError(what, `${name} is configured twice`)
    seen.add(name)
    const index = merged.findIndex((item) => key(item) === name)
    if (index === -1) merged.push(override)
    else merged[index] = override
  }
  return merged
}

function readList(value: unknown, where: string): unknown[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw configError(where, 'must be an array')
  return value
}

function readNetwork(value: unknown, where: string): NetworkDefinition {
  const entry = readObject(value, where)
  const network = readName(entry.network, `${where}.network`)
  if (entry.chain !== 'TRON' && entry.chain !== 'SOLANA') {
    throw configError(`${where}.chain`, 'must be TRON or SOLANA')
  }
  const { requiredConfirmations, testnet } = entry
  if (typeof requiredConfirmations !== 'number' || !Number.isInteger(requiredConfirmations)) {
    throw configError(`${where}.requiredConfirmations`, 'must be an integer of at least 1')
  }
  if (requiredConfirmations < 1) throw configError(`${where}.requiredConfirmations`, 'must be at least 1')
  if (typeof testnet !== 'boolean') throw configError(`${where}.testnet`, 'must be true or false')
  return { network, chain: entry.chain, requiredConfirmations, testnet }
}

function readAssetConfig(value: unknown, where: string): AssetConfig {
  const entry = readObject(value, where)
  const network = readName(entry.network, `${where}.network`)
  const currency = readName(entry.currency, `${where}.currency`)
  const { tokenStandard, decimals, contract, maxAmount, minAmount } = entry
  if (tokenStandard !== 'NATIVE' && tokenStandard !== 'TRC20' && tokenStandard !== 'SPL') {
    throw configError(`${where}.tokenStandard`, 'must be NATIVE, TRC20 or SPL')
  }
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 18) {
    throw configError(`${where}.decimals`, 'must be an integer from 0 to 18')
  }
  if (tokenStandard === 'NATIVE' && contract !== null && contract !== undefined) {
    throw configError(`${where}.contract`, 'must be null for a native coin')
  }
  if (tokenStandard !== 'NATIVE' && (typeof contract !== 'string' || !base58.test(contract))) {
    throw configError(`${where}.contract`, 'must be the base58 address of the token contract or mint')
  }
  if (maxAmount !== undefined && typeof maxAmount !== 'string') {
    throw configError(`${where}.maxAmount`, 'must be a decimal string')
  }
  if (minAmount !== undefined && typeof minAmount !== 'string') {
    throw configError(`${where}.minAmount`, 'must be a decimal string')
  }
  return {
    network,
    currency,
    tokenStandard,
    decimals,
    contract: tokenStandard === 'NATIVE' ? null : (contract as string),
    ...(maxAmount === undefined ? {} : { maxAmount }),
    ...(minAmount === undefined ? {} : { minAmount }),
  }
}

function readObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw configError(where, 'must be an object')
  }
  return value as Record<string, unknown>
}

function readName(value: unknown, where: string): string {
  if (typeof value !== 'string' || !upperCaseName.test(value)) {
    throw configError(where, 'must be an upper-case name (A-Z, 0-9, _)')
  }
  return value
}

function configError(where: string, problem: string): Error {
  return new Error(`asset registry configuration: ${where}: ${problem}`)
}

function describeSupported(registry: AssetRegistry): string {
  return registry.networks
    .map((network) => {
      const assets = registry.assets.filter((asset) => asset.network === network.network)
      const list = assets.map((asset) => `${asset.currency} (${asset.tokenStandard})`).join(', ')
      return assets.length === 0 ? '' : `${network.network}: ${list}`
    })
    .filter((entry) => entry !== '')
    .join('; ')
}

/** merchant input quoted back in an error message, kept short */
function echo(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text === undefined ? 'undefined' : text.length > 40 ? `${text.slice(0, 40)}...` : text
}

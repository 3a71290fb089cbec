// Which networks one installation serves, and the confirmations each requires (configurable per
// network: docs/api.md, "Lifecycle"). payment-command stamps a payment's required confirmations into
// it at creation, and the chain-indexer rescans that deep after a reorganization: both read the same
// variables through readNetworkSettings, so that one spelling and one set of rules serves both.

import { type AssetRegistry, findNetwork } from './assets.js'

export interface NetworkSettings {
  /** the networks served, a subset of the registry's; all of them when absent */
  networks?: readonly string[] | undefined
  /** by network: the confirmations at which a transfer counts, replacing the registry's */
  requiredConfirmations?: Readonly<Record<string, number>> | undefined
}

export const MAX_REQUIRED_CONFIRMATIONS = 1000

export const CHAIN_NETWORKS_VARIABLE = 'CHAIN_NETWORKS'

const REQUIRED_CONFIRMATIONS_SUFFIX = '_REQUIRED_CONFIRMATIONS'

/** `TRON_NILE` -> `TRON_NILE_REQUIRED_CONFIRMATIONS` */
export function requiredConfirmationsVariable(network: string): string {
  return `${network}${REQUIRED_CONFIRMATIONS_SUFFIX}`
}

/**
 * The registry narrowed to the networks served (and their assets), with their confirmation
 * requirements replaced where the settings say so. Throws an Error naming the offending entry.
 */
export function applyNetworkSettings(registry: AssetRegistry, settings: NetworkSettings): AssetRegistry {
  const known = registry.networks.map((definition) => definition.network)
  const served = settings.networks ?? known
  if (served.length === 0) throw settingsError('no network is served')
  for (const [index, network] of served.entries()) {
    if (!findNetwork(registry, network)) {
      throw settingsError(`${network} is not in the asset registry (${known.join(', ')})`)
    }
    if (served.indexOf(network) !== index) throw settingsError(`${network} is listed twice`)
  }
  const overrides = settings.requiredConfirmations ?? {}
  for (const [network, confirmations] of Object.entries(overrides)) {
    if (!served.includes(network)) throw settingsError(`confirmations for ${network}, which is not served`)
    if (!isConfirmationCount(confirmations)) {
      throw settingsError(
        `the confirmations of ${network} must be an integer from 1 to ${MAX_REQUIRED_CONFIRMATIONS}, got ${confirmations}`,
      )
    }
  }
  return {
    networks: registry.networks
      .filter((definition) => served.includes(definition.network))
      .map((definition) => {
        const override = overrides[definition.network]
        return override === undefined ? definition : { ...definition, requiredConfirmations: override }
      }),
    assets: registry.assets.filter((asset) => served.includes(asset.network)),
  }
}

/** the part of @chainpay/platform's EnvReader that reading the settings needs */
export interface NetworkSettingsReader {
  list(name: string, options?: { default?: string[] }): string[]
  optionalString(name: string): string | undefined
  int(name: string, options: { default?: number; min?: number; max?: number }): number
  problem(message: string): void
}

export interface ReadNetworkSettingsOptions {
  /** the networks when CHAIN_NETWORKS is unset; CHAIN_NETWORKS is required when absent */
  defaultNetworks?: readonly string[]
}

export interface ServedNetworks {
  /** the valid entries of CHAIN_NETWORKS, or the default */
  networks: string[]
  /** the valid `<NETWORK>_REQUIRED_CONFIRMATIONS` of the networks served */
  requiredConfirmations: Record<string, number>
}

/**
 * Reads CHAIN_NETWORKS and `<NETWORK>_REQUIRED_CONFIRMATIONS`, recording a problem for each bad value.
 * A `..._REQUIRED_CONFIRMATIONS` variable of a network that is not served is a problem too: it is a
 * typo or a forgotten CHAIN_NETWORKS entry, and either way the operator meant something else.
 * `env` gives the names of the variables that are set; the values are read through `read`.
 */
export function readNetworkSettings(
  read: NetworkSettingsReader,
  env: Readonly<Record<string, string | undefined>>,
  registry: AssetRegistry,
  options: ReadNetworkSettingsOptions = {},
): ServedNetworks {
  const networks = readServedNetworks(read, registry, options)
  const requiredConfirmations: Record<string, number> = {}
  for (const network of networks) {
    const name = requiredConfirmationsVariable(network)
    if (read.optionalString(name) === undefined) continue
    // 0 is what int() gives back for a bad value, after recording the problem
    const confirmations = read.int(name, { min: 1, max: MAX_REQUIRED_CONFIRMATIONS })
    if (confirmations > 0) requiredConfirmations[network] = confirmations
  }
  for (const name of setVariableNames(env)) {
    if (!name.endsWith(REQUIRED_CONFIRMATIONS_SUFFIX)) continue
    const network = name.slice(0, -REQUIRED_CONFIRMATIONS_SUFFIX.length)
    if (!networks.includes(network)) read.problem(unservedNetworkProblem(name, network, networks, registry))
  }
  return { networks, requiredConfirmations }
}

/** the names of the variables with a value (an empty one counts as unset), sorted */
export function setVariableNames(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.keys(env)
    .filter((name) => (env[name]?.trim() ?? '') !== '')
    .sort()
}

/** what to tell the operator about `variable`, set for `network`, which is not served */
export function unservedNetworkProblem(
  variable: string,
  network: string,
  served: readonly string[],
  registry: AssetRegistry,
): string {
  const listed = `${CHAIN_NETWORKS_VARIABLE} (${served.join(', ') || 'none'})`
  if (findNetwork(registry, network)) {
    return `${variable}: ${network} is not in ${listed}; add it there or remove the variable`
  }
  return `${variable}: ${network} is not a network; known: ${registry.networks.map((definition) => definition.network).join(', ')}`
}

function readServedNetworks(
  read: NetworkSettingsReader,
  registry: AssetRegistry,
  options: ReadNetworkSettingsOptions,
): string[] {
  const known = registry.networks.map((definition) => definition.network)
  const listed = read.list(CHAIN_NETWORKS_VARIABLE)
  if (listed.length === 0) {
    if (options.defaultNetworks) return [...options.defaultNetworks]
    read.problem(`${CHAIN_NETWORKS_VARIABLE}: required; a comma-separated list of ${known.join(', ')}`)
    return []
  }
  const networks: string[] = []
  for (const network of listed) {
    if (!known.includes(network)) {
      read.problem(
        `${CHAIN_NETWORKS_VARIABLE}: unknown network '${network.slice(0, 40)}'; known: ${known.join(', ')}`,
      )
    } else if (networks.includes(network)) {
      read.problem(`${CHAIN_NETWORKS_VARIABLE}: ${network} is listed twice`)
    } else {
      networks.push(network)
    }
  }
  return networks
}

function isConfirmationCount(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_REQUIRED_CONFIRMATIONS
}

function settingsError(problem: string): Error {
  return new Error(`network settings: ${problem}`)
}

import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry, findNetwork, resolveAsset } from './assets.js'
import { DomainError } from './errors.js'
import {
  applyNetworkSettings,
  requiredConfirmationsVariable,
  setVariableNames,
  unservedNetworkProblem,
} from './network-settings.js'

const registry = defaultAssetRegistry

function unsupported(action: () => unknown): DomainError {
  try {
    action()
  } catch (error) {
    if (error instanceof DomainError) return error
    throw error
  }
  throw new Error('expected a DomainError')
}

describe('applyNetworkSettings', () => {
  it('keeps the registry as it is without settings', () => {
    expect(applyNetworkSettings(registry, {})).toEqual(registry)
  })

  it('narrows the registry to the networks served, with their assets only', () => {
    const narrowed = applyNetworkSettings(registry, { networks: ['SOLANA_DEVNET', 'TRON_NILE'] })
    // in the registry's order, whatever the order of the list
    expect(narrowed.networks.map((definition) => definition.network)).toEqual(['TRON_NILE', 'SOLANA_DEVNET'])
    expect(narrowed.assets.map((asset) => `${asset.network}:${asset.currency}`)).toEqual([
      'TRON_NILE:TRX',
      'TRON_NILE:USDT',
      'SOLANA_DEVNET:SOL',
      'SOLANA_DEVNET:USDC',
    ])
    expect(resolveAsset(narrowed, { network: 'TRON_NILE', currency: 'USDT' }).contract).toBe(
      'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
    )
  })

  it('makes a payment on another network UNSUPPORTED_ASSET, listing only what is served', () => {
    const narrowed = applyNetworkSettings(registry, { networks: ['TRON'] })
    const error = unsupported(() => resolveAsset(narrowed, { network: 'SOLANA', currency: 'USDC' }))
    expect(error.code).toBe('UNSUPPORTED_ASSET')
    expect(error.message).toBe(
      'unsupported asset USDC on SOLANA; supported: TRON: TRX (NATIVE), USDT (TRC20)',
    )
  })

  it('replaces the required confirmations of the networks named, and only those', () => {
    const narrowed = applyNetworkSettings(registry, {
      networks: ['TRON', 'SOLANA'],
      requiredConfirmations: { TRON: 19 },
    })
    expect(findNetwork(narrowed, 'TRON')?.requiredConfirmations).toBe(19)
    expect(findNetwork(narrowed, 'SOLANA')?.requiredConfirmations).toBe(32)
    // the registry given is left alone
    expect(findNetwork(registry, 'TRON')?.requiredConfirmations).toBe(20)
  })

  it('serves every network of the registry when only confirmations are given', () => {
    const narrowed = applyNetworkSettings(registry, { requiredConfirmations: { SOLANA_DEVNET: 1 } })
    expect(narrowed.assets).toEqual(registry.assets)
    expect(findNetwork(narrowed, 'SOLANA_DEVNET')?.requiredConfirmations).toBe(1)
  })

  it('rejects settings that name what is not there', () => {
    expect(() => applyNetworkSettings(registry, { networks: [] })).toThrow(
      'network settings: no network is served',
    )
    expect(() => applyNetworkSettings(registry, { networks: ['TRON', 'ETHEREUM'] })).toThrow(
      'network settings: ETHEREUM is not in the asset registry (TRON, TRON_NILE, SOLANA, SOLANA_DEVNET)',
    )
    expect(() => applyNetworkSettings(registry, { networks: ['TRON', 'TRON'] })).toThrow(
      'network settings: TRON is listed twice',
    )
    expect(() =>
      applyNetworkSettings(registry, { networks: ['TRON'], requiredConfirmations: { SOLANA: 32 } }),
    ).toThrow('network settings: confirmations for SOLANA, which is not served')
  })

  it('wants between 1 and 1000 whole confirmations', () => {
    for (const count of [0, -1, 1001, 2.5, Number.NaN]) {
      expect(() => applyNetworkSettings(registry, { requiredConfirmations: { TRON: count } })).toThrow(
        `network settings: the confirmations of TRON must be an integer from 1 to 1000, got ${count}`,
      )
    }
    expect(
      findNetwork(applyNetworkSettings(registry, { requiredConfirmations: { TRON: 1000 } }), 'TRON'),
    ).toEqual({ network: 'TRON', chain: 'TRON', requiredConfirmations: 1000, testnet: false })
  })
})

describe('the variables', () => {
  it('names the confirmations variable after the network', () => {
    expect(requiredConfirmationsVariable('TRON_NILE')).toBe('TRON_NILE_REQUIRED_CONFIRMATIONS')
  })

  it('lists the variables that have a value, an empty or blank one counting as unset', () => {
    expect(setVariableNames({ B: '1', A: 'x', EMPTY: '', BLANK: '  ', UNSET: undefined })).toEqual(['A', 'B'])
  })

  it('tells a network that is not served from one that does not exist', () => {
    expect(unservedNetworkProblem('SOLANA_RPC_URL', 'SOLANA', ['TRON'], registry)).toBe(
      'SOLANA_RPC_URL: SOLANA is not in CHAIN_NETWORKS (TRON); add it there or remove the variable',
    )
    expect(unservedNetworkProblem('TRON_NILLE_RPC_URL', 'TRON_NILLE', ['TRON'], registry)).toBe(
      'TRON_NILLE_RPC_URL: TRON_NILLE is not a network; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET',
    )
    expect(unservedNetworkProblem('SOLANA_RPC_URL', 'SOLANA', [], registry)).toBe(
      'SOLANA_RPC_URL: SOLANA is not in CHAIN_NETWORKS (none); add it there or remove the variable',
    )
  })
})

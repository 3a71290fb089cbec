import { describe, expect, it } from 'vitest'
import {
  type AssetRegistryConfig,
  addressFamily,
  assetKey,
  defaultAssetRegistry,
  findAssetByContract,
  findNetwork,
  mergeAssetRegistry,
  resolveAsset,
} from './assets.js'
import { DomainError } from './errors.js'

const registry = defaultAssetRegistry

describe('defaultAssetRegistry', () => {
  it('holds the v1 networks with their confirmation requirements', () => {
    expect(registry.networks).toEqual([
      { network: 'TRON', chain: 'TRON', requiredConfirmations: 20, testnet: false },
      { network: 'TRON_NILE', chain: 'TRON', requiredConfirmations: 20, testnet: true },
      { network: 'SOLANA', chain: 'SOLANA', requiredConfirmations: 32, testnet: false },
      { network: 'SOLANA_DEVNET', chain: 'SOLANA', requiredConfirmations: 32, testnet: true },
    ])
  })

  it('holds exactly the assets of docs/api.md, "Assets" and the test networks', () => {
    const rows = registry.assets.map((a) => [
      a.network,
      a.chain,
      a.currency,
      a.tokenStandard,
      a.decimals,
      a.contract,
    ])
    expect(rows).toEqual([
      ['TRON', 'TRON', 'TRX', 'NATIVE', 6, null],
      ['TRON', 'TRON', 'USDT', 'TRC20', 6, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
      ['SOLANA', 'SOLANA', 'SOL', 'NATIVE', 9, null],
      ['SOLANA', 'SOLANA', 'USDC', 'SPL', 6, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
      ['SOLANA', 'SOLANA', 'USDT', 'SPL', 6, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'],
      ['TRON_NILE', 'TRON', 'TRX', 'NATIVE', 6, null],
      ['TRON_NILE', 'TRON', 'USDT', 'TRC20', 6, 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'],
      ['SOLANA_DEVNET', 'SOLANA', 'SOL', 'NATIVE', 9, null],
      ['SOLANA_DEVNET', 'SOLANA', 'USDC', 'SPL', 6, '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'],
    ])
  })

  it('limits every asset to 1,000,000,000 whole units', () => {
    const usdt = resolveAsset(registry, { network: 'TRON', currency: 'USDT' })
    const sol = resolveAsset(registry, { network: 'SOLANA', currency: 'SOL' })
    expect(usdt.maxAmountUnits).toBe('1000000000000000')
    expect(sol.maxAmountUnits).toBe('1000000000000000000')
    // the rent-exempt minimum of a system account, 890,880 lamports (docs/api.md, "Amount floors")
    expect(sol.minAmountUnits).toBe('890880')
    expect(usdt.minAmountUnits).toBeUndefined()
  })
})

describe('assetKey', () => {
  it('joins network and currency', () => {
    expect(assetKey({ network: 'TRON', currency: 'USDT' })).toBe('TRON:USDT')
  })
})

describe('resolveAsset', () => {
  it('finds an asset and infers the token standard', () => {
    const asset = resolveAsset(registry, { network: 'SOLANA', currency: 'USDC' })
    expect(asset).toMatchObject({ tokenStandard: 'SPL', decimals: 6 })
  })

  it('accepts a matching token standard', () => {
    expect(
      resolveAsset(registry, { network: 'TRON', currency: 'USDT', tokenStandard: 'TRC20' }).contract,
    ).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
  })

  it('rejects a combination that is not registered and lists what is supported', () => {
    expect(() => resolveAsset(registry, { network: 'TRON', currency: 'USDC' })).toThrow(
      'unsupported asset USDC on TRON; supported: TRON: TRX (NATIVE), USDT (TRC20); ' +
        'TRON_NILE: TRX (NATIVE), USDT (TRC20); SOLANA: SOL (NATIVE), USDC (SPL), USDT (SPL); ' +
        'SOLANA_DEVNET: SOL (NATIVE), USDC (SPL)',
    )
  })

  it('rejects a token standard that does not match', () => {
    expect(() => resolveAsset(registry, { network: 'TRON', currency: 'USDT', tokenStandard: 'SPL' })).toThrow(
      /^unsupported asset USDT \(SPL\) on TRON; supported: TRON: /,
    )
  })

  it.each([
    { network: 'tron', currency: 'USDT' },
    { network: 'TRON', currency: 'usdt' },
    { network: 'TRON', currency: 'USDT', tokenStandard: 'trc20' },
    { network: 'ETHEREUM', currency: 'USDT' },
  ])('only accepts canonical upper-case values: %j', (request) => {
    let thrown: unknown
    try {
      resolveAsset(registry, request)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(DomainError)
    expect(thrown).toMatchObject({ code: 'UNSUPPORTED_ASSET' })
  })
})

describe('addressFamily', () => {
  it('puts every network of a chain, mainnet and test networks alike, in one family', () => {
    expect(addressFamily(registry, 'TRON')).toEqual({ chain: 'TRON', networks: ['TRON', 'TRON_NILE'] })
    expect(addressFamily(registry, 'SOLANA')).toEqual({
      chain: 'SOLANA',
      networks: ['SOLANA', 'SOLANA_DEVNET'],
    })
  })

  it('takes in the networks an operator adds to the registry', () => {
    const extended = mergeAssetRegistry(registry, {
      networks: [{ network: 'SOLANA_TESTNET', chain: 'SOLANA', requiredConfirmations: 32, testnet: true }],
    })
    expect(addressFamily(extended, 'SOLANA').networks).toEqual(['SOLANA', 'SOLANA_DEVNET', 'SOLANA_TESTNET'])
    expect(addressFamily(extended, 'TRON').networks).toEqual(['TRON', 'TRON_NILE'])
  })
})

describe('findNetwork', () => {
  it('finds a network by name', () => {
    expect(findNetwork(registry, 'SOLANA_DEVNET')).toMatchObject({ chain: 'SOLANA', testnet: true })
    expect(findNetwork(registry, 'solana')).toBeUndefined()
  })
})

describe('findAssetByContract', () => {
  it('finds a token by contract or mint on its network only', () => {
    expect(findAssetByContract(registry, 'TRON', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')?.currency).toBe('USDT')
    expect(findAssetByContract(registry, 'TRON_NILE', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBeUndefined()
    expect(
      findAssetByContract(registry, 'SOLANA', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB')?.currency,
    ).toBe('USDT')
  })

  it('finds the native coin for a null contract', () => {
    expect(findAssetByContract(registry, 'SOLANA', null)?.currency).toBe('SOL')
  })

  it('does not match a contract that differs in case (base58 is case-sensitive)', () => {
    expect(findAssetByContract(registry, 'TRON', 'tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t')).toBeUndefined()
  })
})

describe('mergeAssetRegistry', () => {
  it('returns the same registry for an empty configuration', () => {
    expect(mergeAssetRegistry(registry, {})).toEqual(registry)
  })

  it('overrides a network by name', () => {
    const merged = mergeAssetRegistry(registry, {
      networks: [{ network: 'TRON', chain: 'TRON', requiredConfirmations: 19, testnet: false }],
    })
    expect(findNetwork(merged, 'TRON')?.requiredConfirmations).toBe(19)
    expect(merged.networks).toHaveLength(4)
  })

  it('overrides an asset by network and currency, with a maximum in whole units', () => {
    const merged = mergeAssetRegistry(registry, {
      assets: [
        {
          network: 'TRON',
          currency: 'USDT',
          tokenStandard: 'TRC20',
          decimals: 6,
          contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
          maxAmount: '50000.5',
        },
      ],
    })
    expect(resolveAsset(merged, { network: 'TRON', currency: 'USDT' }).maxAmountUnits).toBe('50000500000')
    expect(merged.assets).toHaveLength(registry.assets.length)
  })

  it('adds a network and its assets', () => {
    const merged = mergeAssetRegistry(registry, {
      networks: [{ network: 'SOLANA_TESTNET', chain: 'SOLANA', requiredConfirmations: 32, testnet: true }],
      assets: [
        { network: 'SOLANA_TESTNET', currency: 'SOL', tokenStandard: 'NATIVE', decimals: 9, contract: null },
      ],
    })
    const sol = resolveAsset(merged, { network: 'SOLANA_TESTNET', currency: 'SOL' })
    expect(sol).toEqual({
      network: 'SOLANA_TESTNET',
      chain: 'SOLANA',
      currency: 'SOL',
      tokenStandard: 'NATIVE',
      decimals: 9,
      contract: null,
      maxAmountUnits: '1000000000000000000',
    })
    expect(() => resolveAsset(merged, { network: 'TRON', currency: 'USDC' })).toThrow(
      /SOLANA_TESTNET: SOL \(NATIVE\)/,
    )
  })

  it('does not change the base registry', () => {
    mergeAssetRegistry(registry, {
      networks: [{ network: 'TRON', chain: 'TRON', requiredConfirmations: 1, testnet: false }],
    })
    expect(findNetwork(registry, 'TRON')?.requiredConfirmations).toBe(20)
  })

  const usdc = { network: 'TRON', currency: 'USDC', tokenStandard: 'TRC20', decimals: 6 }
  const tronUsdc = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8'

  it.each<[string, unknown, RegExp]>([
    [
      'a lower-case network name',
      { networks: [{ network: 'tron_x', chain: 'TRON', requiredConfirmations: 1, testnet: false }] },
      /networks\[0\]\.network: must be an upper-case name/,
    ],
    [
      'an unknown chain',
      { networks: [{ network: 'ETH', chain: 'ETHEREUM', requiredConfirmations: 1, testnet: false }] },
      /networks\[0\]\.chain: must be TRON or SOLANA/,
    ],
    [
      'zero confirmations',
      { networks: [{ network: 'TRON', chain: 'TRON', requiredConfirmations: 0, testnet: false }] },
      /requiredConfirmations: must be at least 1/,
    ],
    [
      'a missing testnet flag',
      { networks: [{ network: 'TRON', chain: 'TRON', requiredConfirmations: 20 }] },
      /testnet: must be true or false/,
    ],
    [
      'a lower-case currency',
      { assets: [{ ...usdc, currency: 'usdc', contract: tronUsdc }] },
      /assets\[0\]\.currency: must be an upper-case name/,
    ],
    [
      '19 decimals',
      { assets: [{ ...usdc, decimals: 19, contract: tronUsdc }] },
      /assets\[0\]\.decimals: must be an integer from 0 to 18/,
    ],
    [
      'negative decimals',
      { assets: [{ ...usdc, decimals: -1, contract: tronUsdc }] },
      /decimals: must be an integer from 0 to 18/,
    ],
    [
      'an unknown token standard',
      { assets: [{ ...usdc, tokenStandard: 'ERC20', contract: tronUsdc }] },
      /tokenStandard: must be NATIVE, TRC20 or SPL/,
    ],
    [
      'a token without contract',
      { assets: [{ ...usdc, contract: null }] },
      /assets\[0\]\.contract: must be the base58 address/,
    ],
    [
      'a native coin with a contract',
      {
        assets: [
          { network: 'TRON', currency: 'TRX', tokenStandard: 'NATIVE', decimals: 6, contract: tronUsdc },
        ],
      },
      /contract: must be null for a native coin/,
    ],
    [
      'an asset on an unknown network',
      { assets: [{ ...usdc, network: 'TRON_SHASTA', contract: tronUsdc }] },
      /asset TRON_SHASTA:USDC: network TRON_SHASTA is not defined/,
    ],
    [
      'a token standard of another chain',
      { assets: [{ ...usdc, tokenStandard: 'SPL', contract: tronUsdc }] },
      /asset TRON:USDC: tokenStandard SPL does not exist on TRON/,
    ],
    [
      'a malformed maximum',
      { assets: [{ ...usdc, contract: tronUsdc, maxAmount: '1e6' }] },
      /asset TRON:USDC: maxAmount must be a decimal string/,
    ],
    [
      'a zero maximum',
      { assets: [{ ...usdc, contract: tronUsdc, maxAmount: '0' }] },
      /maxAmount must be greater than 0/,
    ],
    [
      'a malformed minimum',
      { assets: [{ ...usdc, contract: tronUsdc, minAmount: '0.0000001' }] },
      /asset TRON:USDC: minAmount must be a decimal string with at most 6 decimals/,
    ],
    [
      'a zero minimum',
      { assets: [{ ...usdc, contract: tronUsdc, minAmount: '0' }] },
      /minAmount must be greater than 0/,
    ],
    [
      'a minimum above the maximum',
      { assets: [{ ...usdc, contract: tronUsdc, minAmount: '2', maxAmount: '1' }] },
      /minAmount must not exceed maxAmount/,
    ],
    [
      'a contract registered twice',
      { assets: [{ ...usdc, contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' }] },
      /network TRON: TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t is registered twice/,
    ],
    [
      'an asset configured twice',
      {
        assets: [
          { ...usdc, contract: tronUsdc },
          { ...usdc, contract: tronUsdc },
        ],
      },
      /assets: TRON:USDC is configured twice/,
    ],
    [
      'a network moved to another chain under its assets',
      { networks: [{ network: 'TRON', chain: 'SOLANA', requiredConfirmations: 32, testnet: false }] },
      /asset TRON:USDT: tokenStandard TRC20 does not exist on SOLANA/,
    ],
    ['assets that are not a list', { assets: { network: 'TRON' } }, /assets: must be an array/],
  ])('rejects %s', (_, config, message) => {
    expect(() => mergeAssetRegistry(registry, config as AssetRegistryConfig)).toThrow(message)
  })
})

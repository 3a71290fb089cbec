// The registry's mints on a watched Solana network, asked of the node through @solana/web3.js
// before anything is watched (decisions 19; docs/chains.md, "Token-2022 mints").

import { type SimulatorNode, startSimulatorNode, testNetworks } from '@chainpay/chain-sim/testing'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { type AssetRegistry, defaultAssetRegistry, mergeAssetRegistry } from '@chainpay/domain'
import { afterEach, describe, expect, it } from 'vitest'
import { createSolanaMintGuard, solanaMintProblems } from './solana-mint-guard.js'
import { testLogger } from './testing/index.js'

/** PayPal USD on mainnet: a Token-2022 mint */
const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo'
const withPyusd: AssetRegistry = mergeAssetRegistry(defaultAssetRegistry, {
  assets: [{ network: 'SOLANA', currency: 'PYUSD', tokenStandard: 'SPL', decimals: 6, contract: PYUSD }],
})

let node: SimulatorNode | undefined
afterEach(async () => {
  await node?.close()
  node = undefined
})

const readerOf = (url: string, registry: AssetRegistry) =>
  createSolanaAddressReader({
    network: 'SOLANA',
    registry,
    connection: createSolanaConnection({ rpcUrl: url }),
  })

describe('the registry mints of a Solana network', () => {
  it('refuses a Token-2022 mint at start, naming it; the classic SPL Token mints pass', async () => {
    node = await startSimulatorNode({
      networks: testNetworks('SOLANA'),
      registry: withPyusd,
      token2022Mints: [PYUSD],
    })
    const reader = readerOf(node.solanaUrl('SOLANA'), withPyusd)
    expect(await solanaMintProblems(reader, defaultAssetRegistry, 'SOLANA')).toEqual([])
    const problems = await solanaMintProblems(reader, withPyusd, 'SOLANA')
    expect(problems).toEqual([expect.stringMatching(/^SOLANA PYUSD \(mint 2b1kV6Dk\w+\): a Token-2022 mint/)])

    const guard = createSolanaMintGuard({
      networks: [{ network: 'SOLANA', reader }],
      registry: withPyusd,
      logger: testLogger,
    })
    await expect(guard.start()).rejects.toThrow(/^refusing to start: SOLANA PYUSD .*Token-2022/)
    const fine = createSolanaMintGuard({
      networks: [{ network: 'SOLANA', reader }],
      registry: defaultAssetRegistry,
      logger: testLogger,
    })
    await fine.start()
    expect(fine.notReadyReason()).toBeUndefined()
    await fine.stop()
  })

  it('refuses a mint the network does not have: a typo in the registry', async () => {
    const typo: AssetRegistry = mergeAssetRegistry(defaultAssetRegistry, {
      assets: [
        {
          network: 'SOLANA',
          currency: 'USDX',
          tokenStandard: 'SPL',
          decimals: 6,
          contract: '11111111111111111111111111111112',
        },
      ],
    })
    node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
    expect(await solanaMintProblems(readerOf(node.solanaUrl('SOLANA'), typo), typo, 'SOLANA')).toEqual([
      expect.stringMatching(/^SOLANA USDX .*no such account on this network/),
    ])
  })

  it('starts though the node does not answer, not ready until it has been asked', async () => {
    const guard = createSolanaMintGuard({
      networks: [{ network: 'SOLANA', reader: readerOf('http://127.0.0.1:9', defaultAssetRegistry) }],
      registry: defaultAssetRegistry,
      logger: testLogger,
    })
    await guard.start()
    expect(guard.notReadyReason()).toBe('the registry mints of SOLANA not checked yet')
    await guard.stop()
  })
})

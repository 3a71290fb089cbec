// The simulator's in-process Solana address reader passes the port's contract, with the same driver
// (signed payments over the node's HTTP) as the web3.js adapter: it reports what web3.js reports.
import { defaultAssetRegistry } from '@chainpay/domain'
import { describeSolanaAddressReaderContract } from '@chainpay/ports/testing'
import { expect, vi } from 'vitest'
import { createSimulatorAddressReader } from './simulator-address-reader.js'
import { startSimulatorNode, testNetworks } from './testing/simulator-node.js'
import { solanaAddressReaderDriver } from './testing/solana-reader-driver.js'

describeSolanaAddressReaderContract('the chain simulator in process', async () => {
  const node = await startSimulatorNode({ networks: testNetworks('SOLANA') })
  const reader = createSimulatorAddressReader({
    simulator: node.simulator,
    network: 'SOLANA',
    registry: defaultAssetRegistry,
  })
  return {
    reader,
    driver: await solanaAddressReaderDriver(node, 'SOLANA'),
    subscriptionsLive: (count) => vi.waitFor(() => expect(reader.subscriptionCount()).toBe(count)),
    teardown: () => node.close(),
  }
})

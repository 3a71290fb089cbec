import { type ChainClientContractContext, describeChainClientContract } from '@chainpay/ports/testing'
import { simulatorChainDriver } from './testing/simulator-driver.js'
import { openTestSimulator, testNetworks } from './testing/simulator-node.js'

function simulatorContext(network: 'TRON' | 'SOLANA', currency: string) {
  return async (): Promise<ChainClientContractContext> => {
    // no timers: the suite produces every block through the driver
    const { simulator, close } = openTestSimulator({ networks: testNetworks(network) })
    return {
      client: simulator.client(network),
      driver: simulatorChainDriver(simulator, network, currency),
      teardown: close,
    }
  }
}

describeChainClientContract('chain simulator, TRON paying TRX', simulatorContext('TRON', 'TRX'))
describeChainClientContract('chain simulator, TRON paying USDT (TRC20)', simulatorContext('TRON', 'USDT'))
describeChainClientContract('chain simulator, SOLANA paying SOL', simulatorContext('SOLANA', 'SOL'))
describeChainClientContract('chain simulator, SOLANA paying USDC (SPL)', simulatorContext('SOLANA', 'USDC'))

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import { type ChainClientContractContext, describeChainClientContract } from '@chainpay/ports/testing'
import { simulatedAddress } from './chain-format.js'
import { createChainSimulator } from './simulator.js'

const logger = createRootLogger({ service: 'chain-sim-test', level: 'silent' })

function simulatorContext(network: 'TRON' | 'SOLANA', currency: string) {
  return async (): Promise<ChainClientContractContext> => {
    const directory = mkdtempSync(join(tmpdir(), 'chain-sim-contract-'))
    const db = new DatabaseSync(join(directory, 'chainpay.sqlite'))
    db.exec('PRAGMA journal_mode = WAL')
    // no timers: the suite produces every block through the driver
    const simulator = createChainSimulator({
      db,
      registry: defaultAssetRegistry,
      networks: [{ network, blockIntervalMs: 60_000 }],
      logger,
    })
    const asset = resolveAsset(defaultAssetRegistry, { network, currency })
    return {
      client: simulator.client(network),
      driver: {
        currency: {
          code: currency,
          decimals: asset.decimals,
          asset: asset.contract === null ? { kind: 'native' } : { kind: 'token', contract: asset.contract },
        },
        newAddress: () => simulatedAddress(asset.chain),
        submitTransfer: (transfer) => simulator.submitTransfer(network, { ...transfer, currency }),
        mineBlocks: async (count) => {
          await simulator.mineBlocks(network, count)
        },
        dropTransaction: (txHash) => simulator.dropTransaction(network, txHash),
      },
      async teardown() {
        await simulator.stop()
        db.close()
        rmSync(directory, { recursive: true, force: true })
      },
    }
  }
}

describeChainClientContract('chain simulator, TRON paying TRX', simulatorContext('TRON', 'TRX'))
describeChainClientContract('chain simulator, TRON paying USDT (TRC20)', simulatorContext('TRON', 'USDT'))
describeChainClientContract('chain simulator, SOLANA paying SOL', simulatorContext('SOLANA', 'SOL'))
describeChainClientContract('chain simulator, SOLANA paying USDC (SPL)', simulatorContext('SOLANA', 'USDC'))

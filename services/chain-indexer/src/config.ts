// The chain-indexer's configuration, read once from the environment at start.

import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/adapters'
import { type EnvReader, readEnv } from '@chainpay/platform'
import { readSharedConfig, type SharedConfig } from '@chainpay/service-kit'

export interface ChainIndexerConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** the simulator's dev routes, /healthz and /readyz */
  port: number
  /** where the chains come from; only the in-process simulator so far */
  chainMode: 'simulator'
  blockIntervalMs: { TRON: number; SOLANA: number }
}

export function readChainIndexerConfig(env: NodeJS.ProcessEnv = process.env): ChainIndexerConfig {
  const read = readEnv(env)
  const config: ChainIndexerConfig = {
    port: read.int('PORT', { default: 8092, min: 1, max: 65535 }),
    ...readSharedConfig(read),
    infrastructure: readInfrastructureConfig(read),
    chainMode: readChainMode(read),
    blockIntervalMs: {
      TRON: read.int('TRON_BLOCK_INTERVAL_MS', { default: 3000, min: 10, max: 60_000 }),
      SOLANA: read.int('SOLANA_BLOCK_INTERVAL_MS', { default: 400, min: 10, max: 60_000 }),
    },
  }
  read.done()
  return config
}

// Required rather than defaulted: a simulated chain confirms payments nobody paid, so running one
// must always be a deliberate choice.
function readChainMode(read: EnvReader): 'simulator' {
  const mode = read.optionalString('CHAIN_MODE')
  if (mode === undefined) {
    read.problem('CHAIN_MODE: required; simulator is the only mode so far')
  } else if (mode !== 'simulator') {
    read.problem(
      `CHAIN_MODE: expected simulator, got '${mode}'; watching real TRON and Solana RPC nodes comes with part 3`,
    )
  }
  return 'simulator'
}

// The projection's configuration, read once from the environment at start.

import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/adapters'
import { readEnv } from '@chainpay/platform'
import { readSharedConfig, type SharedConfig } from '@chainpay/service-kit'

export interface ProjectionConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** where /healthz and /readyz are served */
  healthPort: number
}

export function readProjectionConfig(env: NodeJS.ProcessEnv = process.env): ProjectionConfig {
  const read = readEnv(env)
  const config: ProjectionConfig = {
    healthPort: read.int('HEALTH_PORT', { default: 8093, min: 1, max: 65535 }),
    ...readSharedConfig(read),
    infrastructure: readInfrastructureConfig(read),
  }
  read.done()
  return config
}

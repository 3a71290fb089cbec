// The projection's configuration, read once from the environment at start.

import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/infrastructure'
import { readEnv } from '@chainpay/platform'
import { checkDistinctPorts, readSharedConfig, type SharedConfig } from '@chainpay/service-kit'

export interface ProjectionConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** where /healthz and /readyz are served; /metrics is on METRICS_PORT */
  healthPort: number
}

export function readProjectionConfig(env: NodeJS.ProcessEnv = process.env): ProjectionConfig {
  const read = readEnv(env)
  const healthPort = read.int('HEALTH_PORT', { default: 8093, min: 1, max: 65535 })
  const shared = readSharedConfig(read, 'projection')
  const config: ProjectionConfig = {
    healthPort,
    ...shared,
    infrastructure: readInfrastructureConfig(read),
  }
  checkDistinctPorts(read, { HEALTH_PORT: config.healthPort, METRICS_PORT: shared.metricsPort })
  read.done()
  return config
}

// The projection's configuration, read once from the environment at start.

import { readEnv } from '@chainpay/platform'
import { readSharedConfig, type SharedConfig } from '@chainpay/service-kit'

export interface ProjectionConfig extends SharedConfig {
  /** where /healthz and /readyz are served */
  healthPort: number
}

export function readProjectionConfig(env: NodeJS.ProcessEnv = process.env): ProjectionConfig {
  const read = readEnv(env)
  const config: ProjectionConfig = {
    healthPort: read.int('HEALTH_PORT', { default: 8093, min: 1, max: 65535 }),
    ...readSharedConfig(read),
  }
  read.done()
  return config
}

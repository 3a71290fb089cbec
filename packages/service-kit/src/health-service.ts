// The HTTP port of a deployable that has no API of its own: health and readiness only (and maybe
// development routes), as a lifecycle Service.

import type { Service } from '@chainpay/platform'
import { buildHealthApp, type HealthAppOptions } from './health.js'
import type { HttpServerLimits } from './http/server-limits.js'
import { httpService } from './http-service.js'

export interface HealthServiceOptions extends HealthAppOptions {
  /** how log lines name it; 'health API' by default */
  name?: string
  host: string
  port: number
  /** the variable that sets the port, named when it is taken (http-service.ts) */
  portVariable?: string
  /** the configuration's (SharedConfig.httpLimits); the defaults when absent */
  limits?: HttpServerLimits | undefined
}

export function healthService(options: HealthServiceOptions): Service {
  const { name = 'health API', host, port, portVariable, limits, ...app } = options
  return httpService({
    name,
    host,
    port,
    ...(portVariable === undefined ? {} : { portVariable }),
    limits,
    logger: options.logger,
    build: () => buildHealthApp(app),
  })
}

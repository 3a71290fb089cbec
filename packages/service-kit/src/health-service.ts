// The HTTP port of a deployable that has no API of its own: health and readiness only (and maybe
// development routes), as a lifecycle Service.

import type { Service } from '@chainpay/platform'
import { buildHealthApp, type HealthAppOptions } from './health.js'
import { httpService } from './http-service.js'

export interface HealthServiceOptions extends HealthAppOptions {
  /** how log lines name it; 'health API' by default */
  name?: string
  host: string
  port: number
}

export function healthService(options: HealthServiceOptions): Service {
  const { name = 'health API', host, port, ...app } = options
  return httpService({ name, host, port, logger: options.logger, build: () => buildHealthApp(app) })
}

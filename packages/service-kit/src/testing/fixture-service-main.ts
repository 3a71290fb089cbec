// A deployable in miniature, for service-kit's own end-to-end tests: runServiceMain with a health
// API on PORT. FAIL_BUILD=true makes its context fail to build; it logs when its context closes.
// LEFT_BEHIND=timer leaves a timer running once closed, LEFT_BEHIND=close never finishes closing:
// what a client that does not let go (kafkajs after its broker restarted) does.

import { LOG_LEVELS, readEnv } from '@chainpay/platform'
import { healthService } from '../health-service.js'
import { runServiceMain } from '../service-main.js'

function readFixtureConfig() {
  const read = readEnv()
  const config = {
    port: read.int('PORT', { min: 1, max: 65535 }),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, { default: 'info' }),
    dataDir: read.optionalString('DATA_DIR'),
    failBuild: read.bool('FAIL_BUILD', { default: false }),
    leftBehind: read.optionalString('LEFT_BEHIND'),
  }
  read.done()
  return config
}

await runServiceMain({
  service: 'fixture',
  readConfig: readFixtureConfig,
  async buildContext(config, logger) {
    if (config.failBuild) throw new Error('the fixture was told to fail')
    return {
      services: [
        healthService({ host: '127.0.0.1', port: config.port, logger, readiness: async () => true }),
      ],
      readiness: async () => true,
      async close() {
        if (config.leftBehind === 'close') await new Promise(() => setInterval(() => {}, 1000))
        if (config.leftBehind === 'timer') setInterval(() => {}, 1000)
        logger.info('context closed')
      },
    }
  },
})

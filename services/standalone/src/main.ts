// chainpay standalone: the five services in one process on embedded storage, with simulated chains.
import { ConfigError, createRootLogger, runUntilSignal } from '@chainpay/platform'
import { readStandaloneConfig } from './config.js'
import { buildStandalone } from './standalone.js'

async function main(): Promise<void> {
  let config: ReturnType<typeof readStandaloneConfig>
  try {
    config = readStandaloneConfig()
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error)
    process.stderr.write(`chainpay standalone cannot start: ${message}\n`)
    process.exitCode = 1
    return
  }
  const logger = createRootLogger({ service: 'standalone', level: config.logLevel })
  let standalone: Awaited<ReturnType<typeof buildStandalone>>
  try {
    standalone = await buildStandalone(config, logger)
  } catch (error) {
    logger.fatal({ err: error, dataDir: config.dataDir }, 'chainpay standalone cannot start')
    process.exitCode = 1
    return
  }
  await runUntilSignal({ logger, services: standalone.services })
  await standalone.close()
}

await main()

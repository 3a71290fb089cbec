// The start-up every deployable's main.ts runs: configuration or a one-line complaint, the root
// logger, the context, then the services until SIGTERM, then the adapters closed. A service that
// cannot start (a port already taken) stops the process: everything started is stopped, and it exits
// 1 with one fatal line saying what failed, never left running without one of its parts. A deployable
// takes no arguments (its configuration is its environment): --help prints its usage and nothing
// else is done.

import {
  ConfigError,
  createRootLogger,
  DEFAULT_FORCE_EXIT_AFTER_MS,
  type Logger,
  runUntilSignal,
  type Service,
} from '@chainpay/platform'
import { type PortClaim, unavailablePort } from './port-check.js'

/**
 * What a service's package builds from its configuration: its parts as lifecycle services, whether
 * it can do its work, and how to release what it opened. Each service package exports one context
 * factory; its main runs it alone, standalone composes all five (packages/standalone).
 */
export interface ServiceContext {
  /** in start order; runUntilSignal stops them in reverse */
  services: Service[]
  /** true when everything this service needs answers (its database, its bus, its nodes...) */
  readiness(): Promise<boolean>
  /** releases the adapters once every service has stopped */
  close(): Promise<void>
}

export interface MainConfig {
  logLevel: string
  /** named in the log line when the context cannot be built, the usual culprit being its files */
  dataDir?: string
}

export interface ServiceMainOptions<Config extends MainConfig> {
  /** the deployable's name: the logger's `service` field and the messages' subject */
  service: string
  /** throws ConfigError listing every problem */
  readConfig: () => Config
  buildContext: (config: Config, logger: Logger) => ServiceContext | Promise<ServiceContext>
  /**
   * the ports its listeners will take, checked before the context is built (which may write files:
   * standalone's first start), so that a port in use stops it first, naming its variable
   */
  ports?: (config: Config) => PortClaim[]
  /** what --help prints: the variables it reads; a generic line when absent */
  usage?: string
  /** the command line's arguments; process.argv's by default */
  argv?: readonly string[]
}

/**
 * A bad configuration is the operator's to fix: one message on stderr, exit code 1, no stack trace.
 * A context that cannot be built is logged as fatal, with the error, and exits 1 too.
 */
export async function runServiceMain<Config extends MainConfig>(
  options: ServiceMainOptions<Config>,
): Promise<void> {
  const { service } = options
  if (!argumentsAllowStart(options)) return
  const config = configOrExit(options)
  if (!config) return
  const logger = createRootLogger({ service, level: config.logLevel })
  const taken = options.ports ? await unavailablePort(options.ports(config)) : undefined
  if (taken !== undefined) {
    logger.fatal(`chainpay ${service} cannot start: ${taken}`)
    process.exitCode = 1
    return
  }
  let context: ServiceContext
  try {
    context = await options.buildContext(config, logger)
  } catch (error) {
    logger.fatal({ err: error, dataDir: config.dataDir }, `chainpay ${service} cannot start`)
    process.exitCode = 1
    return
  }
  const failure = await runUntilSignal({ logger, services: context.services })
  // Nothing of it serves any more: closing the adapters, or whatever a part left behind (a timer, a
  // client: kafkajs once held a connection after its broker restarted), must not keep the process
  // alive, where a supervisor (or a test waiting for the exit) would take it for running.
  let closed = false
  setTimeout(() => {
    if (closed) {
      // closed cleanly: a warning, and the exit code of the stop
      logger.warn(
        { forceAfterMs: DEFAULT_FORCE_EXIT_AFTER_MS },
        'stopped, but something left behind keeps the process alive: forcing exit',
      )
      process.exit()
    }
    logger.error({ forceAfterMs: DEFAULT_FORCE_EXIT_AFTER_MS }, 'closing took too long, forcing exit')
    process.exit(1)
  }, DEFAULT_FORCE_EXIT_AFTER_MS).unref()
  await context.close()
  closed = true
  if (failure === undefined) return
  const reason = failure.error instanceof Error ? failure.error.message : String(failure.error)
  logger.fatal(
    { component: failure.component, err: failure.error },
    `chainpay ${service} cannot start: ${reason}`,
  )
  process.exitCode = 1
}

/**
 * --help (or -h) prints the usage and exits 0; any other argument is refused, as a mistake (a
 * setting meant for the environment), with exit code 1. Either way nothing is read or written.
 */
function argumentsAllowStart<Config extends MainConfig>(options: ServiceMainOptions<Config>): boolean {
  const argv = options.argv ?? process.argv.slice(2)
  if (argv.length === 0) return true
  const usage =
    options.usage ??
    `chainpay ${options.service}: takes no arguments; it is configured by environment variables (docs/operations.md).`
  if (argv.every((argument) => argument === '--help' || argument === '-h')) {
    process.stdout.write(`${usage.trimEnd()}\n`)
    return false
  }
  process.stderr.write(
    `chainpay ${options.service}: unexpected argument '${argv.find((a) => a !== '--help' && a !== '-h')}': it takes no arguments but --help, and is configured by environment variables (see --help)\n`,
  )
  process.exitCode = 1
  return false
}

function configOrExit<Config extends MainConfig>(options: ServiceMainOptions<Config>): Config | undefined {
  try {
    return options.readConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`chainpay ${options.service} cannot start: ${error.message}\n`)
    process.exitCode = 1
    return undefined
  }
}

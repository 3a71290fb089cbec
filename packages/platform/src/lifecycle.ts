import type { Logger } from 'pino'

export interface Service {
  /** how log lines name it; `service <position>` when absent */
  name?: string
  start(): Promise<void>
  /** stop taking work, finish what is in flight, release resources; idempotent */
  stop(): Promise<void>
}

export interface ServiceRunnerOptions {
  logger: Logger
  services: Service[]
  /** default 10 s */
  forceAfterMs?: number
  /** how exit is forced when stopping hangs; process.exit by default */
  forceExit?: (code: number) => void
  /** where the outcome goes; process.exitCode by default */
  setExitCode?: (code: number) => void
}

/** the service that could not start, and why */
export interface StartFailure {
  component: string
  error: unknown
}

export interface ServiceRunner {
  /** starts the services in order; when one fails, stops those already started and resolves false */
  start(): Promise<boolean>
  /** set once a service failed to start */
  readonly startFailure: StartFailure | undefined
  /** stops the started services in reverse order; only the first call does it, later calls share its outcome */
  stop(reason: string): Promise<void>
}

export const DEFAULT_FORCE_EXIT_AFTER_MS = 10_000

const noop = () => {}

/**
 * The start and stop sequence behind runUntilSignal, without the signal handling, so that it can be
 * driven directly. Exit code 0 means every service started and stopped cleanly, 1 that one failed.
 */
export function createServiceRunner(options: ServiceRunnerOptions): ServiceRunner {
  const { logger, services } = options
  const forceAfterMs = options.forceAfterMs ?? DEFAULT_FORCE_EXIT_AFTER_MS
  const forceExit = options.forceExit ?? ((code: number) => process.exit(code))
  const setExitCode =
    options.setExitCode ??
    ((code: number) => {
      process.exitCode = code
    })

  const started: Service[] = []
  // the start in flight: a stop requested meanwhile waits for it, so that service is stopped too
  let startInFlight: Promise<void> = Promise.resolve()
  let stopping: Promise<void> | undefined
  let failed = false
  let startFailure: StartFailure | undefined

  const nameOf = (service: Service) => service.name ?? `service ${services.indexOf(service) + 1}`

  const stop = (reason: string): Promise<void> => {
    if (stopping) {
      logger.info({ reason }, 'already stopping')
      return stopping
    }
    stopping = (async () => {
      logger.info({ reason }, 'stopping')
      const forceTimer = setTimeout(() => {
        logger.error({ forceAfterMs }, 'stopping took too long, forcing exit')
        forceExit(1)
      }, forceAfterMs)
      // the timer must not keep an otherwise finished process alive
      forceTimer.unref()
      await startInFlight
      for (const service of [...started].reverse()) {
        const component = nameOf(service)
        logger.info({ component }, 'stopping component')
        try {
          await service.stop()
          logger.info({ component }, 'component stopped')
        } catch (error) {
          failed = true
          logger.error({ component, err: error }, 'component failed to stop')
        }
      }
      clearTimeout(forceTimer)
      setExitCode(failed ? 1 : 0)
      logger.info({ exitCode: failed ? 1 : 0 }, 'stopped')
    })()
    return stopping
  }

  const start = async (): Promise<boolean> => {
    for (const service of services) {
      if (stopping) return false
      const component = nameOf(service)
      logger.info({ component }, 'starting component')
      const attempt = service.start().then(() => {
        started.push(service)
      })
      startInFlight = attempt.catch(noop)
      try {
        await attempt
        logger.info({ component }, 'component started')
      } catch (error) {
        failed = true
        startFailure = { component, error }
        logger.error({ component, err: error }, 'component failed to start')
        await stop(`${component} failed to start`)
        return false
      }
    }
    return !stopping
  }

  return {
    start,
    stop,
    get startFailure() {
      return startFailure
    },
  }
}

/** where termination signals come from; the process by default */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown
}

/**
 * Runs a process's services: starts them in order, and on SIGTERM or SIGINT stops them in reverse
 * order, sets process.exitCode, and forces exit after `forceAfterMs` (default 10 s) if stopping hangs.
 * Resolves once everything has stopped, after a signal or after a service failed to start; then
 * with that failure.
 */
export async function runUntilSignal(
  options: ServiceRunnerOptions & { signalSource?: SignalSource },
): Promise<StartFailure | undefined> {
  const signalSource = options.signalSource ?? process
  const runner = createServiceRunner(options)
  let stopped: Promise<void> | undefined
  let signalled: () => void = noop
  const signal = new Promise<void>((resolve) => {
    signalled = resolve
  })
  const onSignal = (name: NodeJS.Signals) => {
    stopped = runner.stop(`received ${name}`)
    signalled()
  }
  signalSource.on('SIGTERM', onSignal)
  signalSource.on('SIGINT', onSignal)
  try {
    if (await runner.start()) {
      options.logger.info('running')
      await signal
    }
    await (stopped ?? Promise.resolve())
  } finally {
    signalSource.off('SIGTERM', onSignal)
    signalSource.off('SIGINT', onSignal)
  }
  return runner.startFailure
}

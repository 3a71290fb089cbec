import type { Logger } from 'pino'

export interface Service {
  start(): Promise<void>
  /** stop taking work, finish what is in flight, release resources; idempotent */
  stop(): Promise<void>
}

/**
 * Runs a process's services: starts them in order, and on SIGTERM or SIGINT stops them in reverse
 * order, sets process.exitCode, and forces exit after `forceAfterMs` (default 10 s) if stopping hangs.
 */
export declare function runUntilSignal(options: {
  logger: Logger
  services: Service[]
  forceAfterMs?: number
}): Promise<void>

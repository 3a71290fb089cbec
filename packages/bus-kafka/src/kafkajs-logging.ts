// kafkajs logs through a logCreator of its own; this one hands its lines to the process's pino logger,
// so that they come out as JSON with the service's fields, under `module: kafkajs`.

import type { Logger } from '@chainpay/platform'
import { type LogEntry, type logCreator, logLevel } from 'kafkajs'

export type KafkaLogLevel = 'error' | 'warn' | 'info' | 'debug'

const kafkajsLevels: Record<KafkaLogLevel, logLevel> = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
}

/** the kafkajs level that lets lines of `level` and above through */
export function kafkajsLogLevel(level: KafkaLogLevel): logLevel {
  return kafkajsLevels[level]
}

/**
 * A kafkajs logCreator writing to `logger.child({ module: 'kafkajs' })`. kafkajs logs every error
 * answer of the broker at ERROR, also those it retries itself (a rebalance announced to a
 * heartbeat, a coordinator still loading): those come out at warn. What kafkajs cannot recover from
 * still reaches the bus as an exception, which the bus logs or throws.
 */
export function pinoLogCreator(logger: Logger): logCreator {
  const kafkajsLogger = logger.child({ module: 'kafkajs' })
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log
      const line = { namespace, ...fields }
      if (level === logLevel.ERROR && !isBrokerErrorAnswer(namespace, message)) {
        kafkajsLogger.error(line, message)
      } else if (level <= logLevel.WARN && message !== limitedIdempotentRetriesWarning) {
        kafkajsLogger.warn(line, message)
      } else if (level === logLevel.INFO) {
        kafkajsLogger.info(line, message)
      } else {
        kafkajsLogger.debug(line, message)
      }
    }
}

/**
 * What kafkajs says of every idempotent producer with a bounded number of retries. The bus bounds
 * them so that a publish fails instead of retrying forever, and replaces the producer after a failed
 * publish, so that no sequence number of a batch that may have been written is ever reused.
 */
const limitedIdempotentRetriesWarning =
  'Limiting retries for the idempotent producer may invalidate EoS guarantees'

function isBrokerErrorAnswer(namespace: string, message: string): boolean {
  return namespace === 'Connection' && message.startsWith('Response ')
}

import { type DestinationStream, type Logger, pino } from 'pino'

export type { DestinationStream, Logger }

/** what LOG_LEVEL may say: pino's levels and silent */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

export type LogLevel = (typeof LOG_LEVELS)[number]

const SECRET_FIELDS = [
  'secret',
  'apiSecret',
  'webhookSecret',
  'token',
  'password',
  'seed',
  'mnemonic',
  'authorization',
  '["x-service-signature"]',
] as const

/** the field at the top level, and one and two levels down (depth up to 3) */
function atAnyDepth(field: string): string[] {
  const member = field.startsWith('[') ? field : `.${field}`
  return [field, `*${member}`, `*.*${member}`]
}

/** every pino redact path for the fields that must never reach a log line */
export const REDACTED_PATHS: readonly string[] = SECRET_FIELDS.flatMap(atAnyDepth)

export const REDACTION_CENSOR = '[redacted]'

/** true for a name the logger censors (token, secret...): also path parameters so named (http-app.ts) */
export function isSecretFieldName(name: string): boolean {
  return (SECRET_FIELDS as readonly string[]).includes(name)
}

/**
 * The one root pino logger of a process: JSON to stdout, level from LOG_LEVEL (default info),
 * secrets redacted (headers x-service-signature, authorization, and any field named secret,
 * apiSecret, webhookSecret, token, password, seed, mnemonic at any depth up to 3).
 * `destination` replaces stdout (tests capture the output with it).
 */
export function createRootLogger(options: {
  service: string
  level?: string
  destination?: DestinationStream
}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info'
  if (!(level in pino.levels.values) && level !== 'silent') {
    throw new Error(
      `LOG_LEVEL: expected one of ${Object.keys(pino.levels.values).join(', ')}, silent; got '${level}'`,
    )
  }
  const loggerOptions = {
    level,
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: [...REDACTED_PATHS], censor: REDACTION_CENSOR },
  }
  return options.destination ? pino(loggerOptions, options.destination) : pino(loggerOptions)
}

/** a child of the root logger for one module: logger.child({ module }) */
export function moduleLogger(parent: Logger, module: string): Logger {
  return parent.child({ module })
}

import type { Logger } from 'pino'

export type { Logger }

/**
 * The one root pino logger of a process: JSON to stdout, level from LOG_LEVEL (default info),
 * secrets redacted (headers x-service-signature, authorization, and any field named secret,
 * apiSecret, webhookSecret, token, password, seed, mnemonic at any depth up to 3).
 */
export declare function createRootLogger(options: { service: string; level?: string }): Logger

/** a child of the root logger for one module: logger.child({ module }) */
export declare function moduleLogger(parent: Logger, module: string): Logger

// Log lines for events a caller can cause without bound (answers past a rate limit, connections
// refused): the first per key (a client address) per window is written, the others only counted,
// and the count not written is carried on that key's next line. A flood of /pay/{token} wrote
// 428,628 lines in 30 s when each was logged (docs/operations.md, "Logs"); the metrics count them all.

import type { Logger } from '@chainpay/platform'

export interface SampledLogOptions {
  logger: Logger
  /** one line per key per window */
  windowMs: number
  /** the keys remembered at once; beyond them, one line per window says that more were not logged */
  maxKeys?: number
  /** epoch milliseconds */
  now: () => number
}

export interface SampledLog {
  /**
   * the first note of `key` in its window is written at warn, with `notLogged`: how many notes of
   * `key` the previous line left out; the others only counted
   */
  note(key: string, fields: Record<string, unknown>, message: string): void
}

/** enough for the addresses of a flood from many hosts, small enough to stay a few MB */
const DEFAULT_MAX_KEYS = 10_000

interface KeyWindow {
  startedAt: number
  /** notes of this key not written since its last line */
  notLogged: number
}

export function createSampledLog(options: SampledLogOptions): SampledLog {
  const { logger, windowMs, now } = options
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS
  const windows = new Map<string, KeyWindow>()
  let overflow: KeyWindow | undefined

  /** the Map holds the windows in the order they started: the expired ones come first */
  const forgetExpired = (at: number) => {
    for (const [key, window] of windows) {
      if (at - window.startedAt < windowMs) return
      windows.delete(key)
    }
  }
  return {
    note(key, fields, message) {
      const at = now()
      const window = windows.get(key)
      if (window !== undefined && at - window.startedAt < windowMs) {
        window.notLogged += 1
        return
      }
      if (window === undefined && windows.size >= maxKeys) forgetExpired(at)
      if (window === undefined && windows.size >= maxKeys) {
        if (overflow !== undefined && at - overflow.startedAt < windowMs) {
          overflow.notLogged += 1
          return
        }
        logger.warn(
          { ...fields, notLogged: overflow?.notLogged ?? 0 },
          `${message} (more than ${maxKeys} clients in ${windowMs / 1000} s: only one line per ${windowMs / 1000} s for the others)`,
        )
        overflow = { startedAt: at, notLogged: 0 }
        return
      }
      logger.warn({ ...fields, notLogged: window?.notLogged ?? 0 }, message)
      // a key seen again goes to the end, keeping the Map in the order of the windows' starts
      windows.delete(key)
      windows.set(key, { startedAt: at, notLogged: 0 })
    },
  }
}

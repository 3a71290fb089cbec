// For configuration tests: what an operator would be told.

import { ConfigError } from '@chainpay/platform'

/** the problems listed by the ConfigError `read` throws; none when it returns */
export function configProblems(read: () => unknown): string[] {
  try {
    read()
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

// Configuration from the environment, read once at start. Every problem is collected and reported
// together, each naming the variable and what is expected, so an operator fixes them in one go.

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`)
  }
}

export interface EnvReader {
  string(name: string, options?: { default?: string }): string
  optionalString(name: string): string | undefined
  /** integer within [min, max] */
  int(name: string, options: { default?: number; min?: number; max?: number }): number
  bool(name: string, options: { default: boolean }): boolean
  /** comma separated */
  list(name: string, options?: { default?: string[] }): string[]
  /** one of the given values */
  oneOf<T extends string>(name: string, values: readonly T[], options?: { default?: T }): T
  /** throws ConfigError with every problem seen so far, if any */
  done(): void
}

export declare function readEnv(env?: NodeJS.ProcessEnv): EnvReader

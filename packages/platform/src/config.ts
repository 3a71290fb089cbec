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
  /** records a problem the caller found itself (a bad key, two settings that conflict), for done() */
  problem(message: string): void
  /** throws ConfigError with every problem seen so far, if any */
  done(): void
}

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on'])
const FALSE_WORDS = new Set(['false', '0', 'no', 'off'])
const INTEGER_PATTERN = /^-?[0-9]+$/

function describeIntegerRange(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `an integer between ${min} and ${max}`
  if (min !== undefined) return `an integer of at least ${min}`
  if (max !== undefined) return `an integer of at most ${max}`
  return 'an integer'
}

/**
 * Reads variables from `env` (default process.env). A variable set to the empty string counts as
 * unset, as orchestrators often write `NAME=` for "no value". A reader that finds a problem records
 * it and returns a placeholder, so that every problem is found before done() reports them.
 */
export function readEnv(env: NodeJS.ProcessEnv = process.env): EnvReader {
  const problems: string[] = []

  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim()
    return value === undefined || value === '' ? undefined : value
  }

  const required = <T>(name: string, fallback: T): T => {
    problems.push(`${name}: required`)
    return fallback
  }

  return {
    string(name, options = {}) {
      const value = raw(name) ?? options.default
      return value ?? required(name, '')
    },

    optionalString(name) {
      return raw(name)
    },

    int(name, options) {
      const text = raw(name)
      if (text === undefined) return options.default ?? required(name, 0)
      const value = Number(text)
      const inRange =
        INTEGER_PATTERN.test(text) &&
        Number.isSafeInteger(value) &&
        (options.min === undefined || value >= options.min) &&
        (options.max === undefined || value <= options.max)
      if (!inRange) {
        problems.push(`${name}: expected ${describeIntegerRange(options.min, options.max)}, got '${text}'`)
        return options.default ?? 0
      }
      return value
    },

    bool(name, options) {
      const text = raw(name)
      if (text === undefined) return options.default
      const word = text.toLowerCase()
      if (TRUE_WORDS.has(word)) return true
      if (FALSE_WORDS.has(word)) return false
      problems.push(`${name}: expected true or false, got '${text}'`)
      return options.default
    },

    list(name, options = {}) {
      const text = raw(name)
      if (text === undefined) return options.default ?? []
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    },

    oneOf(name, values, options = {}) {
      const text = raw(name)
      const fallback = options.default ?? values[0]
      if (text === undefined) {
        if (options.default !== undefined) return options.default
        return required(name, fallback as (typeof values)[number])
      }
      const match = values.find((value) => value === text)
      if (match === undefined) {
        problems.push(`${name}: expected one of ${values.join(', ')}, got '${text}'`)
        return fallback as (typeof values)[number]
      }
      return match
    },

    problem(message) {
      problems.push(message)
    },

    done() {
      if (problems.length > 0) throw new ConfigError([...problems])
    },
  }
}

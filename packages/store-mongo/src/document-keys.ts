// MongoDB (before 5.0) and FerretDB v1 refuse field names that start with `$` or contain `.`, yet a
// merchant's metadata keys are returned exactly as sent, whatever they hold (`$where`, `a.b`). Keys
// of documents that carry merchant data are therefore escaped on the way in and unescaped on the way
// out: `%` -> `%25`, `.` -> `%2E`, a leading `$` -> `%24`. The escape character is escaped too, so
// every key round-trips exactly, including one that already looks escaped.

const ESCAPED = /%(25|2E|24)/g
const UNESCAPED: Record<string, string> = { '25': '%', '2E': '.', '24': '$' }

export function escapeKey(key: string): string {
  const escaped = key.replaceAll('%', '%25').replaceAll('.', '%2E')
  return escaped.startsWith('$') ? `%24${escaped.slice(1)}` : escaped
}

export function unescapeKey(key: string): string {
  return key.replace(ESCAPED, (_, code: string) => UNESCAPED[code] ?? '')
}

function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapKeys(item, rename))
  if (value === null || typeof value !== 'object' || value instanceof Date) return value
  const mapped: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) mapped[rename(key)] = mapKeys(item, rename)
  return mapped
}

/** a copy of `value` whose object keys, at every depth, are safe to store */
export function escapeKeys<T>(value: T): unknown {
  return mapKeys(value, escapeKey)
}

/** the inverse of escapeKeys */
export function unescapeKeys<T>(value: unknown): T {
  return mapKeys(value, unescapeKey) as T
}

// java-tron prints int64 fields as JSON numbers; above 2^53 JSON.parse would round them. Integers
// that do not fit a double exactly are kept as their decimal text (JSON.parse source access).

type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown

const keepUnsafeIntegers: Reviver = (_key, value, context) =>
  typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? '')
    ? context?.source
    : value

/** JSON text to values, unsafe integers as decimal strings; text that is no JSON stays as it is */
export function parseExactJson(data: unknown): unknown {
  if (typeof data !== 'string' || data.trim() === '') return data
  try {
    return JSON.parse(data, keepUnsafeIntegers as Parameters<typeof JSON.parse>[1])
  } catch {
    // not JSON (an HTML error page, a proxy's text): the caller rejects the shape or the status
    return data
  }
}

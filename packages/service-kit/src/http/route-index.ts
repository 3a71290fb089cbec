// Which methods the registered routes serve on a path, so that a request no route matched is told
// 405 (with Allow) rather than 404 when its path exists. Patterns are fastify's: static segments,
// `:param` segments and a trailing `*`.

export interface RouteIndex {
  add(url: string, method: string | string[]): void
  /**
   * The patterns that serve `path` (no query), the first of them named, and their methods in the
   * usual order, HEAD last; null when no route serves the path.
   */
  match(path: string): { pattern: string; methods: string[] } | null
  /**
   * `path` with every segment that a secret parameter of some pattern would take replaced by
   * `censor`: the segment at that parameter's place wherever the path begins like the pattern up to
   * it (so `/pay/{token}/anything`, which no route serves, is censored as well as `/pay/{token}`);
   * a path a static route serves is left as it is.
   */
  censor(path: string, isSecret: (parameter: string) => boolean, censor: string): string
}

/** a secret parameter's segment in a pattern, and the pattern's segments before it */
interface SecretPlace {
  index: number
  before: string[]
}

/** the order methods are listed in an Allow header; HEAD comes last, after GET's company */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

export function createRouteIndex(): RouteIndex {
  const patterns = new Map<string, { matcher: RegExp; methods: Set<string> }>()
  // what censor needs, kept between requests (it runs for every request's log line): the static
  // routes' paths, and where each pattern has a secret parameter, worked out again after an add
  const staticUrls = new Set<string>()
  let secretPlaces: { isSecret: (parameter: string) => boolean; places: SecretPlace[] } | undefined
  const secretPlacesOf = (isSecret: (parameter: string) => boolean): SecretPlace[] => {
    if (secretPlaces?.isSecret === isSecret) return secretPlaces.places
    const places: SecretPlace[] = []
    for (const url of patterns.keys()) {
      const parts = url.split('/')
      parts.forEach((part, index) => {
        if (!part.startsWith(':') || !isSecret(part.slice(1))) return
        const before = parts.slice(0, index)
        if (before.every((expected) => expected !== '*')) places.push({ index, before })
      })
    }
    secretPlaces = { isSecret, places }
    return places
  }
  return {
    censor(path, isSecret, censor) {
      // a static route the path is (the router prefers it to any parameter): nothing to censor
      if (staticUrls.has(path)) return path
      const segments = path.split('/')
      for (const { index, before } of secretPlacesOf(isSecret)) {
        if (index >= segments.length) continue
        const sameStart = before.every((expected, at) =>
          expected.startsWith(':') ? segments[at] !== '' : expected === segments[at],
        )
        if (sameStart) segments[index] = censor
      }
      return segments.join('/')
    },
    add(url, method) {
      let entry = patterns.get(url)
      if (entry === undefined) {
        entry = { matcher: matcherOf(url), methods: new Set() }
        patterns.set(url, entry)
        if (!url.includes(':') && !url.includes('*')) staticUrls.add(url)
        secretPlaces = undefined
      }
      for (const one of Array.isArray(method) ? method : [method]) entry.methods.add(one)
    },
    match(path) {
      let pattern: string | undefined
      const methods = new Set<string>()
      for (const [url, { matcher, methods: served }] of patterns) {
        if (!matcher.test(path)) continue
        pattern ??= url
        for (const method of served) methods.add(method)
      }
      if (pattern === undefined) return null
      const ordered = METHOD_ORDER.filter((method) => methods.has(method))
      const others = [...methods].filter((method) => !METHOD_ORDER.includes(method) && method !== 'HEAD')
      // fastify answers HEAD wherever it answers GET
      const head = methods.has('HEAD') || methods.has('GET') ? ['HEAD'] : []
      return { pattern, methods: [...ordered, ...others, ...head] }
    },
  }
}

function matcherOf(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*'
      if (segment.startsWith(':')) return '[^/]+'
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return new RegExp(`^${source}$`)
}

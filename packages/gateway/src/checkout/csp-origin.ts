// What of a merchant's URL may go into the page's Content-Security-Policy (docs/api.md, "The
// customer's page"): its origin serialised as a CSP host-source, or nothing. The URL parser accepts
// hosts such as `a;script-src*;x`, whose origin would end the directive and start another, so the
// origin is written only when its host is made of what a CSP host-source allows (letters, digits,
// hyphens and dots, after the parser has lower-cased and punycoded it) and its port of digits.

const CSP_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/

/** `scheme://host[:port]` of an http(s) URL, fit for a CSP source list; null when it is not */
export function cspOriginOf(url: string): string | null {
  const parsed = URL.parse(url)
  if (parsed === null || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return null
  if (!CSP_HOST.test(parsed.hostname) || !/^[0-9]*$/.test(parsed.port)) return null
  return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`
}

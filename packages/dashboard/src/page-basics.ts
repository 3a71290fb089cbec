// What every page set of the dashboard and the operator's views register alike (docs/dashboard.md,
// "Sessions and forms"): forms of short text fields, and the page headers (nothing from another
// origin, no framing, no caching), and the two readers of a request's fields.

import type { FastifyInstance } from 'fastify'

/** the forms' fields (first value of each name) and the page headers, on `app` */
export function registerPageBasics(app: FastifyInstance, options: { sameOriginScript: boolean }): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => {
      const fields: Record<string, string> = {}
      for (const [name, value] of new URLSearchParams(String(body))) fields[name] ??= value
      done(null, fields)
    },
  )
  // the live updates' script and its status requests, where a page set has them (live-updates.ts)
  const script = options.sameOriginScript ? " script-src 'self'; connect-src 'self';" : ''
  const policy = `default-src 'none';${script} style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', policy)
    reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-content-type-options', 'nosniff')
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  })
}

/** a query parameter's first value */
export const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/** a form field's text; undefined when absent or not text */
export function formField(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

// What every customer page answers with (docs/api.md, "The customer's page" and "The refund claim
// page"): a strict Content-Security-Policy (nothing from another origin, no inline script or style),
// framing denied unless the operator allows origins, no referrer, no sniffing, no caching but of the
// assets; and the check that a form post comes from the page itself.

import type { FastifyInstance, FastifyRequest } from 'fastify'

export interface CustomerPageHeaders {
  /** formTargets: where the page's forms may lead besides itself (Chrome checks form-action on redirects too) */
  contentSecurityPolicy(formTargets?: string[]): string
}

/** adds the headers to every answer of `scope`; an answer that set its own CSP or Cache-Control keeps it */
export function addCustomerPageHeaders(
  scope: FastifyInstance,
  frameAncestors: string[],
): CustomerPageHeaders {
  const ancestors = frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"
  const contentSecurityPolicy = (formTargets: string[] = []) =>
    `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; ` +
    `form-action ${["'self'", ...formTargets].join(' ')}; base-uri 'none'; frame-ancestors ${ancestors}`
  scope.addHook('onSend', async (_request, reply) => {
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', contentSecurityPolicy())
    }
    if (frameAncestors.length === 0) reply.header('x-frame-options', 'DENY')
    reply.header('referrer-policy', 'no-referrer')
    reply.header('x-content-type-options', 'nosniff')
    // the assets and the icon say how long they may be kept; nothing else may be
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store')
  })
  return { contentSecurityPolicy }
}

/**
 * Whether a form post comes from a page of this origin. The token in the path is the customer's
 * secret, which another site does not know; on top, browsers say where a POST comes from:
 * Sec-Fetch-Site, and Origin, which is "null" under the pages' Referrer-Policy: no-referrer. A
 * client that sends neither (not a browser) is let through: it knows the token.
 */
export function isSameOriginPost(request: FastifyRequest, publicOrigin: string): boolean {
  const origin = request.headers.origin
  const site = request.headers['sec-fetch-site']
  const foreignOrigin = origin !== undefined && origin !== 'null' && origin !== publicOrigin
  return !foreignOrigin && (site === undefined || site === 'same-origin')
}

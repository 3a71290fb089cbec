// Request metrics and GET /metrics for the merchant and admin APIs. The gateway does not depend on
// prom-client: service-kit's createServiceMetrics gives objects of these shapes (`metrics.http`,
// `metrics.registry`).

import type { HttpApp } from './http-app.js'

export const METRICS_PATH = '/metrics'

export interface RequestObservation {
  method: string
  /** the route pattern the request matched (never its URL, which holds ids); undefined when none */
  route: string | undefined
  statusCode: number
  durationSeconds: number
}

export interface RequestMetrics {
  observeRequest(request: RequestObservation): void
}

/** what GET /metrics answers with, e.g. a prom-client Registry */
export interface MetricsExposition {
  readonly contentType: string
  metrics(): Promise<string>
}

/** every answered request but the scrapes of /metrics; on the root app, before any plugin */
export function observeRequests(app: HttpApp, metrics: RequestMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url
    if (route === METRICS_PATH) return
    metrics.observeRequest({
      method: request.method,
      route,
      statusCode: reply.statusCode,
      durationSeconds: reply.elapsedTime / 1000,
    })
  })
}

export function serveMetrics(app: HttpApp, exposition: MetricsExposition): void {
  // scraped every few seconds: a line per scrape would drown the requests worth reading
  app.get(METRICS_PATH, { logLevel: 'warn' }, async (_request, reply) =>
    reply.type(exposition.contentType).send(await exposition.metrics()),
  )
}

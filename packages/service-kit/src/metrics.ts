// Prometheus metrics: one registry per process, every series labelled with the service's name, holding
// the process's own metrics and the families its parts report into. The domain packages do not know
// prom-client: each takes a small observer interface of its own, which the objects here fit.

import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

/** where every service answers with its metrics in the Prometheus text format */
export const METRICS_PATH = '/metrics'

/** the route label of a request that matched no route: raw URLs would make a series per id */
export const UNMATCHED_ROUTE = 'unmatched'

export interface HttpRequestObservation {
  method: string
  /** the pattern the request matched, e.g. /payments/:paymentId; undefined when it matched none */
  route: string | undefined
  statusCode: number
  durationSeconds: number
}

export interface HttpRequestMetrics {
  observeRequest(request: HttpRequestObservation): void
}

/** why a request was answered 429 RATE_LIMITED: its address's budget, or its API key's */
export type RateLimitReason = 'per_address' | 'per_api_key'

/** what the public port refused before any route ran (docs/operations.md, "HTTP limits") */
export interface HttpRefusalMetrics {
  /** a connection closed as it arrived: its address held its share, or the port was full */
  connectionRefused(reason: 'per_address' | 'port_full'): void
  /** a request answered 429 RATE_LIMITED; `group` names the routes (merchant_api, checkout) */
  requestLimited(group: string, reason: RateLimitReason): void
}

export interface RelayMetrics {
  /** events were read that are not on the bus yet; the oldest of them was recorded at `recordedAt` */
  behind(oldestRecordedAt: string): void
  /** a batch is on the bus: `count` payment events, the newest event passed recorded at `recordedAt` */
  published(count: number, newestRecordedAt: string): void
}

export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed' | 'no_target'

export interface WebhookMetrics {
  /** one attempt, recorded: what came of it and how long it took */
  attempted(outcome: WebhookAttemptOutcome, durationMs: number): void
  /** a delivery was recorded with no URL to send it to, so it is not attempted: counts as no_target */
  recordedWithoutTarget(): void
}

export interface ChainMetrics {
  /** after a scan of `network`: the chain's head and the height the indexer's cursor stands at */
  scanned(network: string, headHeight: number, cursorHeight: number): void
}

export interface ServiceMetrics {
  /** what GET /metrics serves (`healthService({ metricsRegistry })`) */
  readonly registry: Registry
  // Each family is registered on first use, so that a service shows only the metrics it reports
  // into, not a relay lag of 0 in a process without a relay.
  readonly http: HttpRequestMetrics
  readonly refusals: HttpRefusalMetrics
  readonly relay: RelayMetrics
  readonly webhooks: WebhookMetrics
  readonly chain: ChainMetrics
}

export interface ServiceMetricsOptions {
  /** what the relay lag is measured against, in epoch milliseconds; default Date.now */
  now?: () => number
  /** the process's CPU, memory, event loop and GC metrics; default true */
  processMetrics?: boolean
}

/** a registry labelled `service=<service>` with the process metrics, and its metric families */
export function createServiceMetrics(service: string, options: ServiceMetricsOptions = {}): ServiceMetrics {
  const registry = new Registry()
  registry.setDefaultLabels({ service })
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry })
  const now = options.now ?? Date.now

  let http: HttpRequestMetrics | undefined
  let refusals: HttpRefusalMetrics | undefined
  let relay: RelayMetrics | undefined
  let webhooks: WebhookMetrics | undefined
  let chain: ChainMetrics | undefined
  return {
    registry,
    get http() {
      http ??= createHttpRequestMetrics(registry)
      return http
    },
    get refusals() {
      refusals ??= createHttpRefusalMetrics(registry)
      return refusals
    },
    get relay() {
      relay ??= createRelayMetrics(registry, now)
      return relay
    },
    get webhooks() {
      webhooks ??= createWebhookMetrics(registry)
      return webhooks
    },
    get chain() {
      chain ??= createChainMetrics(registry)
      return chain
    },
  }
}

function createHttpRequestMetrics(registry: Registry): HttpRequestMetrics {
  const duration = new Histogram({
    name: 'chainpay_http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to sending its response, by route pattern',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  })
  return {
    observeRequest({ method, route, statusCode, durationSeconds }) {
      duration.observe(
        { method, route: route ?? UNMATCHED_ROUTE, status_code: String(statusCode) },
        durationSeconds,
      )
    },
  }
}

function createHttpRefusalMetrics(registry: Registry): HttpRefusalMetrics {
  const connections = new Counter({
    name: 'chainpay_http_connections_refused_total',
    help: 'Connections to the merchant API closed as they arrived: per_address (the address, an IPv6 /64, held HTTP_MAX_CONNECTIONS_PER_ADDRESS), port_full (the port held HTTP_MAX_CONNECTIONS)',
    labelNames: ['reason'] as const,
    registers: [registry],
  })
  const limited = new Counter({
    name: 'chainpay_http_rate_limited_total',
    help: 'Requests answered 429 RATE_LIMITED, by route group (merchant_api, checkout) and reason (per_address, per_api_key); they are logged sampled',
    labelNames: ['group', 'reason'] as const,
    registers: [registry],
  })
  return {
    connectionRefused(reason) {
      connections.inc({ reason })
    },
    requestLimited(group, reason) {
      limited.inc({ group, reason })
    },
  }
}

/**
 * Observes every request `app` answers but the scrapes of /metrics. Add it before the routes'
 * plugins are registered: a plugin's routes take the hooks its parent had when it was registered.
 * `patternOf` names the pattern of a request no route matched (a 405 on a served path).
 */
export function observeHttpRequests(
  app: FastifyInstance,
  metrics: HttpRequestMetrics,
  patternOf: (request: FastifyRequest) => string | undefined = () => undefined,
): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? patternOf(request)
    if (route === METRICS_PATH) return
    metrics.observeRequest({
      method: request.method,
      route,
      statusCode: reply.statusCode,
      durationSeconds: reply.elapsedTime / 1000,
    })
  })
}

function createRelayMetrics(registry: Registry, now: () => number): RelayMetrics {
  /** how old the newest event was when it went on the bus */
  let publishedLagSeconds = 0
  /** recordedAt of the oldest event read and not yet on the bus, in epoch ms */
  let pendingSinceMs: number | undefined
  // Measured when scraped: a relay that cannot publish falls further behind while nothing happens.
  new Gauge({
    name: 'chainpay_relay_lag_seconds',
    help: 'How far the event relay is behind the event store: the age of the oldest event it read and has not published yet, else the age the newest event had when published',
    registers: [registry],
    collect() {
      const pendingLagSeconds = pendingSinceMs === undefined ? 0 : secondsSince(pendingSinceMs, now())
      this.set(Math.max(publishedLagSeconds, pendingLagSeconds))
    },
  })
  const published = new Counter({
    name: 'chainpay_relay_events_published_total',
    help: 'Payment events the relay has put on the bus (an event republished after a crash counts again)',
    registers: [registry],
  })
  return {
    behind(oldestRecordedAt) {
      pendingSinceMs = parseTime(oldestRecordedAt) ?? pendingSinceMs
    },
    published(count, newestRecordedAt) {
      published.inc(count)
      const recordedMs = parseTime(newestRecordedAt)
      if (recordedMs !== undefined) publishedLagSeconds = secondsSince(recordedMs, now())
      pendingSinceMs = undefined
    },
  }
}

function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const deliveries = new Counter({
    name: 'chainpay_webhook_deliveries_total',
    help: 'Webhook deliveries by outcome of an attempt: delivered, retry (failed, another attempt is scheduled), failed (schedule exhausted), no_target (no URL to send to, recorded or attempted)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'chainpay_webhook_delivery_duration_seconds',
    help: 'Time a webhook delivery attempt took, from signing it to the end of the answer or the error',
    // receivers get 10 s by default
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  return {
    attempted(outcome, durationMs) {
      deliveries.inc({ outcome })
      // nothing was sent: its duration would only pull the histogram towards 0
      if (outcome !== 'no_target') duration.observe(durationMs / 1000)
    },
    recordedWithoutTarget() {
      deliveries.inc({ outcome: 'no_target' })
    },
  }
}

function createChainMetrics(registry: Registry): ChainMetrics {
  const headLag = new Gauge({
    name: 'chainpay_chain_head_lag_blocks',
    help: 'Blocks between the chain head and the cursor of the chain indexer, as of its last scan',
    labelNames: ['network'] as const,
    registers: [registry],
  })
  const cursorHeight = new Gauge({
    name: 'chainpay_chain_cursor_height',
    help: 'Height of the last block the chain indexer has scanned',
    labelNames: ['network'] as const,
    registers: [registry],
  })
  return {
    scanned(network, headHeight, cursor) {
      headLag.set({ network }, headHeight - cursor)
      cursorHeight.set({ network }, cursor)
    },
  }
}

function parseTime(iso: string): number | undefined {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? undefined : ms
}

/** never negative: a clock behind the one that recorded the event means no lag, not a negative one */
function secondsSince(thenMs: number, nowMs: number): number {
  return Math.max(0, nowMs - thenMs) / 1000
}

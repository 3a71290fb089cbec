import { createRootLogger } from '@chainpay/platform'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildHealthApp } from './health.js'
import { healthService } from './health-service.js'
import { createServiceMetrics, observeHttpRequests, type ServiceMetrics } from './metrics.js'
import { freePort } from './testing/node-process.js'
import { parsePrometheusText, prometheusSample } from './testing/prometheus-text.js'

const logger = createRootLogger({ service: 'test', level: 'silent' })

/** what GET /metrics of a health app on `metrics` answers */
async function scrape(metrics: ServiceMetrics): Promise<string> {
  const app = await buildHealthApp({ logger, readiness: async () => true, metricsRegistry: metrics.registry })
  try {
    const response = await app.inject({ method: 'GET', url: '/metrics' })
    expect(response.statusCode).toBe(200)
    return response.body
  } finally {
    await app.close()
  }
}

/** a clock the test moves, in epoch milliseconds */
function manualNow(start: string) {
  let now = Date.parse(start)
  return {
    now: () => now,
    advance(ms: number) {
      now += ms
    },
  }
}

describe('GET /metrics', () => {
  it('serves the process metrics in the Prometheus text format, every series labelled with the service', async () => {
    const metrics = createServiceMetrics('notifier')
    const app = await buildHealthApp({
      logger,
      readiness: async () => true,
      metricsRegistry: metrics.registry,
    })
    const response = await app.inject({ method: 'GET', url: '/metrics' })
    await app.close()

    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe(metrics.registry.contentType)
    expect(metrics.registry.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    const samples = parsePrometheusText(response.body)
    expect(prometheusSample(response.body, 'process_cpu_user_seconds_total')).toBeGreaterThan(0)
    expect(prometheusSample(response.body, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0)
    expect(samples.length).toBeGreaterThan(10)
    expect(samples.filter((sample) => sample.labels.service !== 'notifier')).toEqual([])
    // no family of a part the process does not run
    expect(samples.filter((sample) => sample.name.startsWith('chainpay_'))).toEqual([])
  })

  it('is not served without a registry', async () => {
    const app = await buildHealthApp({ logger, readiness: async () => true })
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
    await app.close()
  })

  it('is served by healthService on its port next to /healthz', async () => {
    const metrics = createServiceMetrics('projection')
    const port = await freePort()
    const service = healthService({
      host: '127.0.0.1',
      port,
      logger,
      readiness: async () => true,
      metricsRegistry: metrics.registry,
    })
    await service.start()
    try {
      const base = `http://127.0.0.1:${port}`
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      const response = await fetch(`${base}/metrics`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe(metrics.registry.contentType)
      expect(prometheusSample(await response.text(), 'process_resident_memory_bytes')).toBeGreaterThan(0)
    } finally {
      await service.stop()
    }
  })

  it('answers only the bearer of METRICS_TOKEN when there is one, while /healthz and /readyz stay open for probes', async () => {
    const metrics = createServiceMetrics('projection')
    const metricsToken = 'metrics-token-for-the-projection-0123456789'
    const app = await buildHealthApp({
      logger,
      readiness: async () => true,
      metricsRegistry: metrics.registry,
      metricsToken,
    })
    try {
      const scrapeWith = (authorization?: string) =>
        app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
      const without = await scrapeWith()
      expect(without.statusCode).toBe(401)
      expect(without.json()).toEqual({
        error: { code: 'MISSING_AUTH_HEADERS', message: 'Authorization: expected "Bearer <METRICS_TOKEN>"' },
      })
      const wrong = await scrapeWith(`Bearer ${metricsToken}x`)
      expect(wrong.statusCode).toBe(401)
      expect(wrong.json()).toEqual({
        error: { code: 'INVALID_API_KEY', message: 'Authorization: not the METRICS_TOKEN' },
      })
      expect(wrong.body).not.toContain(metricsToken)
      const right = await scrapeWith(`Bearer ${metricsToken}`)
      expect(right.statusCode).toBe(200)
      expect(prometheusSample(right.body, 'process_resident_memory_bytes')).toBeGreaterThan(0)
      expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' })
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' })
    } finally {
      await app.close()
    }
  })

  it('keeps the registries of two services in one process apart', async () => {
    const first = createServiceMetrics('gateway', { processMetrics: false })
    const second = createServiceMetrics('notifier', { processMetrics: false })
    first.webhooks.attempted('delivered', 10)
    expect(first.webhooks).toBe(first.webhooks)
    second.webhooks.attempted('retry', 10)
    expect(prometheusSample(await scrape(first), 'chainpay_webhook_deliveries_total')).toBe(1)
    expect(
      prometheusSample(await scrape(second), 'chainpay_webhook_deliveries_total', {
        outcome: 'retry',
        service: 'notifier',
      }),
    ).toBe(1)
  })
})

describe('HTTP request metrics', () => {
  it('observes requests by route pattern, never by raw URL, and not the scrapes of /metrics', async () => {
    const metrics = createServiceMetrics('gateway', { processMetrics: false })
    const app = Fastify()
    observeHttpRequests(app, metrics.http)
    await app.register(
      async (api) => {
        api.get('/payments/:paymentId', async (request) => request.params)
      },
      { prefix: '/api/merchant/v1' },
    )
    app.get('/metrics', async (_request, reply) =>
      reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    )

    for (const id of ['pay_1', 'pay_2']) {
      const response = await app.inject({ method: 'GET', url: `/api/merchant/v1/payments/${id}?x=1` })
      expect(response.statusCode).toBe(200)
    }
    expect(
      (await app.inject({ method: 'GET', url: '/api/merchant/v1/payments/pay_3/refund' })).statusCode,
    ).toBe(404)
    await app.inject({ method: 'GET', url: '/metrics' })
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
    await app.close()

    const count = (labels: Record<string, string>) =>
      prometheusSample(text, 'chainpay_http_request_duration_seconds_count', labels)
    expect(
      count({
        method: 'GET',
        route: '/api/merchant/v1/payments/:paymentId',
        status_code: '200',
        service: 'gateway',
      }),
    ).toBe(2)
    expect(count({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1)
    expect(text).not.toMatch(/pay_\d/)
    expect(text).not.toContain('route="/metrics"')
    const buckets = parsePrometheusText(text).filter(
      (sample) =>
        sample.name === 'chainpay_http_request_duration_seconds_bucket' &&
        sample.labels.status_code === '200',
    )
    expect(buckets.find((bucket) => bucket.labels.le === '+Inf')?.value).toBe(2)
  })
})

describe('relay metrics', () => {
  it('counts what the relay published and shows how old the newest event was when published', async () => {
    const clock = manualNow('2030-01-15T12:00:10.000Z')
    const metrics = createServiceMetrics('payment-command', { now: clock.now, processMetrics: false })
    metrics.relay.behind('2030-01-15T12:00:05.000Z')
    metrics.relay.published(2, '2030-01-15T12:00:07.500Z')
    metrics.relay.behind('2030-01-15T12:00:08.000Z')
    metrics.relay.published(1, '2030-01-15T12:00:09.000Z')
    clock.advance(60_000)

    const text = await scrape(metrics)
    expect(
      prometheusSample(text, 'chainpay_relay_events_published_total', { service: 'payment-command' }),
    ).toBe(3)
    // idle since: the lag is what it was when the newest event went on the bus
    expect(prometheusSample(text, 'chainpay_relay_lag_seconds')).toBe(1)
  })

  it('shows the lag growing while the relay cannot publish', async () => {
    const clock = manualNow('2030-01-15T12:00:10.000Z')
    const metrics = createServiceMetrics('payment-command', { now: clock.now, processMetrics: false })
    metrics.relay.published(1, '2030-01-15T12:00:09.750Z')
    expect(prometheusSample(await scrape(metrics), 'chainpay_relay_lag_seconds')).toBe(0.25)

    metrics.relay.behind('2030-01-15T12:00:10.000Z')
    clock.advance(30_000)
    expect(prometheusSample(await scrape(metrics), 'chainpay_relay_lag_seconds')).toBe(30)
    metrics.relay.behind('2030-01-15T12:00:10.000Z')
    clock.advance(30_000)
    expect(prometheusSample(await scrape(metrics), 'chainpay_relay_lag_seconds')).toBe(60)

    metrics.relay.published(4, '2030-01-15T12:01:05.000Z')
    const text = await scrape(metrics)
    expect(prometheusSample(text, 'chainpay_relay_lag_seconds')).toBe(5)
    expect(prometheusSample(text, 'chainpay_relay_events_published_total')).toBe(5)
  })

  it('never shows a negative lag for an event recorded by a clock ahead of this one', async () => {
    const clock = manualNow('2030-01-15T12:00:00.000Z')
    const metrics = createServiceMetrics('payment-command', { now: clock.now, processMetrics: false })
    metrics.relay.published(1, '2030-01-15T12:00:02.000Z')
    expect(prometheusSample(await scrape(metrics), 'chainpay_relay_lag_seconds')).toBe(0)
  })
})

describe('webhook metrics', () => {
  it('counts attempts by outcome and times those that sent something', async () => {
    const metrics = createServiceMetrics('notifier', { processMetrics: false })
    metrics.webhooks.attempted('delivered', 120)
    metrics.webhooks.attempted('delivered', 80)
    metrics.webhooks.attempted('retry', 10_000)
    metrics.webhooks.attempted('failed', 3_000)
    metrics.webhooks.attempted('no_target', 0)
    metrics.webhooks.recordedWithoutTarget()

    const text = await scrape(metrics)
    const deliveries = (outcome: string) =>
      prometheusSample(text, 'chainpay_webhook_deliveries_total', { outcome, service: 'notifier' })
    expect([
      deliveries('delivered'),
      deliveries('retry'),
      deliveries('failed'),
      deliveries('no_target'),
    ]).toEqual([2, 1, 1, 2])
    expect(prometheusSample(text, 'chainpay_webhook_delivery_duration_seconds_count')).toBe(4)
    expect(prometheusSample(text, 'chainpay_webhook_delivery_duration_seconds_sum')).toBeCloseTo(13.2)
    expect(prometheusSample(text, 'chainpay_webhook_delivery_duration_seconds_bucket', { le: '0.1' })).toBe(1)
    expect(prometheusSample(text, 'chainpay_webhook_delivery_duration_seconds_bucket', { le: '5' })).toBe(3)
  })
})

describe('chain metrics', () => {
  it("shows each network's cursor height and how many blocks it is behind the head", async () => {
    const metrics = createServiceMetrics('chain-indexer', { processMetrics: false })
    metrics.chain.scanned('TRON', 1_000, 990)
    metrics.chain.scanned('SOLANA', 5_000, 5_000)
    metrics.chain.scanned('TRON', 1_010, 1_005)

    const text = await scrape(metrics)
    expect(prometheusSample(text, 'chainpay_chain_cursor_height', { network: 'TRON' })).toBe(1_005)
    expect(prometheusSample(text, 'chainpay_chain_head_lag_blocks', { network: 'TRON' })).toBe(5)
    expect(prometheusSample(text, 'chainpay_chain_cursor_height', { network: 'SOLANA' })).toBe(5_000)
    expect(
      prometheusSample(text, 'chainpay_chain_head_lag_blocks', {
        network: 'SOLANA',
        service: 'chain-indexer',
      }),
    ).toBe(0)
  })
})

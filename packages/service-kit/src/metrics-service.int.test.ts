import { createRootLogger } from '@chainpay/platform'
import { afterEach, describe, expect, it } from 'vitest'
import { createServiceMetrics } from './metrics.js'
import { metricsService } from './metrics-service.js'
import { freePort } from './testing/node-process.js'

const logger = createRootLogger({ service: 'metrics-test', level: 'silent' })
const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

async function listen(metricsToken?: string) {
  const metrics = createServiceMetrics('projection', { processMetrics: false })
  metrics.relay.published(3, new Date().toISOString())
  const metricsPort = await freePort()
  const service = metricsService({
    config: { metricsHost: '127.0.0.1', metricsPort, metricsToken },
    registry: metrics.registry,
    logger,
  })
  await service.start()
  stops.push(() => service.stop())
  return `http://127.0.0.1:${metricsPort}`
}

describe('metricsService: the listener of METRICS_PORT', () => {
  it('serves /metrics and nothing else: no health, no API', async () => {
    const url = await listen()
    const scrape = await fetch(`${url}/metrics`)
    expect(scrape.status).toBe(200)
    expect(await scrape.text()).toContain('chainpay_relay_events_published_total{service="projection"} 3')
    for (const path of ['/healthz', '/readyz', '/admin/v1/merchants', '/internal/v1/payments']) {
      const other = await fetch(`${url}${path}`)
      expect({ path, status: other.status }).toEqual({ path, status: 404 })
    }
  })

  it('answers only the METRICS_TOKEN bearer when there is one', async () => {
    const token = 'metrics-token-for-its-own-port-0123456789'
    const url = await listen(token)
    const scrape = (authorization?: string) =>
      fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} })
    expect((await scrape()).status).toBe(401)
    expect((await scrape(`Bearer ${token}x`)).status).toBe(401)
    expect((await scrape(`Bearer ${token}`)).status).toBe(200)
  })
})

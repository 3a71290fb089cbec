// What standalone has because each service has it: the five contexts composed keep their metrics
// (one registry, on METRICS_PORT), their readiness (every context asked) and their wiring.

import { rmSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { DatabaseSync } from 'node:sqlite'
import { createManualClock, createRootLogger } from '@chainpay/platform'
import { parsePrometheusText } from '@chainpay/service-kit/testing'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { readStandaloneConfig } from './config.js'
import { buildStandaloneContext } from './standalone.js'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { newDataDir } from './testing/standalone-process.js'

let standalone: InProcessStandalone

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
})

afterAll(async () => {
  await standalone?.stop()
})

describe('standalone, composed from the five services’ own contexts', () => {
  it('serves every service’s metrics on its metrics port, labelled standalone', async () => {
    const client = merchantClientFor(standalone)
    const created = (await client.createPayment({ amount: '2', currency: 'TRX', network: 'TRON' } as never))
      .body as PaymentBody
    await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '2', currency: 'TRX' })
    await waitForPayment(client, created.paymentId, (payment) => payment.status === 'confirmed')

    const response = await fetch(`${standalone.metricsUrl}/metrics`)
    expect(response.status).toBe(200)
    const samples = parsePrometheusText(await response.text())
    const seen = (name: string, labels: Record<string, string> = {}) =>
      samples.some(
        (sample) =>
          sample.name === name &&
          sample.labels.service === 'standalone' &&
          Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      )
    // the gateway's requests, payment-command's relay, the chain-indexer's cursors, the process
    expect(seen('chainpay_http_request_duration_seconds_count', { route: '/api/merchant/v1/payments' })).toBe(
      true,
    )
    expect(seen('chainpay_relay_events_published_total')).toBe(true)
    expect(seen('chainpay_chain_cursor_height', { network: 'TRON' })).toBe(true)
    expect(seen('process_cpu_seconds_total')).toBe(true)
    // neither on the public port nor on the admin API's
    expect((await fetch(`${standalone.baseUrl}/metrics`)).status).toBe(404)
    expect((await fetch(`${standalone.adminUrl}/metrics`)).status).toBe(404)
  })

  it('is ready when every service is, and not once its database is gone', async () => {
    expect((await fetch(`${standalone.baseUrl}/readyz`)).status).toBe(200)
    const dataDir = newDataDir()
    const logger = createRootLogger({ service: 'standalone-test', level: 'silent' })
    const context = await buildStandaloneContext(readStandaloneConfig({ DATA_DIR: dataDir }), logger, {
      clock: createManualClock('2030-01-15T12:00:00.000Z'),
    })
    try {
      expect(await context.readiness()).toBe(true)
    } finally {
      await context.close()
    }
    expect(await context.readiness().catch(() => false)).toBe(false)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('syncs every commit of its SQLite file to disk (synchronous FULL) unless SQLITE_SYNCHRONOUS=NORMAL', async () => {
    const synchronousOf = async (env: Record<string, string>) => {
      const dataDir = newDataDir()
      const lines: string[] = []
      const logger = createRootLogger({
        service: 'standalone-test',
        level: 'info',
        destination: { write: (line: string) => void lines.push(line) },
      })
      const config = readStandaloneConfig({ DATA_DIR: dataDir, ...env })
      const context = await buildStandaloneContext(config, logger, {
        clock: createManualClock('2030-01-15T12:00:00.000Z'),
      })
      await context.close()
      rmSync(dataDir, { recursive: true, force: true })
      // read back from the connection's PRAGMA synchronous when the file was opened
      return lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.file === config.databaseFile)
        .map((entry) => entry.synchronous)
    }
    expect(await synchronousOf({})).toEqual(['FULL'])
    expect(await synchronousOf({ SQLITE_SYNCHRONOUS: 'NORMAL' })).toEqual(['NORMAL'])
  })
})

describe('prices in fiat with the simulated rates (docs/api.md, "Prices in fiat", "Development endpoints")', () => {
  it('moves a rate through POST /dev/rates on the merchant port, prices a payment with it and shows its age in the metrics', async () => {
    const setRate = (rate: Record<string, string>) =>
      fetch(`${standalone.baseUrl}/dev/rates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(rate),
      })
    expect((await setRate({ base: 'TRX', quote: 'USD', value: '0.2' })).status).toBe(200)
    expect((await setRate({ base: 'TRX', quote: 'USD', value: '-1' })).status).toBe(400)
    const client = merchantClientFor(standalone)
    const created = await client.createPayment({
      priceAmount: '1.01',
      priceCurrency: 'USD',
      currency: 'TRX',
      network: 'TRON',
    } as never)
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      amount: '5.05',
      priceAmount: '1.01',
      rate: { value: '0.2', sources: ['simulated'] },
    })
    const listed = (await (await fetch(`${standalone.baseUrl}/dev/rates`)).json()) as { data: unknown[] }
    expect(listed.data).toContainEqual({ base: 'TRX', quote: 'USD', value: '0.2' })

    const samples = parsePrometheusText(await (await fetch(`${standalone.metricsUrl}/metrics`)).text())
    const sample = (name: string) => samples.find((s) => s.name === name && s.labels.pair === 'TRX/USD')
    expect(sample('chainpay_rate_sources_answering')?.value).toBe(1)
    expect(sample('chainpay_rate_age_seconds')?.value).toBeGreaterThanOrEqual(0)
  })
})

describe('the chain simulator on the merchant port (docs/operations.md, "The chain simulator\'s routes")', () => {
  it('wants SIMULATOR_TOKEN once it is set, and its own RPC clients send it', async () => {
    const token = 'standalone-simulator-token-0123456789abcdef'
    const guarded = await startInProcessStandalone({
      clock: { now: () => new Date() },
      // read over this process's own port, so the indexers' clients must carry the token too
      env: { SIMULATOR_TOKEN: token, SIMULATOR_CLIENT: 'rpc' },
    })
    try {
      const client = merchantClientFor(guarded)
      const created = (await client.createPayment({ amount: '2', currency: 'TRX', network: 'TRON' } as never))
        .body as PaymentBody
      const transfer = { to: created.generatedAddress, amount: '2', currency: 'TRX' }
      await expect(pay(guarded, 'TRON', transfer)).rejects.toThrow(/401 .*MISSING_AUTH_HEADERS/)
      await expect(pay(guarded, 'TRON', transfer, `${token}-not`)).rejects.toThrow(/401 .*INVALID_API_KEY/)
      await pay(guarded, 'TRON', transfer, token)
      await waitForPayment(client, created.paymentId, (payment) => payment.status === 'confirmed')
    } finally {
      await guarded.stop()
    }
  })

  it('is not ready while one service’s worker fails, the notifier’s dispatcher here, and ready once it works', async () => {
    const file = new DatabaseSync(readStandaloneConfig({ DATA_DIR: standalone.dataDir }).databaseFile, {
      timeout: 5000,
    })
    const readyz = async () => (await fetch(`${standalone.baseUrl}/readyz`)).status
    try {
      expect(await readyz()).toBe(200)
      file.exec('ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_away')
      await vi.waitFor(async () => expect(await readyz()).toBe(503), { timeout: 15_000 })
      file.exec('ALTER TABLE webhook_deliveries_away RENAME TO webhook_deliveries')
      await vi.waitFor(async () => expect(await readyz()).toBe(200), { timeout: 15_000 })
    } finally {
      file.close()
    }
  })
})

describe('the merchant port, per client address (docs/operations.md, "HTTP limits")', () => {
  /** a kept-alive connection from `localAddress` that sent GET /healthz: 'answered' (any status) or 'closed' */
  async function heldConnection(url: string, localAddress: string) {
    const { port } = new URL(url)
    const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress })
    socket.on('error', () => {})
    let received = ''
    const outcome = new Promise<'answered' | 'closed'>((resolve) => {
      socket.on('data', (chunk) => {
        received += chunk.toString()
        if (received.startsWith('HTTP/1.1 ')) resolve('answered')
      })
      socket.once('close', () => resolve('closed'))
    })
    socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n')
    return { socket, outcome: await outcome }
  }

  it('holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS (100) connections of one address; others, and the admin port, are not held to it', async () => {
    const held: Socket[] = []
    try {
      const outcomes: string[] = []
      for (let connection = 0; connection < 101; connection += 1) {
        const { socket, outcome } = await heldConnection(standalone.baseUrl, '127.0.0.3')
        held.push(socket)
        outcomes.push(outcome)
      }
      expect(outcomes.filter((outcome) => outcome === 'answered')).toHaveLength(100)
      expect(outcomes.at(-1)).toBe('closed')
      // another address is served
      expect((await fetch(`${standalone.baseUrl}/healthz`)).status).toBe(200)
      // the admin API has no share per address: its callers are the operator's tools
      const { socket, outcome } = await heldConnection(standalone.adminUrl, '127.0.0.3')
      held.push(socket)
      expect(outcome).toBe('answered')

      const samples = parsePrometheusText(await (await fetch(`${standalone.metricsUrl}/metrics`)).text())
      expect(
        samples.find(
          (sample) =>
            sample.name === 'chainpay_http_connections_refused_total' &&
            sample.labels.reason === 'per_address',
        )?.value,
      ).toBe(1)
    } finally {
      for (const socket of held) socket.destroy()
    }
  })
})

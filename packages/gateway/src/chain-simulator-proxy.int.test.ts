// The gateway's /dev/chains/* forwarding against a real HTTP server standing in for the
// chain-indexer's port, which records every request that reaches it: only the simulator's own
// routes may, and only from callers the simulator itself would answer.

import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRootLogger } from '@chainpay/platform'
import { createHttpApp, type HttpApp } from '@chainpay/service-kit'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chainSimulatorProxy } from './chain-simulator-proxy.js'

interface Received {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

const TOKEN = 'gateway-simulator-token-0123456789abcdef'
const logger = createRootLogger({ service: 'gateway-test', level: 'silent' })

let upstream: Server
let upstreamUrl: string
let received: Received[]
let app: HttpApp | undefined

beforeEach(async () => {
  received = []
  // answers anything, /metrics included: what it received is what the proxy let through
  upstream = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      response.writeHead(201, { 'content-type': 'application/json' }).end('{"upstream":true}')
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
})

afterEach(async () => {
  await app?.close()
  app = undefined
  await new Promise<void>((resolve) => upstream.close(() => resolve()))
})

/**
 * `path` exactly as given on the wire: fastify's inject (and fetch) would resolve its dot segments
 * before the gateway ever saw them
 */
async function sendRaw(proxy: HttpApp, method: string, path: string): Promise<number> {
  if (!proxy.server.listening) await proxy.listen({ host: '127.0.0.1', port: 0 })
  const { port } = proxy.server.address() as AddressInfo
  return await new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { 'x-simulator-token': TOKEN } },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode ?? 0))
      },
    )
    sent.on('error', reject)
    sent.end()
  })
}

async function gateway(token: string | undefined): Promise<HttpApp> {
  const built = createHttpApp({ logger, component: 'gateway' })
  await built.register(chainSimulatorProxy({ url: upstreamUrl, token }))
  app = built
  return built
}

describe('the chain simulator proxy', () => {
  it("forwards each of the simulator's routes to that very path, with the body and the configured token", async () => {
    const proxy = await gateway(TOKEN)
    const calls = [
      ['POST', '/dev/chains/TRON/transfers', '{"to":"T1","amount":"1","currency":"USDT"}'],
      ['POST', '/dev/chains/SOLANA_DEVNET/transactions', '{"transfers":[]}'],
      ['POST', '/dev/chains/TRON_NILE/blocks', undefined],
      ['POST', '/dev/chains/TRON/transactions/ab12cd34/drop', undefined],
      ['GET', '/dev/chains/SOLANA/head', undefined],
    ] as const
    for (const [method, url, body] of calls) {
      const response = await proxy.inject({
        method,
        url,
        headers: {
          'x-simulator-token': TOKEN,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: body }),
      })
      expect(response.statusCode, url).toBe(201)
      expect(response.json()).toEqual({ upstream: true })
    }
    expect(received.map(({ method, url, body }) => [method, url, body])).toEqual(
      calls.map(([method, url, body]) => [method, url, body ?? '']),
    )
    for (const request of received) expect(request.headers['x-simulator-token']).toBe(TOKEN)
  })

  it.each([
    ['encoded dot segments', '/dev/chains/%2e%2e/%2e%2e/metrics'],
    ['encoded dot segments, upper case', '/dev/chains/%2E%2E/%2E%2E/metrics'],
    ['mixed', '/dev/chains/.%2e/%2e./metrics'],
    ['plain dot segments', '/dev/chains/../../metrics'],
    ['dot segments after a route', '/dev/chains/TRON/head/../../../metrics'],
    ['encoded slashes in the network', '/dev/chains/..%2f..%2fmetrics/head'],
    ['encoded slashes, upper case', '/dev/chains/TRON%2F..%2F..%2Fmetrics/head'],
    ['a dot segment as the network', '/dev/chains/%2e%2e/head'],
    ['a single dot as the network', '/dev/chains/./head'],
    ['double encoding', '/dev/chains/%252e%252e/%252e%252e/metrics'],
    ['double-encoded dots as the network', '/dev/chains/%252e%252e/head'],
    ['a backslash', '/dev/chains/..%5c..%5cmetrics/head'],
    ['the transaction hash', '/dev/chains/TRON/transactions/%2e%2e%2f%2e%2e%2f%2e%2e%2fmetrics/drop'],
    ['another path of the port', '/dev/chains/TRON/../../healthz'],
  ])('lets nothing but those routes through: %s', async (_case, url) => {
    const proxy = await gateway(TOKEN)
    for (const method of ['GET', 'POST']) {
      expect([400, 404, 405], `${method} ${url}`).toContain(await sendRaw(proxy, method, url))
    }
    expect(received).toEqual([])
  })

  it('sends the route on without its query', async () => {
    const proxy = await gateway(TOKEN)
    expect(await sendRaw(proxy, 'GET', '/dev/chains/TRON/head?x=/../../metrics')).toBe(201)
    expect(received.map((request) => request.url)).toEqual(['/dev/chains/TRON/head'])
  })

  it('answers only loopback callers when no token is set, and sends none on', async () => {
    const proxy = await gateway(undefined)
    for (const remoteAddress of ['203.0.113.9', '10.0.0.7']) {
      const refused = await proxy.inject({ method: 'GET', url: '/dev/chains/TRON/head', remoteAddress })
      expect(refused.statusCode).toBe(404)
      expect(refused.json().error.code).toBe('NOT_FOUND')
    }
    expect(received).toEqual([])
    const local = await proxy.inject({ method: 'GET', url: '/dev/chains/TRON/head', remoteAddress: '::1' })
    expect(local.statusCode).toBe(201)
    expect(received).toHaveLength(1)
    expect(received[0]?.headers['x-simulator-token']).toBeUndefined()
  })

  it('with a token, wants it from every caller, and forwards its own whatever the caller sent', async () => {
    const proxy = await gateway(TOKEN)
    const head = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
      proxy.inject({ method: 'GET', url: '/dev/chains/TRON/head', headers, remoteAddress })
    const missing = await head({})
    expect(missing.statusCode).toBe(401)
    expect(missing.json().error.code).toBe('MISSING_AUTH_HEADERS')
    const wrong = await head({ 'x-simulator-token': `${TOKEN}-other` })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().error.code).toBe('INVALID_API_KEY')
    expect(received).toEqual([])

    expect((await head({ 'x-simulator-token': TOKEN }, '203.0.113.9')).statusCode).toBe(201)
    expect(received.map((request) => request.headers['x-simulator-token'])).toEqual([TOKEN])
  })
})

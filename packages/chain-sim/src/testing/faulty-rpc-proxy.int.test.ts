import { once } from 'node:events'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import { type FaultyRpcProxy, startFaultyRpcProxy } from './faulty-rpc-proxy.js'

describe('startFaultyRpcProxy', () => {
  let target: FastifyInstance
  let proxy: FaultyRpcProxy
  let targetRequests = 0

  beforeAll(async () => {
    target = Fastify()
    target.addHook('onRequest', async () => {
      targetRequests += 1
    })
    target.post('/node/wallet/echo', async (request) => ({ echoed: request.body, query: request.query }))
    target.get('/node/status', async (_request, reply) => reply.header('x-node', 'sim').send({ ok: true }))
    const address = await target.listen({ port: 0, host: '127.0.0.1' })
    // a target with a path: the proxy's root stands for it
    proxy = await startFaultyRpcProxy({ target: `${address}/node` })
  })

  afterEach(() => {
    proxy.clear()
  })

  afterAll(async () => {
    await proxy.close()
    await target.close()
  })

  it('passes requests, bodies, status and headers through to the target', async () => {
    const before = targetRequests
    const response = await fetch(`${proxy.url}/wallet/echo?visible=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ num: 42 }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ echoed: { num: 42 }, query: { visible: 'true' } })

    const status = await fetch(`${proxy.url}/status`)
    expect(status.headers.get('x-node')).toBe('sim')
    expect(await status.json()).toEqual({ ok: true })
    expect(targetRequests - before).toBe(2)
  })

  it('answers 429 with Retry-After for the next requests, then passes again', async () => {
    const before = { proxied: proxy.requests(), target: targetRequests }
    proxy.inject({ kind: 'rate-limit', retryAfterSeconds: 2, times: 2 })

    for (let attempt = 0; attempt < 2; attempt += 1) {
      const limited = await fetch(`${proxy.url}/status`)
      expect(limited.status).toBe(429)
      expect(limited.headers.get('retry-after')).toBe('2')
      await limited.arrayBuffer()
    }
    expect((await fetch(`${proxy.url}/status`)).status).toBe(200)
    expect(proxy.requests() - before.proxied).toBe(3)
    expect(targetRequests - before.target).toBe(1)
  })

  it('answers an error status until cleared', async () => {
    proxy.inject({ kind: 'status', status: 500 })
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const failed = await fetch(`${proxy.url}/wallet/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      expect(failed.status).toBe(500)
      expect(failed.headers.get('retry-after')).toBeNull()
      await failed.arrayBuffer()
    }
    proxy.clear()
    expect((await fetch(`${proxy.url}/status`)).status).toBe(200)
  })

  it('takes queued faults in order', async () => {
    const faultedBefore = proxy.faulted()
    proxy.inject({ kind: 'pass', times: 1 })
    proxy.inject({ kind: 'status', status: 502, times: 1 })
    proxy.inject({ kind: 'status', status: 503, retryAfterSeconds: 1, times: 1 })
    const statuses: (number | string | null)[] = []
    for (let attempt = 0; attempt < 4; attempt += 1) {
      const response = await fetch(`${proxy.url}/status`)
      statuses.push(response.status, response.headers.get('retry-after'))
      await response.arrayBuffer()
    }
    expect(statuses).toEqual([200, null, 502, null, 503, '1', 200, null])
    expect(proxy.faulted() - faultedBefore).toBe(2)
  })

  it('holds a request unanswered so that the client times out', async () => {
    proxy.inject({ kind: 'hang', times: 1 })
    const failure = await fetch(`${proxy.url}/status`, { signal: AbortSignal.timeout(300) }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(DOMException)
    expect((failure as DOMException).name).toBe('TimeoutError')
    expect((await fetch(`${proxy.url}/status`)).status).toBe(200)
  })

  it('resets the connection without an answer', async () => {
    proxy.inject({ kind: 'reset', times: 1 })
    const failure = await fetch(`${proxy.url}/status`).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as TypeError).message).toBe('fetch failed')
    expect((await fetch(`${proxy.url}/status`)).status).toBe(200)
  })

  it('answers 502 when the target does not answer at all', async () => {
    const closedTarget = Fastify()
    const address = await closedTarget.listen({ port: 0, host: '127.0.0.1' })
    await closedTarget.close()
    const orphan = await startFaultyRpcProxy({ target: address })
    try {
      expect((await fetch(`${orphan.url}/status`)).status).toBe(502)
    } finally {
      await orphan.close()
    }
  })

  it('closes while requests hang', async () => {
    const other = await startFaultyRpcProxy({ target: proxy.url })
    other.inject({ kind: 'hang' })
    const pending = fetch(`${other.url}/status`).then(
      () => 'answered',
      () => 'dropped',
    )
    await expect.poll(() => other.hanging()).toBe(1)
    await other.close()
    expect(await pending).toBe('dropped')
  })

  it('passes websockets through, and silences the open ones in both directions while they stay open', async () => {
    const echo = new WebSocketServer({ noServer: true })
    const paths: string[] = []
    target.server.on('upgrade', (request, socket, head) => {
      paths.push(request.url ?? '')
      echo.handleUpgrade(request, socket, head, (ws) => ws.on('message', (data) => ws.send(String(data))))
    })
    const client = new WebSocket(`${proxy.url.replace(/^http/, 'ws')}/pubsub`)
    await once(client, 'open')
    client.send('hello')
    expect(String((await once(client, 'message'))[0])).toBe('hello')
    expect(paths).toEqual(['/node/pubsub'])
    expect(proxy.websockets()).toBe(1)

    expect(proxy.silenceWebsockets()).toBe(1)
    const heard: string[] = []
    client.on('message', (data) => heard.push(String(data)))
    client.on('pong', () => heard.push('pong'))
    client.send('anyone?')
    client.ping()
    await new Promise((resume) => setTimeout(resume, 200))
    expect(heard).toEqual([])
    expect(client.readyState).toBe(WebSocket.OPEN)

    // a new connection passes
    const later = new WebSocket(`${proxy.url.replace(/^http/, 'ws')}/pubsub`)
    await once(later, 'open')
    later.send('still there')
    expect(String((await once(later, 'message'))[0])).toBe('still there')
    client.terminate()
    later.terminate()
    echo.close()
  })
})

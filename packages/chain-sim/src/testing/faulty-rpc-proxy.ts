// A real HTTP reverse proxy in front of an RPC endpoint that misbehaves on request: rate limits with
// Retry-After, 5xx answers, requests that are never answered, connections reset mid-request. Tests put
// it between a real chain client (tronweb, @solana/web3.js) and the simulator's node routes to see
// what the client and the resilience policies make of an unreliable provider. Websockets (the
// Solana pubsub) pass through it too, byte for byte, and can be made to go silent: the connection
// stays up and nothing passes in either direction, as a half-open connection or a provider that
// dropped it without closing it looks from both ends.

import {
  createServer,
  request as forward,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http'
import { type AddressInfo, connect, type Socket } from 'node:net'
import type { Duplex } from 'node:stream'

/** what the proxy does with a request; `times` requests, or every request until cleared */
export type Fault =
  /** 429 Too Many Requests with a Retry-After in seconds (default 1) */
  | { kind: 'rate-limit'; retryAfterSeconds?: number; times?: number }
  /** an error status such as 500, 502, 503; Retry-After only when given */
  | { kind: 'status'; status: number; retryAfterSeconds?: number; times?: number }
  /** reads the request and never answers, so that the client's timeout is what ends it */
  | { kind: 'hang'; times?: number }
  /** destroys the connection without an answer */
  | { kind: 'reset'; times?: number }
  /** forwards to the target as usual; to let some requests through before a later fault */
  | { kind: 'pass'; times?: number }

export interface FaultyRpcProxy {
  /** the proxy's base URL: a path under it goes to the same path under the target */
  readonly url: string
  /** queues a fault after those already injected; requests take the queue's head first */
  inject(fault: Fault): void
  /** forgets every queued fault: requests pass through again (hanging ones stay hung) */
  clear(): void
  /** how many requests reached the proxy, faulted or not */
  requests(): number
  /** how many requests a fault other than 'pass' took */
  faulted(): number
  /** requests held by a 'hang' fault right now */
  hanging(): number
  /** websocket connections open through the proxy right now */
  websockets(): number
  /**
   * the open websocket connections stop passing anything, in both directions, and stay open (a
   * half-open connection, from either end); later connections pass again. Returns how many went silent.
   */
  silenceWebsockets(): number
  /** stops the proxy and drops every connection, hanging ones included */
  close(): Promise<void>
}

interface QueuedFault {
  fault: Fault
  remaining: number
}

export async function startFaultyRpcProxy(options: { target: string }): Promise<FaultyRpcProxy> {
  const target = new URL(options.target)
  if (target.protocol !== 'http:')
    throw new Error(`faulty RPC proxy: only http targets, got ${target.protocol}`)
  const targetPath = target.pathname.replace(/\/$/, '')
  const queue: QueuedFault[] = []
  const hung = new Set<ServerResponse>()
  const tunnels = new Set<{ client: Duplex; upstream: Socket }>()
  let received = 0
  let faulted = 0

  const nextFault = (): Fault | undefined => {
    const head = queue[0]
    if (head === undefined) return undefined
    head.remaining -= 1
    if (head.remaining <= 0) queue.shift()
    return head.fault
  }

  const server = createServer((request, response) => {
    received += 1
    const fault = nextFault()
    if (fault !== undefined && fault.kind !== 'pass') faulted += 1
    switch (fault?.kind) {
      case 'rate-limit':
        return answer(request, response, 429, fault.retryAfterSeconds ?? 1)
      case 'status':
        return answer(request, response, fault.status, fault.retryAfterSeconds)
      case 'hang':
        hung.add(response)
        response.on('close', () => hung.delete(response))
        request.resume()
        return
      case 'reset':
        request.socket.destroy()
        return
      default:
        return pass(request, response)
    }
  })

  function pass(request: IncomingMessage, response: ServerResponse): void {
    const headers: OutgoingHttpHeaders = { ...request.headers, host: target.host }
    const upstream = forward(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: request.method,
        path: `${targetPath}${request.url ?? '/'}`,
        headers,
      },
      (upstreamResponse) => {
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers)
        upstreamResponse.pipe(response)
      },
    )
    // the target failing is a gateway error, as a real reverse proxy answers it
    upstream.on('error', () => {
      if (!response.headersSent) answer(request, response, 502, undefined)
      else response.destroy()
    })
    request.pipe(upstream)
  }

  // a websocket handshake goes to the target as it came, then the bytes flow both ways untouched
  server.on('upgrade', (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const upstream = connect(Number(target.port), target.hostname)
    const tunnel = { client, upstream }
    tunnels.add(tunnel)
    const end = () => {
      tunnels.delete(tunnel)
      client.destroy()
      upstream.destroy()
    }
    client.on('error', end).on('close', end)
    upstream.on('error', end).on('close', end)
    upstream.on('connect', () => {
      const lines = [`${request.method} ${targetPath}${request.url ?? '/'} HTTP/1.1`]
      for (let index = 0; index < request.rawHeaders.length; index += 2) {
        const name = request.rawHeaders[index] as string
        lines.push(`${name}: ${name.toLowerCase() === 'host' ? target.host : request.rawHeaders[index + 1]}`)
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      upstream.write(head)
      client.pipe(upstream)
      upstream.pipe(client)
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    inject(fault) {
      const times = fault.times ?? Number.POSITIVE_INFINITY
      if (!(times >= 1))
        throw new RangeError(`faulty RPC proxy: times must be at least 1, got ${fault.times}`)
      queue.push({ fault, remaining: times })
    },
    clear() {
      queue.length = 0
    },
    requests: () => received,
    faulted: () => faulted,
    hanging: () => hung.size,
    websockets: () => tunnels.size,
    silenceWebsockets() {
      for (const { client, upstream } of tunnels) {
        client.unpipe(upstream)
        upstream.unpipe(client)
        // what arrives now stays in the kernel's buffers, read by nobody
        client.pause()
        upstream.pause()
      }
      return tunnels.size
    },
    async close() {
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      )
      server.closeAllConnections()
      for (const { client, upstream } of tunnels) {
        client.destroy()
        upstream.destroy()
      }
      await closed
    },
  }
}

/** an error answer once the request body is read, so that the client sees the status, not a reset */
function answer(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  retryAfterSeconds: number | undefined,
): void {
  const send = () => {
    const headers: OutgoingHttpHeaders = { 'content-type': 'text/plain; charset=utf-8' }
    if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds)
    response.writeHead(status, headers)
    response.end(status === 429 ? 'Too Many Requests' : `injected fault: ${status}`)
  }
  if (request.readableEnded) {
    send()
    return
  }
  request.on('end', send)
  request.resume()
}

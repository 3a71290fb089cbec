// A real HTTP proxy in front of a simulated node that lets a test act at the moment a client sends
// a request: change the chain first (what another transaction landing before it would do), or
// answer in the node's place (a refusal). Everything else passes through unchanged.

import { createServer, request as forward } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface InterceptedRequest {
  method: string
  /** the path and query, as the client sent them */
  path: string
  body: string
}

/** an answer given in the node's place: status 200 and this JSON body */
export type NodeAnswer = { body: unknown }

export interface NodeInterceptor {
  /** the proxy's base URL: a path under it goes to the same path under the target */
  readonly url: string
  close(): Promise<void>
}

export async function startNodeInterceptor(options: {
  target: string
  /** runs before each request is forwarded; an answer is sent instead of forwarding */
  intercept(request: InterceptedRequest): Promise<NodeAnswer | undefined>
}): Promise<NodeInterceptor> {
  const target = new URL(options.target)
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      const body = Buffer.concat(chunks)
      const path = incoming.url ?? '/'
      options
        .intercept({ method: incoming.method ?? 'GET', path, body: body.toString('utf8') })
        .then((answer) => {
          if (answer !== undefined) {
            outgoing.writeHead(200, { 'content-type': 'application/json' })
            outgoing.end(JSON.stringify(answer.body))
            return
          }
          const upstream = forward(
            {
              host: target.hostname,
              port: target.port,
              method: incoming.method,
              path,
              headers: { ...incoming.headers, host: target.host },
            },
            (response) => {
              outgoing.writeHead(response.statusCode ?? 502, response.headers)
              response.pipe(outgoing)
            },
          )
          upstream.on('error', () => outgoing.destroy())
          upstream.end(body)
        })
        .catch(() => outgoing.destroy())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

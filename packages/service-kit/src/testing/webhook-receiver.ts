// A merchant's webhook endpoint for tests: records every request with its raw body and headers, and
// answers with the status the test scripts (fail N times, then succeed).

import { createServer, type IncomingMessage, type Server } from 'node:http'

export interface ReceivedWebhook {
  headers: Record<string, string>
  rawBody: string
  body: { id: string; event: string; timestamp: number; payment: Record<string, unknown> }
  answeredWith: number
}

export interface WebhookReceiver {
  readonly url: string
  readonly received: ReceivedWebhook[]
  /** the next `count` requests are answered with `status` (default 500) */
  failNext(count: number, status?: number): void
  /** resolves once `predicate` holds over what was received and acknowledged */
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<ReceivedWebhook[]>
  close(): Promise<void>
}

/** `port`: a given one (a URL recorded earlier, as in an upgrade fixture); else any free one */
export async function startWebhookReceiver(options: { port?: number } = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = []
  let failures = 0
  let failureStatus = 500
  const server: Server = createServer((request, response) => {
    void readBody(request).then((rawBody) => {
      const status = failures > 0 ? failureStatus : 200
      if (failures > 0) failures -= 1
      received.push({
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
        ),
        rawBody,
        body: JSON.parse(rawBody) as ReceivedWebhook['body'],
        answeredWith: status,
      })
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'try again')
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    failNext(count, status = 500) {
      failures = count
      failureStatus = status
    },
    async waitFor(predicate, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        if (predicate(received)) return received
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(
        `webhooks did not arrive in time; received: ${JSON.stringify(received.map((r) => [r.body.event, r.answeredWith]))}`,
      )
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

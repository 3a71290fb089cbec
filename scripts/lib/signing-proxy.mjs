// A loopback proxy that signs every request it forwards with a merchant's API key, the way a merchant
// would (docs/api.md, "Authentication"): X-Service-Key, X-Service-Timestamp and X-Service-Signature,
// the HMAC-SHA256 of `timestamp.METHOD.path.body` over the exact bytes sent. It lets a tool that knows
// nothing of chainpay's signatures (scripts/fuzz-api runs schemathesis through it) reach the merchant
// API past authentication. The three headers are always replaced: schemathesis fills in the security
// schemes of the OpenAPI with values of its own, and the API's own tests cover bad signatures.
import { createHmac } from 'node:crypto'
import { createServer, request as httpRequest } from 'node:http'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection'])

/**
 * @param {string} upstream the merchant API's origin, e.g. http://127.0.0.1:8080
 * @param {{ apiKey: string, apiSecret: string }} merchant
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startSigningProxy(upstream, { apiKey, apiSecret }) {
  const target = new URL(upstream)
  const server = createServer((incoming, answer) => {
    const chunks = []
    incoming.on('data', (chunk) => chunks.push(chunk))
    incoming.on('end', () => {
      const body = Buffer.concat(chunks)
      const path = incoming.url ?? '/'
      const headers = {}
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (!HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value
      }
      const timestamp = String(Date.now())
      headers['x-service-key'] = apiKey
      headers['x-service-timestamp'] = timestamp
      headers['x-service-signature'] = createHmac('sha256', apiSecret)
        .update(`${timestamp}.${incoming.method}.${path}.`)
        .update(body)
        .digest('hex')
      headers['content-length'] = String(body.length)
      const forwarded = httpRequest(
        { host: target.hostname, port: target.port, method: incoming.method, path, headers },
        (response) => {
          answer.writeHead(response.statusCode ?? 502, response.headers)
          response.pipe(answer)
        },
      )
      forwarded.on('error', (error) => {
        answer.writeHead(502, { 'content-type': 'text/plain' })
        answer.end(`signing proxy: upstream ${target.origin}: ${error.message}\n`)
      })
      forwarded.end(body)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}

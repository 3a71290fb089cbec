// The ceiling for the merchant API benchmark: a bare fastify route that does only what every
// authenticated request must do (the same HMAC check through @chainpay/signing) and nothing else.
import Fastify from 'fastify'
import { checkApiTimestamp, verifyApiSignature } from '../../packages/signing/dist/index.js'

const port = Number(process.env.PORT ?? 0)
const credentials = JSON.parse(process.env.BENCH_CREDENTIALS)
const secrets = new Map([[credentials.apiKey, credentials.apiSecret]])

const app = Fastify({ logger: false })
app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
  done(null, body),
)

async function check(request, reply) {
  const key = request.headers['x-service-key']
  const timestamp = request.headers['x-service-timestamp']
  const signature = request.headers['x-service-signature']
  const secret = secrets.get(key)
  const body = typeof request.body === 'string' ? request.body : ''
  if (
    !secret ||
    checkApiTimestamp(String(timestamp), Date.now()) !== 'ok' ||
    !verifyApiSignature(secret, { timestamp, method: request.method, path: request.raw.url, body }, signature)
  ) {
    return reply.code(401).send({ error: { code: 'INVALID_SIGNATURE', message: 'invalid signature' } })
  }
  return { ok: true }
}

app.get('/api/merchant/v1/payments/:paymentId', check)
app.post('/api/merchant/v1/payments', check)
await app.listen({ host: '127.0.0.1', port })
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`)
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))

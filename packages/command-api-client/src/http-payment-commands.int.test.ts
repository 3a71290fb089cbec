// The client against plain HTTP servers that misbehave the ways a network and a proxy do; the client
// against the real command API is payment-command's concern (its contract suite and command-api tests).

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { UnavailableError } from '@chainpay/ports'
import { afterEach, describe, expect, it } from 'vitest'
import { createHttpPaymentCommands } from './http-payment-commands.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function listen(server: Server): Promise<{ baseUrl: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  cleanups.push(async () => {
    if (server.listening) await close()
  })
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close }
}

function clientOf(baseUrl: string, timeoutMs = 5_000, token?: string) {
  const commands = createHttpPaymentCommands({
    baseUrl,
    timeoutMs,
    ...(token === undefined ? {} : { token }),
  })
  cleanups.push(() => commands.close())
  return commands
}

describe('createHttpPaymentCommands', () => {
  it('turns a refused connection into the port’s UnavailableError, naming where it called', async () => {
    const gone = await listen(createServer())
    await gone.close()
    const error = await clientOf(gone.baseUrl)
      .getPayment({ merchantId: 'merchant-1', paymentId: crypto.randomUUID() })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(UnavailableError)
    expect(error).toMatchObject({ message: expect.stringContaining(gone.baseUrl) })
  })

  it('turns no answer within the timeout into an UnavailableError', async () => {
    const silent = await listen(createServer(() => {}))
    await expect(
      clientOf(silent.baseUrl, 200).cancelPayment({
        merchantId: 'merchant-1',
        paymentId: crypto.randomUUID(),
      }),
    ).rejects.toBeInstanceOf(UnavailableError)
  })

  it('turns a 5xx without an error body into an UnavailableError, keeping error bodies as DomainErrors', async () => {
    let answer = { status: 502, body: '<html>bad gateway</html>' }
    const proxy = await listen(
      createServer((_, response) => {
        response.writeHead(answer.status, { 'content-type': 'text/html' }).end(answer.body)
      }),
    )
    const commands = clientOf(`${proxy.baseUrl}/`)
    const get = () => commands.getPayment({ merchantId: 'merchant-1', paymentId: crypto.randomUUID() })
    await expect(get()).rejects.toBeInstanceOf(UnavailableError)
    answer = { status: 503, body: '{"error":{"code":"SERVICE_UNAVAILABLE","message":"event store down"}}' }
    await expect(get()).rejects.toMatchObject({
      name: 'DomainError',
      code: 'SERVICE_UNAVAILABLE',
      message: 'event store down',
    })
  })

  it('sends its token as the bearer of every command, and no Authorization header without one', async () => {
    const seen: Array<string | undefined> = []
    const server = await listen(
      createServer((request, response) => {
        seen.push(request.headers.authorization)
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":"PAYMENT_NOT_FOUND","message":"payment not found"}}')
      }),
    )
    const token = 'command-api-token-0123456789abcdef'
    const withToken = clientOf(server.baseUrl, 5_000, token)
    await withToken.getPayment({ merchantId: 'merchant-1', paymentId: crypto.randomUUID() })
    await withToken.cancelPayment({ merchantId: 'merchant-1', paymentId: 'p-1' }).catch(() => undefined)
    await withToken
      .createPayment({ merchantId: 'merchant-1', request: { amount: '1' } })
      .catch(() => undefined)
    await clientOf(server.baseUrl).getPayment({ merchantId: 'merchant-1', paymentId: crypto.randomUUID() })
    expect(seen).toEqual([`Bearer ${token}`, `Bearer ${token}`, `Bearer ${token}`, undefined])
  })

  it('turns a refused token into a plain Error naming COMMAND_API_TOKEN: an operator’s mistake, not a merchant’s 401', async () => {
    const server = await listen(
      createServer((_, response) => {
        response
          .writeHead(401, { 'content-type': 'application/json' })
          .end('{"error":{"code":"INVALID_API_KEY","message":"Authorization: not the COMMAND_API_TOKEN"}}')
      }),
    )
    const error = await clientOf(server.baseUrl, 5_000, 'a-token-payment-command-does-not-know')
      .cancelPayment({ merchantId: 'merchant-1', paymentId: 'p-1' })
      .catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(UnavailableError)
    expect(error).not.toHaveProperty('code')
    expect((error as Error).message).toMatch(/^payment-command refused a cancel: .*COMMAND_API_TOKEN/)
    expect((error as Error).message).not.toContain('a-token-payment-command-does-not-know')
  })

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createHttpPaymentCommands({ baseUrl: 'ftp://127.0.0.1:21' })).toThrow(/must be http\(s\)/)
  })
})

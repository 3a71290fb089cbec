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

function clientOf(baseUrl: string, timeoutMs = 5_000) {
  const commands = createHttpPaymentCommands({ baseUrl, timeoutMs })
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

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createHttpPaymentCommands({ baseUrl: 'ftp://127.0.0.1:21' })).toThrow(/must be http\(s\)/)
  })
})

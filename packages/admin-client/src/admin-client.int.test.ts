// The admin client against a real admin API on a real port: its typed calls, and its one failure
// type, AdminClientError, for each way a call fails (refused with the API's code, unreachable, failed).

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { createRootLogger, createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import { createSqliteMerchantStore, type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type AdminClient, createAdminClient } from './admin-client.js'
import { AdminClientError } from './admin-client-error.js'

const TOKEN = 'admin-client-test-token-0123456789ab'

let db: DatabaseSync
let app: FastifyInstance
let url: string
let client: AdminClient

beforeEach(async () => {
  db = openSqliteDatabase(':memory:')
  const merchants = createSqliteMerchantStore(db)
  const secretBox = createSecretBox(generateSecretKey())
  app = await buildAdminApp({
    merchants,
    secretBox,
    adminToken: TOKEN,
    clock: systemClock,
    logger: createRootLogger({ service: 'admin-client-test', level: 'silent' }),
    authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
  })
  url = await app.listen({ host: '127.0.0.1', port: 0 })
  client = createAdminClient({ url, token: TOKEN })
})

afterEach(async () => {
  await app.close()
  db.close()
})

/** the AdminClientError a call failed with */
async function failureOf(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(AdminClientError)
  return error as AdminClientError
}

describe('createAdminClient', () => {
  it('makes, shows, rolls and revokes through the typed calls', async () => {
    const created = await client.merchants.create({ name: 'Corner Shop', feeBps: 150 })
    const { merchantId } = created.merchant
    expect(created.merchant.feePolicy).toEqual({ feeBps: 150, fixedFees: {} })
    const rolled = await client.apiKeys.roll(merchantId, created.apiKey, { overlapHours: 1 })
    expect(rolled.rolled.apiKey).toBe(created.apiKey)
    const shown = await client.merchants.show(merchantId)
    // compared by key: keys made in the same millisecond are listed by id
    expect(new Map(shown.apiKeys.map((key) => [key.apiKey, key.status]))).toEqual(
      new Map([
        [created.apiKey, 'expiring'],
        [rolled.apiKey, 'active'],
      ]),
    )
    expect(await client.apiKeys.revoke(merchantId, rolled.apiKey)).toEqual({
      apiKey: rolled.apiKey,
      revokedAt: expect.any(String),
    })
    const listed = (await client.apiKeys.list(merchantId)).apiKeys
    expect(new Map(listed.map((key) => [key.apiKey, key.status]))).toEqual(
      new Map([
        [created.apiKey, 'expiring'],
        [rolled.apiKey, 'revoked'],
      ]),
    )
  })

  it("says what the API refused: its code, message and status, and the request's method and path", async () => {
    const failure = await failureOf(client.merchants.show('mer_nope'))
    expect(failure.failure).toMatchObject({
      kind: 'refused',
      method: 'GET',
      path: '/merchants/mer_nope',
      status: 404,
      code: 'NOT_FOUND',
      message: 'merchant mer_nope not found',
    })
    expect(failure.message).toBe('merchant mer_nope not found (NOT_FOUND, HTTP 404)')

    const wrongToken = createAdminClient({ url, token: 'another-token-0123456789abcdefgh' })
    expect((await failureOf(wrongToken.merchants.list())).failure).toMatchObject({
      kind: 'refused',
      status: 401,
      code: 'INVALID_API_KEY',
    })
  })

  it('says the API cannot be reached, with the connection error', async () => {
    await app.close()
    const failure = await failureOf(client.merchants.list())
    expect(failure.failure).toMatchObject({ kind: 'unreachable', status: null, cause: 'ECONNREFUSED' })
    expect(failure.message).toBe(`cannot reach the admin API at ${url}: ECONNREFUSED`)
  })

  it('says the API failed when it answers 5xx or what is not JSON', async () => {
    const proxy = createServer((request, response) => {
      if (request.url?.startsWith('/admin/v1/merchants')) response.writeHead(502).end('bad gateway')
      else response.writeHead(200, { 'content-type': 'text/html' }).end('<html>a login page</html>')
    })
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
    try {
      const behind = createAdminClient({
        url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        token: TOKEN,
      })
      const failed = await failureOf(behind.merchants.list())
      expect(failed.failure).toMatchObject({ kind: 'failed', status: 502, code: null, text: 'bad gateway' })
      expect(failed.message).toBe('the admin API answered HTTP 502: bad gateway')
      const notJson = await failureOf(behind.secrets.reseal())
      expect(notJson.failure).toMatchObject({
        kind: 'failed',
        status: 200,
        text: '<html>a login page</html>',
      })
    } finally {
      await new Promise((resolve) => proxy.close(resolve))
    }
  })
})

// The gateway's admin API routes for merchant wallets (docs/api.md, "Merchant wallets") over
// payment-command's real merchant wallets on SQLite, as standalone wires them: the answers, the
// errors, what a replaced or removed wallet means for the merchant's next payments, and log lines
// without the seed. Here rather than in the gateway, which imports no other service's package.

import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import {
  openSqliteCommandSide,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from '@chainpay/payment-command/testing'
import { createRootLogger, systemClock } from '@chainpay/platform'
import {
  createDevelopmentWallet,
  deriveSolanaAddress,
  deriveTronAddress,
  walletFromMnemonic,
} from '@chainpay/wallet'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const TOKEN = 'admin-token-for-tests-0123456789'

let side: SqliteCommandSide
let app: FastifyInstance
let logLines: string[]

beforeEach(async () => {
  side = openSqliteCommandSide()
  logLines = []
  app = await buildAdminApp({
    merchants: side.merchants,
    // the gateway and payment-command share CHAINPAY_ENCRYPTION_KEY (docs/operations.md)
    secretBox: side.secretBox,
    adminToken: TOKEN,
    clock: systemClock,
    logger: createRootLogger({
      service: 'admin-test',
      level: 'trace',
      destination: { write: (line: string) => void logLines.push(line) },
    }),
    authenticator: createApiKeyAuthenticator({
      merchants: side.merchants,
      secretBox: side.secretBox,
      clock: systemClock,
    }),
    merchantWallets: side.merchantWallets,
  })
})

afterEach(async () => {
  await app.close()
  await side.close()
})

function admin(method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, body?: unknown, token = TOKEN) {
  return app.inject({
    method,
    url: `/admin/v1${url}`,
    headers: { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  })
}

const json = (response: LightMyRequestResponse) => JSON.parse(response.body)

const keysOf = (wallet: { tronAccountXpub: string; solanaSeed: string }) => ({
  tronAccountXpub: wallet.tronAccountXpub,
  solanaSeed: wallet.solanaSeed,
})

async function newMerchant(): Promise<string> {
  const response = await admin('POST', '/merchants', { name: 'Wallet Shop' })
  expect(response.statusCode, response.body).toBe(201)
  return json(response).merchant.merchantId
}

describe('admin API: merchant wallets', () => {
  it('sets, shows, replaces and removes a wallet, answering its public parts only', async () => {
    const merchantId = await newMerchant()
    const path = `/merchants/${merchantId}/wallet`
    const wallet = createDevelopmentWallet()

    const none = await admin('GET', path)
    expect(none.statusCode).toBe(404)
    expect(json(none)).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: `merchant ${merchantId} has no wallet of its own: the operator's serves it`,
      },
    })

    const set = await admin('PUT', path, keysOf(wallet))
    expect(set.statusCode, set.body).toBe(200)
    const shown = json(set).wallet
    expect(json(set)).toEqual({
      wallet: {
        merchantId,
        walletId: expect.stringMatching(/^w_[0-9a-f]{20}$/),
        tronAccountXpub: wallet.tronAccountXpub,
        solanaAddress0: deriveSolanaAddress(wallet.solanaSeed, 0).address,
        setAt: expect.any(String),
      },
    })
    expect(json(await admin('GET', path))).toEqual({ wallet: shown })
    const paid = await side.handler.createPayment({
      merchantId,
      request: { amount: '1', currency: 'USDT', network: 'TRON' },
    })
    expect(paid.payment.created.address).toBe(deriveTronAddress(wallet.tronAccountXpub, 0).address)

    // replaced: the next payment derives from the new wallet, from its own index 0
    const next = createDevelopmentWallet()
    const replaced = await admin('PUT', path, keysOf(next))
    expect(replaced.statusCode, replaced.body).toBe(200)
    expect(json(replaced).wallet.walletId).not.toBe(shown.walletId)
    const after = await side.handler.createPayment({
      merchantId,
      request: { amount: '1', currency: 'USDT', network: 'TRON' },
    })
    expect(after.payment.created).toMatchObject({
      walletId: json(replaced).wallet.walletId,
      address: deriveTronAddress(next.tronAccountXpub, 0).address,
    })

    const removed = await admin('DELETE', path)
    expect(removed.statusCode).toBe(200)
    expect(json(removed)).toEqual({ merchantId, removed: true })
    expect((await admin('DELETE', path)).statusCode).toBe(404)
    expect((await admin('GET', path)).statusCode).toBe(404)

    const logged = logLines.join('\n').toLowerCase()
    expect(logged).toContain('"msg":"merchant wallet set"')
    expect(logged).toContain(`"walletid":"${shown.walletId}"`)
    expect(logged).toContain('"msg":"merchant wallet removed"')
    for (const seed of [wallet.solanaSeed, next.solanaSeed]) expect(logged).not.toContain(seed.toLowerCase())
  })

  it('refuses bad keys (400), keys in use (409) and an unknown merchant (404), keeping nothing', async () => {
    const first = await newMerchant()
    const second = await newMerchant()
    const wallet = createDevelopmentWallet()
    expect((await admin('PUT', `/merchants/${first}/wallet`, keysOf(wallet))).statusCode).toBe(200)
    const stranger = createDevelopmentWallet()
    const operator = walletFromMnemonic(TEST_MNEMONIC)

    const refusals: Array<[string, unknown, number, string]> = [
      [second, { ...keysOf(stranger), tronAccountXpub: 'xpub-not' }, 400, 'INVALID_TRON_XPUB'],
      [second, { ...keysOf(stranger), solanaSeed: 'zz' }, 400, 'INVALID_SOLANA_SEED'],
      [second, { tronAccountXpub: stranger.tronAccountXpub }, 400, 'VALIDATION_ERROR'],
      [second, { ...keysOf(stranger), note: 'extra' }, 400, 'VALIDATION_ERROR'],
      [
        second,
        { ...keysOf(stranger), tronAccountXpub: wallet.tronAccountXpub },
        409,
        'WALLET_ALREADY_IN_USE',
      ],
      [second, { ...keysOf(stranger), solanaSeed: wallet.solanaSeed }, 409, 'WALLET_ALREADY_IN_USE'],
      [second, keysOf(operator), 409, 'WALLET_ALREADY_IN_USE'],
      ['mer_unknown', keysOf(stranger), 404, 'NOT_FOUND'],
    ]
    for (const [merchantId, body, status, code] of refusals) {
      const response = await admin('PUT', `/merchants/${merchantId}/wallet`, body)
      expect([response.statusCode, json(response).error.code], JSON.stringify(body)).toEqual([status, code])
      // an error message never quotes the seed it was given
      expect(response.body.toLowerCase()).not.toContain(stranger.solanaSeed.toLowerCase())
      expect(response.body.toLowerCase()).not.toContain(wallet.solanaSeed.toLowerCase())
    }
    expect((await admin('GET', `/merchants/${second}/wallet`)).statusCode).toBe(404)
    for (const method of ['GET', 'DELETE'] as const) {
      expect(json(await admin(method, '/merchants/mer_unknown/wallet'))).toEqual({
        error: { code: 'NOT_FOUND', message: 'merchant mer_unknown not found' },
      })
    }
    expect((await admin('PUT', `/merchants/${second}/wallet`, keysOf(stranger), 'wrong')).statusCode).toBe(
      401,
    )
    expect(logLines.join('\n').toLowerCase()).not.toContain(stranger.solanaSeed.toLowerCase())
  })

  it('counts the seeds in secrets reseal', async () => {
    const merchantId = await newMerchant()
    await admin('PUT', `/merchants/${merchantId}/wallet`, keysOf(createDevelopmentWallet()))
    const report = await admin('POST', '/secrets/reseal')
    expect(report.statusCode, report.body).toBe(200)
    expect(json(report)).toMatchObject({
      merchantWalletSeeds: { total: 1, resealed: 0, alreadyCurrent: 1 },
      unopenable: [],
    })
  })
})

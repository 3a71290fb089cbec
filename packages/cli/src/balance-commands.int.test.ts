// chainpay-admin balances and sweeps record against a real admin API whose sweeps go to a real
// payment-command handler on SQLite; the read model is saved from the handler's answers, as the
// gateway's write-through does, so that the rows follow without a projection.

import { defaultAssetRegistry, toUnits } from '@chainpay/domain'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/gateway'
import {
  openSqliteCommandSide,
  payFinallyOn,
  type SqliteCommandSide,
} from '@chainpay/payment-command/testing'
import { createRootLogger, createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import type { PaymentReadModel, PaymentSnapshot } from '@chainpay/ports'
import { createSqliteMerchantStore, createSqlitePaymentReadModel } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runCli } from './testing/run-cli.js'

const TOKEN = 'cli-test-admin-token-0123456789abcdef'
const TREASURY = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'

let side: SqliteCommandSide
let readModel: PaymentReadModel
let app: Awaited<ReturnType<typeof buildAdminApp>>
let url: string

beforeEach(async () => {
  side = openSqliteCommandSide()
  readModel = createSqlitePaymentReadModel(side.db)
  const merchants = createSqliteMerchantStore(side.db)
  const secretBox = createSecretBox(generateSecretKey())
  app = await buildAdminApp({
    merchants,
    secretBox,
    adminToken: TOKEN,
    clock: systemClock,
    logger: createRootLogger({ service: 'cli-test', level: 'silent' }),
    authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
    balances: { commands: side.handler, readModel, registry: defaultAssetRegistry },
  })
  url = await app.listen({ host: '127.0.0.1', port: 0 })
})

afterEach(async () => {
  await app.close()
  await side.close()
})

const cli = (argv: string[]) => runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN })

const save = ({ payment, revision }: PaymentSnapshot) =>
  readModel.save({
    paymentId: payment.created.paymentId,
    merchantId: payment.created.merchantId,
    revision,
    state: payment,
    updatedAt: new Date().toISOString(),
  })

/** a paid payment of `merchantId`, in the read model */
async function paid(merchantId: string, amount: string, currency: string, network: string) {
  await side.addMerchant(merchantId)
  const { payment } = await side.handler.createPayment({ merchantId, request: { amount, currency, network } })
  await payFinallyOn(side)(payment, toUnits(amount, payment.created.decimals).toString())
  const snapshot = await side.handler.getPayment({ merchantId, paymentId: payment.created.paymentId })
  if (snapshot === null) throw new Error('the payment is gone')
  await save(snapshot)
  return snapshot.payment.created
}

describe('chainpay-admin balances', () => {
  it('prints a row per paid address and asset in aligned columns, and the API answer with --json', async () => {
    const usdt = await paid('mer_a', '10.5', 'USDT', 'TRON')
    const sol = await paid('mer_b', '0.25', 'SOL', 'SOLANA')

    const run = await cli(['balances'])
    expect(run.code, run.err.join('\n')).toBe(0)
    const [header, ...rows] = run.out
    expect(header).toMatch(
      /^MERCHANT +WALLET +PAYMENT +NETWORK +ADDRESS +CURRENCY +RECEIVED +SWEPT +ON CHAIN$/,
    )
    const sorted = [usdt, sol].sort((a, b) => (a.paymentId < b.paymentId ? -1 : 1))
    expect(rows.map((row) => row.split(/ {2,}/))).toEqual(
      sorted.map((created) => [
        created.merchantId,
        'operator',
        created.paymentId,
        created.network,
        created.address,
        created.currency,
        created.currency === 'USDT' ? '10.5' : '0.25',
        '0',
        '-',
      ]),
    )
    // every column starts where its header does
    const start = (line: string, cell: string) => line.indexOf(cell)
    expect(start(rows[0] ?? '', sorted[0]?.paymentId ?? '')).toBe(start(header ?? '', 'PAYMENT'))

    const json = await cli(['--json', 'balances', '--merchant', 'mer_b', '--network', 'SOLANA'])
    expect(JSON.parse(json.out.join('\n'))).toMatchObject({
      data: [{ paymentId: sol.paymentId, currency: 'SOL', received: '0.25', tokenStandard: 'NATIVE' }],
      nextCursor: null,
    })
  })

  it('records a sweep once, and the totals show it', async () => {
    const created = await paid('mer_a', '10.5', 'USDT', 'TRON')
    const record = [
      'sweeps',
      'record',
      created.paymentId,
      '--tx-hash',
      'ef'.repeat(32),
      '--currency',
      'USDT',
      '--amount',
      '10',
      '--fee',
      '13.4',
      '--fee-currency',
      'TRX',
      '--treasury',
      TREASURY,
    ]
    const first = await cli(record)
    expect(first.code, first.err.join('\n')).toBe(0)
    expect(first.out[0]).toMatch(
      new RegExp(
        `^Sweep ${'ef'.repeat(32)} of payment ${created.paymentId}: 10 USDT to ${TREASURY}, fee 13.4 TRX`,
      ),
    )
    expect((await cli(record)).out).toEqual(first.out)
    const refused = await cli(record.map((arg) => (arg === '10' ? '0.6' : arg)))
    expect(refused.code).toBe(1)
    expect(refused.err[0]).toMatch(/SWEEP_TX_REUSED, HTTP 409/)

    const snapshot = await side.handler.getPayment({ merchantId: 'mer_a', paymentId: created.paymentId })
    if (snapshot !== null) await save(snapshot)
    const totals = await cli(['balances', '--totals'])
    expect(totals.out).toEqual([
      'MERCHANT  NETWORK  CURRENCY  RECEIVED  SWEPT  UNSWEPT  ADDRESSES',
      'mer_a     TRON     USDT      10.5      10     0.5      1',
    ])
    expect((await cli(['sweeps', 'record', created.paymentId])).err[0]).toMatch(/--tx-hash, --currency/)
  })
})

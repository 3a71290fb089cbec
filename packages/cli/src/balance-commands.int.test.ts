// chainpay-admin balances and sweeps record against a real admin API, in both shapes (docs/architecture.md):
// standalone's, where the admin API calls payment-command's handler and the read model is saved from
// its answers as the gateway's write-through does; and the distributed one, where it calls the command
// API over HTTP, and the relay and the projection carry the events from the SQLite event store over
// the bus into the read model on MongoDB's wire protocol (FerretDB).

import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { defaultAssetRegistry, toUnits } from '@chainpay/domain'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { buildCommandApi, createEventRelay } from '@chainpay/payment-command'
import {
  openSqliteCommandSide,
  payFinallyOn,
  type SqliteCommandSide,
} from '@chainpay/payment-command/testing'
import { createRootLogger, createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import type { PaymentCommands, PaymentReadModel, PaymentSnapshot } from '@chainpay/ports'
import { createProjectionService } from '@chainpay/projection'
import { createMongoPaymentReadModel, migrateMongoDatabase, openMongoDatabase } from '@chainpay/store-mongo'
import {
  createSqliteBus,
  createSqliteCheckpointStore,
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { runCli } from './testing/run-cli.js'

const TOKEN = 'cli-test-admin-token-0123456789abcdef'
const TREASURY = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'

interface Shape {
  commands: PaymentCommands
  readModel: PaymentReadModel
  /** once the read model holds the payment at the snapshot's revision */
  caughtUp(snapshot: PaymentSnapshot): Promise<void>
  close(): Promise<void>
}

const logger = createRootLogger({ service: 'cli-test', level: 'silent' })

const shapes: Record<string, (side: SqliteCommandSide) => Promise<Shape>> = {
  async standalone(side) {
    const readModel = createSqlitePaymentReadModel(side.db)
    return {
      commands: side.handler,
      readModel,
      async caughtUp({ payment, revision }) {
        await readModel.save({
          paymentId: payment.created.paymentId,
          merchantId: payment.created.merchantId,
          revision,
          state: payment,
          updatedAt: new Date().toISOString(),
        })
      },
      close: async () => {},
    }
  },

  async distributed(side) {
    const commandApi = buildCommandApi({ handler: side.handler, logger })
    const commandApiUrl = await commandApi.listen({ host: '127.0.0.1', port: 0 })
    const commands = createHttpPaymentCommands({ baseUrl: commandApiUrl, timeoutMs: 5_000 })
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('balances') })
    await migrateMongoDatabase(mongo.db)
    const readModel = createMongoPaymentReadModel(mongo.db)
    const bus = createSqliteBus(side.db, { logger, pollIntervalMs: 20 })
    const relay = createEventRelay({
      eventStore: side.eventStore,
      bus,
      checkpoints: createSqliteCheckpointStore(side.db),
      logger,
      pollIntervalMs: 50,
    })
    const projection = createProjectionService({ bus, readModel, logger })
    await relay.start()
    await projection.start()
    return {
      commands,
      readModel,
      async caughtUp({ payment, revision }) {
        await vi.waitFor(
          async () =>
            expect((await readModel.get(payment.created.paymentId))?.revision).toBeGreaterThanOrEqual(
              revision,
            ),
          { timeout: 10_000, interval: 20 },
        )
      },
      async close() {
        await projection.stop()
        await relay.stop()
        await bus.close()
        await commands.close()
        await commandApi.close()
        await mongo.db.dropDatabase()
        await mongo.close()
      },
    }
  },
}

describe.each(Object.keys(shapes))('chainpay-admin balances and sweeps, %s', (shapeName) => {
  let side: SqliteCommandSide
  let shape: Shape
  let app: Awaited<ReturnType<typeof buildAdminApp>>
  let url: string

  beforeEach(async () => {
    side = openSqliteCommandSide()
    shape = await (shapes[shapeName] as (side: SqliteCommandSide) => Promise<Shape>)(side)
    const merchants = createSqliteMerchantStore(side.db)
    const secretBox = createSecretBox(generateSecretKey())
    app = await buildAdminApp({
      merchants,
      secretBox,
      adminToken: TOKEN,
      clock: systemClock,
      logger,
      authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
      balances: { commands: shape.commands, readModel: shape.readModel, registry: defaultAssetRegistry },
    })
    url = await app.listen({ host: '127.0.0.1', port: 0 })
  })

  afterEach(async () => {
    await app.close()
    await shape.close()
    await side.close()
  })

  const cli = (argv: string[]) => runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN })

  /** a paid payment of `merchantId`, in the read model */
  async function paid(merchantId: string, amount: string, currency: string, network: string) {
    await side.addMerchant(merchantId)
    const { payment } = await side.handler.createPayment({
      merchantId,
      request: { amount, currency, network },
    })
    await payFinallyOn(side)(payment, toUnits(amount, payment.created.decimals).toString())
    const snapshot = await side.handler.getPayment({ merchantId, paymentId: payment.created.paymentId })
    if (snapshot === null) throw new Error('the payment is gone')
    await shape.caughtUp(snapshot)
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
      if (snapshot !== null) await shape.caughtUp(snapshot)
      const totals = await cli(['balances', '--totals'])
      expect(totals.out).toEqual([
        'MERCHANT  NETWORK  CURRENCY  RECEIVED  SWEPT  UNSWEPT  ADDRESSES',
        'mer_a     TRON     USDT      10.5      10     0.5      1',
      ])
      expect((await cli(['sweeps', 'record', created.paymentId])).err[0]).toMatch(/--tx-hash, --currency/)
      const unknown = await cli(record.map((arg) => (arg === created.paymentId ? crypto.randomUUID() : arg)))
      expect(unknown.err[0]).toMatch(/PAYMENT_NOT_FOUND, HTTP 404/)
      const bad = await cli(record.map((arg) => (arg === '10' ? 'ten' : arg)))
      expect(bad.err[0]).toMatch(/^error: amount: .*VALIDATION_ERROR, HTTP 400/)
    })
  })
})

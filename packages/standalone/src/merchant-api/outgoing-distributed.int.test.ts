// Refunds and payouts in the distributed shape (docs/architecture.md, "The refunds and payouts read
// model"): the gateway reaches payment-command over the command API's HTTP, and reads and writes
// through the read model on MongoDB's wire protocol (FerretDB), which the relay and the projection
// also fill from the event store over the bus. Calls to the command API are counted, never timed.

import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { type FoldedPayment, foldPaymentEvent } from '@chainpay/domain'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { buildCommandApi, createEventRelay } from '@chainpay/payment-command'
import { createRootLogger, type Service } from '@chainpay/platform'
import type { OutgoingCommands } from '@chainpay/ports'
import { createOutgoingProjection } from '@chainpay/projection'
import { createMongoOutgoingReadModel, migrateMongoDatabase, openMongoDatabase } from '@chainpay/store-mongo'
import { createSqliteBus, createSqliteCheckpointStore } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const API = '/api/merchant/v1'
const PAYEE = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
const logger = createRootLogger({ service: 'outgoing-distributed-test', level: 'silent' })

type Json = Record<string, unknown>

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** the gateway on the command API's client and the MongoDB read model; the relay and projection running */
async function openDistributed() {
  const calls: string[] = []
  let handler: OutgoingCommands | undefined
  const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('outgoing') })
  await migrateMongoDatabase(mongo.db)
  cleanups.push(async () => {
    await mongo.db.dropDatabase()
    await mongo.close()
  })
  const readModel = createMongoOutgoingReadModel(mongo.db)
  const fixture: MerchantApiFixture = await openMerchantApiFixture({
    outgoingReadModel: () => readModel,
    outgoing: async (outgoing, payments) => {
      handler = outgoing
      const commandApi = buildCommandApi({ handler: payments, outgoing, logger })
      commandApi.addHook('onRequest', async (request) => void calls.push(request.url))
      await commandApi.listen({ host: '127.0.0.1', port: 0 })
      const { port } = commandApi.server.address() as AddressInfo
      const client: HttpPaymentCommands = createHttpPaymentCommands({
        baseUrl: `http://127.0.0.1:${port}`,
        timeoutMs: 5_000,
      })
      cleanups.push(async () => {
        await client.close()
        await commandApi.close()
      })
      return client
    },
  })
  cleanups.push(() => fixture.close())
  const bus = createSqliteBus(fixture.db, { logger, pollIntervalMs: 20 })
  const services: Service[] = [
    createEventRelay({
      eventStore: fixture.eventStore,
      bus,
      checkpoints: createSqliteCheckpointStore(fixture.db),
      logger,
      pollIntervalMs: 50,
    }),
    createOutgoingProjection({ bus, readModel, logger }),
  ]
  for (const service of services) await service.start()
  cleanups.push(async () => {
    for (const service of [...services].reverse()) await service.stop()
    await bus.close()
  })
  if (handler === undefined) throw new Error('no outgoing handler')
  return { fixture, readModel, calls, handler }
}

async function paidPayment(fixture: MerchantApiFixture, amount: string): Promise<string> {
  const created = json(await fixture.create({ amount, currency: 'USDT', network: 'TRON' }))
  const paymentId = created.paymentId as string
  await fixture.handler.recordObservation({
    kind: 'transfer',
    network: 'TRON',
    paymentId,
    txHash: `tx-${paymentId}`,
    transferIndex: 0,
    address: created.generatedAddress as string,
    amountUnits: (BigInt(amount) * 1_000_000n).toString(),
    blockHeight: 100,
    blockTime: '2030-01-15T12:05:00.000Z',
    confirmations: 20,
    status: 'seen',
    dropReason: null,
    observedAt: '2030-01-15T12:05:03.000Z',
  })
  const merchantId = fixture.merchant.merchant.merchantId
  const history = await fixture.handler.getPaymentHistory({ merchantId, paymentId })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) await fixture.readModel.save(folded)
  return paymentId
}

describe('refunds and payouts in the distributed shape', () => {
  it('lists and reads from the read model on MongoDB, and shows a step the projection brought', async () => {
    const { fixture, readModel, calls, handler } = await openDistributed()
    await paidPayment(fixture, '100')
    const ids: string[] = []
    for (const key of ['a', 'b', 'c']) {
      fixture.clock.advance(1_000)
      const response = await fixture.send('POST', `${API}/payouts`, {
        body: JSON.stringify({
          network: 'TRON',
          currency: 'USDT',
          amount: '5',
          address: PAYEE,
          idempotencyKey: key,
        }),
      })
      expect(response.statusCode, response.body).toBe(201)
      ids.push(json(response).payoutId as string)
    }
    calls.length = 0
    const first = json<{ data: Json[]; nextCursor: string }>(
      await fixture.send('GET', `${API}/payouts?limit=2`),
    )
    const second = json<{ data: Json[]; nextCursor: null }>(
      await fixture.send('GET', `${API}/payouts?limit=2&cursor=${first.nextCursor}`),
    )
    expect([...first.data, ...second.data].map((payout) => payout.payoutId)).toEqual([...ids].reverse())
    expect(json(await fixture.send('GET', `${API}/payouts/${ids[0]}`))).toMatchObject({ status: 'ready' })
    const operator = await fixture.adminApp.inject({
      method: 'GET',
      url: '/admin/v1/outgoing?network=TRON',
      headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
    })
    expect(json<{ data: Json[] }>(operator).data.map((row) => row.id)).toEqual(ids)
    // no list and no read went to payment-command: the read model on MongoDB answered them all
    expect(calls).toEqual([])

    // a step recorded on payment-command itself, not through this gateway: the projection brings it
    const [id] = ids
    if (id === undefined) throw new Error('no payout')
    await handler.recordOutgoingStep({ kind: 'payout', id, step: { type: 'Plan', planId: 'plan-1' } })
    await vi.waitFor(async () => expect((await readModel.get('payout', id))?.item.status).toBe('sending'), {
      timeout: 10_000,
      interval: 20,
    })
    expect(json(await fixture.send('GET', `${API}/payouts/${id}`))).toMatchObject({ status: 'sending' })
    expect(calls).toEqual([])
  })
})

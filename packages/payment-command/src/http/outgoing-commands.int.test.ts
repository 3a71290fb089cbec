// Refunds and payouts in the distributed shape's terms (docs/architecture.md, "The command API"): the
// gateway's HTTP client (@chainpay/command-api-client) to two payment-command replicas' command APIs on
// one event store, each reading merchants' received funds from the read model on MongoDB's wire
// protocol (FerretDB). Concurrent creates spread over both replicas never take a balance or a payment's
// rest below zero: the merchant's ledger stream serializes them.

import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import {
  defaultAssetRegistry,
  type FoldedPayment,
  foldPaymentEvent,
  type OpenPayment,
} from '@chainpay/domain'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { systemClock } from '@chainpay/platform'
import { type PaymentReadModel, type ReceivedNetTotals, receivedNetCountOf } from '@chainpay/ports'
import {
  createMongoPaymentReadModel,
  createMongoReceivedNetTotals,
  type MongoDatabase,
  migrateMongoDatabase,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutgoingCommandHandler } from '../outgoing-command-handler.js'
import { payFinallyOn } from '../testing/pay-finally.js'
import { openSqliteCommandSide, type SqliteCommandSide } from '../testing/sqlite-command-side.js'
import { buildCommandApi } from './command-api.js'

const CUSTOMER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
const MERCHANT = 'merchant-distributed'

let side: SqliteCommandSide
let mongo: MongoDatabase
let readModel: PaymentReadModel
let receivedNet: ReceivedNetTotals
const replicas: { close(): Promise<void> }[] = []
let clients: HttpPaymentCommands[]

beforeAll(async () => {
  side = openSqliteCommandSide()
  await side.addMerchant(MERCHANT)
  mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('outgoing') })
  await migrateMongoDatabase(mongo.db)
  readModel = createMongoPaymentReadModel(mongo.db)
  receivedNet = createMongoReceivedNetTotals(mongo.db)
  clients = []
  for (let replica = 0; replica < 2; replica++) {
    const outgoing = createOutgoingCommandHandler({
      eventStore: side.eventStore,
      receivedNet,
      merchants: side.merchants,
      registry: defaultAssetRegistry,
      clock: systemClock,
      logger: side.logger,
    })
    const app = buildCommandApi({ handler: side.handler, outgoing, logger: side.logger })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as AddressInfo
    const client = createHttpPaymentCommands({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 10_000 })
    clients.push(client)
    replicas.push({
      async close() {
        await client.close()
        await app.close()
      },
    })
  }
})

afterAll(async () => {
  for (const replica of replicas) await replica.close()
  await mongo?.db.dropDatabase()
  await mongo?.close()
  await side?.close()
})

/** a TRON USDT payment paid `units` and final, folded into the MongoDB read model and counted as the projection does */
async function paidPayment(key: string, units: string): Promise<OpenPayment> {
  const client = clients[0] as HttpPaymentCommands
  const { payment } = await client.createPayment({
    merchantId: MERCHANT,
    request: { amount: '100', currency: 'USDT', network: 'TRON', idempotencyKey: key },
  })
  await payFinallyOn(side)(payment, units)
  const paymentId = payment.created.paymentId
  const history = await client.getPaymentHistory({ merchantId: MERCHANT, paymentId })
  let folded: FoldedPayment | null = null
  history?.forEach(({ recordedAt, event }, revision) => {
    const next = foldPaymentEvent(folded, { paymentId, revision, recordedAt, ...event })
    if (next !== 'skip') folded = next
  })
  if (folded !== null) {
    await readModel.save(folded)
    await receivedNet.count(receivedNetCountOf(folded))
  }
  return (folded as FoldedPayment | null)?.state ?? payment
}

describe('refunds and payouts through the command API, on two replicas', () => {
  it('of 20 concurrent payouts over the balance, takes exactly the ones that fit', async () => {
    await paidPayment('payouts', '100000000') // 99 USDT net of the 1 % fee
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, index) =>
        (clients[index % 2] as HttpPaymentCommands).createPayout({
          merchantId: MERCHANT,
          request: {
            network: 'TRON',
            currency: 'USDT',
            amount: '10',
            address: CUSTOMER,
            idempotencyKey: `p-${index}`,
          },
        }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(9)
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected')
    expect(refused.map((outcome) => (outcome.reason as { code: string }).code)).toEqual(
      Array(11).fill('INSUFFICIENT_BALANCE'),
    )
    const [balance] = await (clients[1] as HttpPaymentCommands).getBalances({ merchantId: MERCHANT })
    expect(balance).toMatchObject({
      receivedNetUnits: '99000000',
      paidOutUnits: '90000000',
      availableUnits: '9000000',
    })
  })

  it('of two concurrent refunds over a payment’s rest, takes one; a cancel frees it again', async () => {
    const payment = await paidPayment('refunds', '100000000')
    const paymentId = payment.created.paymentId
    const outcomes = await Promise.allSettled(
      clients.map((client, index) =>
        client.createRefund({
          merchantId: MERCHANT,
          paymentId,
          request: { amount: '60', address: CUSTOMER, idempotencyKey: `r-${index}` },
        }),
      ),
    )
    const created = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []))
    expect(created).toHaveLength(1)
    const refundId = created[0]?.item.id as string
    const canceled = await (clients[1] as HttpPaymentCommands).cancelOutgoing({
      merchantId: MERCHANT,
      kind: 'refund',
      id: refundId,
    })
    expect(canceled.item.status).toBe('canceled')
    const again = await (clients[0] as HttpPaymentCommands).createRefund({
      merchantId: MERCHANT,
      paymentId,
      request: { amount: '60', address: CUSTOMER, idempotencyKey: 'r-again' },
    })
    expect(again).toMatchObject({ outcome: 'created', item: { status: 'ready', amount: '60' } })
    const row = await (clients[0] as HttpPaymentCommands).listOperatorOutgoing({
      network: 'TRON',
      statuses: ['ready'],
      limit: 100,
    })
    expect(row.data.map((item) => item.id)).toContain(again.item.id)
    expect(
      await (clients[1] as HttpPaymentCommands).getOutgoing({ kind: 'refund', id: 'no-such-refund' }),
    ).toBeNull()

    // the offline procedure's steps and the claim page's address, through the other replica
    const other = clients[1] as HttpPaymentCommands
    const step = (what: Parameters<HttpPaymentCommands['recordOutgoingStep']>[0]['step']) =>
      other.recordOutgoingStep({ kind: 'refund', id: again.item.id, step: what })
    expect((await step({ type: 'Plan', planId: 'plan-d' })).item.status).toBe('sending')
    expect((await step({ type: 'MarkSent', planId: 'plan-d', txHash: 'tx-d' })).item.status).toBe('sent')
    expect((await step({ type: 'Fail', txHash: 'tx-d', reason: 'EXPIRED' })).item).toMatchObject({
      status: 'failed',
      failureReason: 'EXPIRED',
    })
    await expect(step({ type: 'Plan', planId: 'plan-e' })).rejects.toMatchObject({
      code: 'REFUND_NOT_ALLOWED',
    })
    const claim = await other.createRefund({
      merchantId: MERCHANT,
      paymentId,
      request: { amount: '1', idempotencyKey: 'r-claim' },
    })
    expect(claim.item.status).toBe('awaiting_address')
    const given = await (clients[0] as HttpPaymentCommands).giveRefundAddress({
      refundId: claim.item.id,
      address: CUSTOMER,
    })
    expect(given.item).toMatchObject({ status: 'ready', address: CUSTOMER })
    const history = await other.getRefundHistory({ merchantId: MERCHANT, paymentId })
    expect(history.filter((entry) => entry.type === 'RefundFailed')).toHaveLength(1)
  })
})

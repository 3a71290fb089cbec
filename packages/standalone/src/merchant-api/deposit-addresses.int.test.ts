// Deposit addresses through the merchant API (docs/api.md, "Deposit addresses"; decisions.md section
// 22), in both shapes (docs/architecture.md): standalone's, where the gateway calls payment-command's
// handler in process and lists from SQLite; and the distributed one, where it calls the command API
// over HTTP and lists from MongoDB's wire protocol (FerretDB), which the relay and the projection
// fill from the event store over the bus.

import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { DepositAddressRoutesDeps } from '@chainpay/gateway'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import {
  buildCommandApi,
  createDepositAddressHandler,
  createDepositRelay,
  createPaymentCommandHandler,
  type DepositAddressHandler,
} from '@chainpay/payment-command'
import type { Logger } from '@chainpay/platform'
import type { PaymentCommands } from '@chainpay/ports'
import { createDepositProjection } from '@chainpay/projection'
import {
  createMongoDepositAddressReadModel,
  migrateMongoDatabase,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import {
  createSqliteAddressAllocator,
  createSqliteBus,
  createSqliteCheckpointStore,
  createSqliteDepositAddressReadModel,
} from '@chainpay/store-sqlite'
import {
  createAddressDeriver,
  merchantWalletPublicParts,
  walletFromMnemonic,
  walletKeyIdOf,
} from '@chainpay/wallet'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  json,
  type MerchantApiFixture,
  type MerchantApiFixtureOptions,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const OPERATOR = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)
const operatorParts = merchantWalletPublicParts(OPERATOR)

type Parts = Parameters<NonNullable<MerchantApiFixtureOptions['depositAddresses']>>[0]

function handlerOn(parts: Parts): DepositAddressHandler {
  return createDepositAddressHandler({
    eventStore: parts.eventStore,
    merchants: parts.merchants,
    allocator: createSqliteAddressAllocator(parts.db),
    operator: {
      deriveDepositAddress: createAddressDeriver(OPERATOR).deriveDepositAddress,
      keyIdOf: (chain) => walletKeyIdOf(operatorParts, chain),
    },
    registry: defaultAssetRegistry,
    clock: parts.clock,
    logger: parts.logger as Logger,
  })
}

/** payment-command's payments, PER_USER ones on the customers' deposit addresses */
function paymentsOn(parts: Parts, depositAddresses: DepositAddressHandler): PaymentCommands {
  return createPaymentCommandHandler({
    eventStore: parts.eventStore,
    merchants: parts.merchants,
    allocator: createSqliteAddressAllocator(parts.db),
    deriver: createAddressDeriver(OPERATOR),
    registry: defaultAssetRegistry,
    policy: { allowInsecureCallbackUrls: false },
    depositAddresses,
    clock: parts.clock,
    logger: parts.logger as Logger,
  })
}

/** the gateway's payments: the shape's, known once its deps are built (after the fixture asks) */
function paymentsOf(current: () => Shape): PaymentCommands {
  return new Proxy({} as PaymentCommands, {
    get: (_target, method: keyof PaymentCommands) => (input: never) => {
      const payments = current().payments
      if (payments === undefined) throw new Error('the shape has built no payments yet')
      return (payments[method] as (input: never) => unknown).call(payments, input)
    },
  })
}

interface Shape {
  deps(parts: Parts): Promise<DepositAddressRoutesDeps>
  /** the gateway's PaymentCommands, once deps ran */
  payments?: PaymentCommands
  /** the projection has every address the event store holds (standalone: the write-through did it) */
  caughtUp(count: number): Promise<void>
  stop(): Promise<void>
}

const shapes: Record<string, () => Shape> = {
  standalone() {
    return {
      async deps(parts) {
        const depositAddresses = handlerOn(parts)
        this.payments = paymentsOn(parts, depositAddresses)
        return {
          depositAddressCommands: depositAddresses,
          depositAddressReadModel: createSqliteDepositAddressReadModel(parts.db),
        }
      },
      caughtUp: async () => {},
      stop: async () => {},
    }
  },
  distributed() {
    const stops: Array<() => Promise<void>> = []
    let projected: (() => Promise<number>) | undefined
    return {
      async deps(parts) {
        const logger = parts.logger as Logger
        const depositAddresses = handlerOn(parts)
        const commandApi = buildCommandApi({
          handler: paymentsOn(parts, depositAddresses) as never,
          depositAddresses,
          logger,
        })
        const commandApiUrl = await commandApi.listen({ host: '127.0.0.1', port: 0 })
        const client = createHttpPaymentCommands({ baseUrl: commandApiUrl, timeoutMs: 5_000 })
        this.payments = client
        const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('deposits') })
        await migrateMongoDatabase(mongo.db)
        const bus = createSqliteBus(parts.db, { logger, pollIntervalMs: 20 })
        const relay = createDepositRelay({
          eventStore: parts.eventStore,
          bus,
          checkpoints: createSqliteCheckpointStore(parts.db),
          logger,
        })
        // the projection's own read model, apart from the gateway's: the test sees what it brought
        const projectedModel = createMongoDepositAddressReadModel(mongo.db)
        const projection = createDepositProjection({ bus, depositAddresses: projectedModel, logger })
        await relay.start()
        await projection.start()
        stops.push(async () => {
          await projection.stop()
          await relay.stop()
          await bus.close()
          await client.close()
          await commandApi.close()
          await mongo.db.dropDatabase()
          await mongo.close()
        })
        const db = mongo.db
        projected = async () => db.collection('deposit_addresses_read').countDocuments()
        return {
          depositAddressCommands: client.depositAddresses,
          depositAddressReadModel: createMongoDepositAddressReadModel(mongo.db),
        }
      },
      async caughtUp(count) {
        await vi.waitFor(async () => expect(await projected?.()).toBe(count), {
          timeout: 10_000,
          interval: 20,
        })
      },
      async stop() {
        for (const stop of stops.splice(0)) await stop()
      },
    }
  },
}

describe.each(Object.keys(shapes))('deposit addresses, %s', (shapeName) => {
  let fixture: MerchantApiFixture
  let shape: Shape

  afterEach(async () => {
    await shape.stop()
    await fixture.close()
  })

  const open = async () => {
    shape = (shapes[shapeName] as () => Shape)()
    fixture = await openMerchantApiFixture({
      commands: () => paymentsOf(() => shape),
      depositAddresses: (parts) => shape.deps(parts),
    })
  }
  const ask = (body: unknown, credentials?: MerchantApiFixture['merchant']) =>
    fixture.send('POST', '/api/merchant/v1/deposit-addresses', {
      body: JSON.stringify(body),
      ...(credentials ? { credentials } : {}),
    })

  it('gives the same user the same address twice (201, then 200), another user and another merchant another', async () => {
    await open()
    const first = await ask({ merchantUserId: 'alice', network: 'TRON' })
    expect(first.statusCode, first.body).toBe(201)
    const alice = json<{ address: string; chain: string; merchantUserId: string }>(first)
    expect(alice).toMatchObject({ merchantUserId: 'alice', chain: 'TRON' })
    expect(alice.address).toBe(createAddressDeriver(OPERATOR).deriveDepositAddress('TRON', 0).address)
    const again = await ask({ merchantUserId: 'alice', network: 'TRON' })
    expect(again.statusCode).toBe(200)
    expect(json(again)).toEqual(alice)
    const nile = await ask({ merchantUserId: 'alice', network: 'TRON_NILE' })
    expect(nile.statusCode).toBe(200)
    expect(json(nile)).toEqual(alice)
    const bob = json<{ address: string }>(await ask({ merchantUserId: 'bob', network: 'TRON' }))
    const others = json<{ address: string }>(
      await ask({ merchantUserId: 'alice', network: 'TRON' }, fixture.otherMerchant),
    )
    expect(new Set([alice.address, bob.address, others.address]).size).toBe(3)
    const solana = await ask({ merchantUserId: 'alice', network: 'SOLANA' })
    expect(solana.statusCode).toBe(201)
    await shape.caughtUp(4)

    const listed = await fixture.send('GET', '/api/merchant/v1/deposit-addresses?limit=2')
    expect(listed.statusCode, listed.body).toBe(200)
    const page = json<{ data: Array<{ merchantUserId: string; chain: string }>; nextCursor: string }>(listed)
    expect(page.data).toHaveLength(2)
    const rest = json<{ data: unknown[]; nextCursor: string | null }>(
      await fixture.send('GET', `/api/merchant/v1/deposit-addresses?limit=2&cursor=${page.nextCursor}`),
    )
    expect(rest).toMatchObject({ nextCursor: null })
    expect(rest.data).toHaveLength(1)
    const alices = json<{ data: Array<{ merchantUserId: string; chain: string }> }>(
      await fixture.send('GET', '/api/merchant/v1/deposit-addresses?merchantUserId=alice'),
    )
    expect(alices.data.map((entry) => entry.chain).sort()).toEqual(['SOLANA', 'TRON'])
  })

  it('answers concurrent requests for one user with one address', async () => {
    await open()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => ask({ merchantUserId: 'carol', network: 'SOLANA' })),
    )
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201])
    expect(new Set(answers.map((answer) => json<{ address: string }>(answer).address)).size).toBe(1)
    await shape.caughtUp(1)
  })

  it("refuses a bad request with the domain's errors", async () => {
    await open()
    const noUser = await ask({ network: 'TRON' })
    expect(noUser.statusCode).toBe(400)
    expect(json(noUser)).toMatchObject({ error: { code: 'VALIDATION_ERROR' } })
    const unknownNetwork = await ask({ merchantUserId: 'a', network: 'BITCOIN' })
    expect(unknownNetwork.statusCode).toBe(400)
    expect(json(unknownNetwork)).toMatchObject({ error: { code: 'UNSUPPORTED_ASSET' } })
    const badCursor = await fixture.send('GET', '/api/merchant/v1/deposit-addresses?cursor=nope')
    expect(badCursor.statusCode).toBe(400)
  })
})

describe.each(Object.keys(shapes))('PER_USER payments, %s', (shapeName) => {
  let fixture: MerchantApiFixture
  let shape: Shape

  afterEach(async () => {
    await shape.stop()
    await fixture.close()
  })

  const open = async () => {
    shape = (shapes[shapeName] as () => Shape)()
    fixture = await openMerchantApiFixture({
      commands: () => paymentsOf(() => shape),
      depositAddresses: (parts) => shape.deps(parts),
    })
  }
  const pay = (merchantUserId: string, fields: Record<string, unknown> = {}) =>
    fixture.create({
      amount: '10.5',
      currency: 'USDT',
      network: 'TRON',
      addressMode: 'PER_USER',
      merchantUserId,
      ...fields,
    })
  interface Created {
    paymentId: string
    generatedAddress: string
    addressMode: string
    merchantUserId: string | null
  }

  it("pays to the customer's deposit address, one open payment per address and network: a second is 409 ADDRESS_BUSY", async () => {
    await open()
    const deposit = json<{ address: string }>(
      await fixture.send('POST', '/api/merchant/v1/deposit-addresses', {
        body: JSON.stringify({ merchantUserId: 'alice', network: 'TRON' }),
      }),
    )
    const first = await pay('alice', { idempotencyKey: 'order-1' })
    expect(first.statusCode, first.body).toBe(201)
    const payment = json<Created>(first)
    expect(payment).toMatchObject({
      generatedAddress: deposit.address,
      addressMode: 'PER_USER',
      merchantUserId: 'alice',
    })
    const read = json<Created>(await fixture.send('GET', `/api/merchant/v1/payments/${payment.paymentId}`))
    expect(read).toMatchObject({ addressMode: 'PER_USER', merchantUserId: 'alice' })

    const busy = await pay('alice')
    expect(busy.statusCode).toBe(409)
    expect(json(busy)).toMatchObject({ error: { code: 'ADDRESS_BUSY' } })
    // a retry of the first create is its replay, not a second payment
    const replay = await pay('alice', { idempotencyKey: 'order-1' })
    expect(replay.statusCode).toBe(200)
    // another asset on the same address waits too (the indexer follows one payment per address);
    // the same asset on the test network, and another customer, are free
    const trx = await pay('alice', { currency: 'TRX', amount: '5' })
    expect(trx.statusCode, trx.body).toBe(409)
    const nile = await pay('alice', { network: 'TRON_NILE' })
    expect(nile.statusCode, nile.body).toBe(201)
    expect(json<Created>(nile).generatedAddress).toBe(deposit.address)
    const bob = await pay('bob')
    expect(bob.statusCode).toBe(201)
    expect(json<Created>(bob).generatedAddress).not.toBe(deposit.address)

    // once the open payment is final (canceled here), the address takes the next one
    const canceled = await fixture.send('POST', `/api/merchant/v1/payments/${payment.paymentId}/cancel`)
    expect(canceled.statusCode, canceled.body).toBe(200)
    const next = await pay('alice')
    expect(next.statusCode, next.body).toBe(201)
    expect(json<Created>(next).generatedAddress).toBe(deposit.address)
  })

  it('lets one of concurrent creates on one customer and asset through, the others 409 ADDRESS_BUSY', async () => {
    await open()
    const answers = await Promise.all(Array.from({ length: 6 }, () => pay('carol')))
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409])
  })

  it('refuses PER_USER without a customer, and a customer without PER_USER, from the domain', async () => {
    await open()
    const noUser = await fixture.create({
      amount: '1',
      currency: 'USDT',
      network: 'TRON',
      addressMode: 'PER_USER',
    })
    expect(json(noUser)).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: 'merchantUserId: is required with addressMode PER_USER' },
    })
    const noMode = await fixture.create({
      amount: '1',
      currency: 'USDT',
      network: 'TRON',
      merchantUserId: 'a',
    })
    expect(noMode.statusCode).toBe(400)
  })
})

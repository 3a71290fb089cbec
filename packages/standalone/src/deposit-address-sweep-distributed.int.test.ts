// The sweep of a customer's deposit address in the distributed shape (docs/treasury.md, "Customers'
// deposit addresses in a plan"; docs/architecture.md, "The command API"): the gateway's admin API
// lists the balances from the read models on MongoDB's wire protocol (FerretDB), which the relays and
// the projections fill from payment-command's event store over a bus (the SQLite one, as
// treasury-refunds-distributed.int: what Kafka would carry changes nothing here), and records the
// sweeps through the command API client. The address took a PER_USER payment, then a deposit once the
// payment was final; `chainpay-wallet plan` sweeps it by one step signed at its deposit path,
// `broadcast` sends it to the simulated TRON node and records the payment's share on the payment and
// the deposit's on the deposit. deposit-address-sweep.int runs the same procedure against standalone.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { defaultAssetRegistry, depositIdOf, toDepositStreamId } from '@chainpay/domain'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import {
  buildCommandApi,
  createDepositRelay,
  createDepositSweepHandler,
  createEventRelay,
} from '@chainpay/payment-command'
import {
  openSqliteCommandSide,
  payFinallyOn,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from '@chainpay/payment-command/testing'
import { createRootLogger, systemClock } from '@chainpay/platform'
import type { DepositAddressReadModel, DepositReadModel, PaymentReadModel } from '@chainpay/ports'
import { createDepositProjection, createProjectionService } from '@chainpay/projection'
import {
  createMongoDepositAddressReadModel,
  createMongoDepositReadModel,
  createMongoPaymentReadModel,
  type MongoDatabase,
  migrateMongoDatabase,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { createSqliteBus, createSqliteCheckpointStore } from '@chainpay/store-sqlite'
import { createAdminApi, readPlanFile, runChainpayWallet, writeJsonFile } from '@chainpay/treasury'
import { signPlan } from '@chainpay/treasury/testing'
import type { FastifyInstance } from 'fastify'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

const NETWORK = 'TRON'
const ADMIN_TOKEN = 'distributed-admin-token-0123456789abcdef'
const MERCHANT = 'merchant-deposit-sweep'
const USER = 'customer-8841'

const logger = createRootLogger({ service: 'deposit-sweep-distributed-test', level: 'silent' })
const cleanups: Array<() => Promise<void>> = []
/** the operator's TRON treasury at its default path of the mnemonic (docs/treasury.md, "The treasury key") */
const treasury = TronWeb.fromMnemonic(TEST_MNEMONIC, "m/44'/195'/1'/0/0").address as string

let side: SqliteCommandSide
let commands: HttpPaymentCommands
let adminUrl: string
let node: SimulatorNode
let dir: string
let readModel: PaymentReadModel
let depositReadModel: DepositReadModel
let depositAddressReadModel: DepositAddressReadModel

beforeAll(async () => {
  side = openSqliteCommandSide()
  cleanups.push(() => side.close())
  await side.addMerchant(MERCHANT)
  dir = mkdtempSync(join(tmpdir(), 'chainpay-deposit-sweep-distributed-'))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))

  // payment-command: its event store, the relays to the bus, the projections into MongoDB
  const mongo: MongoDatabase = await openMongoDatabase({
    url: testMongoDbUrl(),
    database: uniqueName('deposit-sweep'),
  })
  cleanups.push(async () => {
    await mongo.db.dropDatabase()
    await mongo.close()
  })
  await migrateMongoDatabase(mongo.db)
  readModel = createMongoPaymentReadModel(mongo.db)
  depositReadModel = createMongoDepositReadModel(mongo.db)
  depositAddressReadModel = createMongoDepositAddressReadModel(mongo.db)
  const bus = createSqliteBus(side.db, { logger, pollIntervalMs: 20 })
  const checkpoints = createSqliteCheckpointStore(side.db)
  const relay = createEventRelay({
    eventStore: side.eventStore,
    bus,
    checkpoints,
    logger,
    pollIntervalMs: 20,
  })
  const depositRelay = createDepositRelay({ eventStore: side.eventStore, bus, checkpoints, logger })
  const projection = createProjectionService({ bus, readModel, logger })
  const depositProjection = createDepositProjection({
    bus,
    depositAddresses: depositAddressReadModel,
    deposits: depositReadModel,
    logger,
  })
  for (const service of [relay, depositRelay, projection, depositProjection]) await service.start()
  cleanups.push(async () => {
    for (const service of [depositProjection, projection, depositRelay, relay]) await service.stop()
    await bus.close()
  })
  const commandApi = buildCommandApi({
    handler: side.handler,
    depositSweeps: createDepositSweepHandler({
      eventStore: side.eventStore,
      registry: defaultAssetRegistry,
      clock: systemClock,
      logger,
    }),
    logger,
  })
  const commandApiUrl = await commandApi.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => commandApi.close())

  // the gateway's admin API, reaching payment-command through the command API client
  commands = createHttpPaymentCommands({ baseUrl: commandApiUrl, timeoutMs: 10_000 })
  cleanups.push(() => commands.close())
  const admin: FastifyInstance = await buildAdminApp({
    merchants: side.merchants,
    secretBox: side.secretBox,
    adminToken: ADMIN_TOKEN,
    clock: systemClock,
    logger,
    authenticator: createApiKeyAuthenticator({
      merchants: side.merchants,
      secretBox: side.secretBox,
      clock: systemClock,
    }),
    balances: {
      commands,
      readModel,
      registry: defaultAssetRegistry,
      deposits: {
        commands: commands.depositSweeps,
        readModel: depositReadModel,
        addresses: depositAddressReadModel,
      },
    },
  })
  adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => admin.close())

  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 20 }] })
  cleanups.push(() => node.close())
  await node.simulator.start()
  // the treasury exists on chain (an account TRON has never seen cannot be planned to)
  await node.simulator.submitTransfer(NETWORK, { to: treasury, amount: '100', currency: 'TRX' })
})

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function wallet(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet([...argv, '--url', adminUrl, '--rpc-url', node.tronUrl(NETWORK)], {
    env: { CHAINPAY_ADMIN_TOKEN: ADMIN_TOKEN },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: () => Promise.reject(new Error('no prompt')),
    now: () => new Date(),
  })
  return { code, out, err }
}

/** what the solidified chain shows at the address (java-tron's /walletsolidity) */
async function solidifiedSunOf(address: string): Promise<number> {
  const answer = await fetch(`${node.tronUrl(NETWORK)}/walletsolidity/getaccount`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, visible: true }),
  })
  return ((await answer.json()) as { balance?: number }).balance ?? 0
}

const balances = () => createAdminApi(adminUrl, ADMIN_TOKEN).balances({ network: NETWORK })

describe("a customer's deposit address swept, distributed", () => {
  it('a PER_USER payment and a deposit on one address: one step at the deposit path, both recorded through the command API, each on its own stream', {
    timeout: 60_000,
  }, async () => {
    const { payment } = await side.handler.createPayment({
      merchantId: MERCHANT,
      request: {
        amount: '7',
        currency: 'TRX',
        network: NETWORK,
        addressMode: 'PER_USER',
        merchantUserId: USER,
      },
    })
    const { paymentId, address } = payment.created
    await node.simulator.submitTransfer(NETWORK, { to: address, amount: '7', currency: 'TRX' })
    await payFinallyOn(side)(payment, '7000000')
    // once the payment is final, the customer sends 5 TRX more: a deposit, as the indexer reports it
    await node.simulator.submitTransfer(NETWORK, { to: address, amount: '5', currency: 'TRX' })
    const now = new Date().toISOString()
    await side.deposits.record({
      kind: 'deposit',
      network: NETWORK,
      merchantId: MERCHANT,
      merchantUserId: USER,
      address,
      txHash: 'deposit-tx-1',
      transferIndex: 0,
      currency: 'TRX',
      decimals: 6,
      amountUnits: '5000000',
      blockHeight: 200,
      blockTime: now,
      confirmations: 20,
      requiredConfirmations: 20,
      final: true,
      status: 'seen',
      dropReason: null,
      observedAt: now,
    })
    const depositId = depositIdOf(NETWORK, 'deposit-tx-1', 0)
    // the read models on MongoDB have the payment, the deposit and the address it was derived at
    await vi.waitFor(async () => expect((await balances()).map((row) => row.address)).toHaveLength(2), {
      timeout: 10_000,
      interval: 20,
    })
    expect(
      (await balances()).map(({ paymentId, depositId, address, derivationPath, received, swept }) => ({
        paymentId,
        depositId,
        address,
        derivationPath,
        received,
        swept,
      })),
    ).toEqual([
      { paymentId, depositId: null, address, derivationPath: "m/44'/195'/0'/2/0", received: '7', swept: '0' },
      { paymentId: null, depositId, address, derivationPath: "m/44'/195'/0'/2/0", received: '5', swept: '0' },
    ])

    // the plan builds on the latest solidified block (TRON solidifies 18 blocks down): both transfers in it
    await node.simulator.mineBlocks(NETWORK, 20)
    await vi.waitFor(async () => expect(await solidifiedSunOf(address)).toBe(12_000_000), {
      timeout: 20_000,
      interval: 50,
    })
    const planPath = join(dir, 'plan.json')
    const planned = await wallet(['plan', '--network', NETWORK, '--treasury', treasury, '--out', planPath])
    expect(planned.err).toEqual([])
    const { plan, sha256 } = readPlanFile(planPath)
    expect(plan.steps.map((step) => step.id)).toEqual([`sweep:${address}:TRX`])
    expect(plan.steps[0]?.signers.find((signer) => signer.role === 'payment')).toMatchObject({
      address,
      derivationPath: "m/44'/195'/0'/2/0",
    })
    expect(plan.sweeps.map((sweep) => [sweep.paymentId, sweep.depositId, sweep.amount])).toEqual([
      [paymentId, undefined, '7'],
      [null, depositId, '5'],
    ])
    const signedPath = join(dir, 'signed.json')
    writeJsonFile(signedPath, signPlan({ plan, planSha256: sha256, mnemonic: TEST_MNEMONIC }))

    const tronWeb = new TronWeb({ fullHost: node.tronUrl(NETWORK) })
    const before = BigInt(await tronWeb.trx.getBalance(treasury))
    const run = await wallet(['broadcast', '--signed', signedPath, '--poll-ms', '20', '--max-polls', '500'])
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    expect(BigInt(await tronWeb.trx.getBalance(treasury)) - before).toBe(12_000_000n)
    expect(BigInt(await tronWeb.trx.getBalance(address))).toBe(0n)
    // recorded through the command API on each stream, and read back from MongoDB
    const txId = plan.steps[0]?.tron?.transaction.txID
    const depositStream = await side.eventStore.readStream(toDepositStreamId(depositId))
    expect(depositStream.at(-1)).toMatchObject({
      type: 'DepositFundsSwept',
      data: { depositId, txHash: txId, currency: 'TRX', amountUnits: '5000000', treasury },
    })
    await vi.waitFor(async () => expect((await balances()).map((row) => row.swept)).toEqual(['7', '5']), {
      timeout: 10_000,
      interval: 20,
    })
    // a second broadcast records nothing more
    const again = await wallet(['broadcast', '--signed', signedPath])
    expect(again).toMatchObject({ code: 0, err: [] })
    expect(await side.eventStore.readStream(toDepositStreamId(depositId))).toHaveLength(depositStream.length)
  })
})

// Refunds and payouts through the offline procedure against the distributed shape's admin API
// (docs/treasury.md, "Refunds and payouts in a plan"; docs/architecture.md, "The command API"): the
// gateway's admin routes reach payment-command's refunds and payouts over HTTP with the command API
// client, payment-command reads the merchants' received funds from the read model on MongoDB's wire
// protocol (FerretDB), which the relay and the projection fill from its event store over a bus (the
// SQLite one, as cli's balance-commands.int: what Kafka would carry changes nothing here), with the
// merchants' running received net and the refunds and payouts read model the admin API lists from.
// `chainpay-wallet plan`, `broadcast` and `release` run as the command does, in this process, against
// that admin API and the simulated Solana node (@solana/web3.js); sign with chainpay-wallet's signer.
// treasury-refunds.int runs the same procedure against standalone.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { createHttpPaymentCommands, type HttpPaymentCommands } from '@chainpay/command-api-client'
import { defaultAssetRegistry, formatUnits, type OutgoingKind, resolveAsset, toUnits } from '@chainpay/domain'
import { createOutgoingReading } from '@chainpay/gateway'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { buildCommandApi, createEventRelay, createOutgoingCommandHandler } from '@chainpay/payment-command'
import {
  openSqliteCommandSide,
  payFinallyOn,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from '@chainpay/payment-command/testing'
import { createRootLogger, systemClock } from '@chainpay/platform'
import type {
  OutgoingReadModel,
  OutgoingSnapshot,
  PaymentReadModel,
  ReceivedNetTotals,
} from '@chainpay/ports'
import { createOutgoingProjection, createProjectionService } from '@chainpay/projection'
import {
  createMongoOutgoingReadModel,
  createMongoPaymentReadModel,
  createMongoReceivedNetTotals,
  type MongoDatabase,
  migrateMongoDatabase,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { createSqliteBus, createSqliteCheckpointStore } from '@chainpay/store-sqlite'
import {
  createAdminApi,
  readPlanFile,
  runChainpayWallet,
  type SignedSweep,
  writeJsonFile,
} from '@chainpay/treasury'
import { signPlan } from '@chainpay/treasury/testing'
import { associatedTokenAccount } from '@chainpay/wallet'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'

const NETWORK = 'SOLANA'
const USDC = resolveAsset(defaultAssetRegistry, { network: NETWORK, currency: 'USDC' }).contract as string
const ADMIN_TOKEN = 'distributed-admin-token-0123456789abcdef'
const MERCHANT = 'merchant-distributed-wallet'

const logger = createRootLogger({ service: 'treasury-distributed-test', level: 'silent' })
const treasury = Keypair.generate()
const cleanups: Array<() => Promise<void>> = []

let side: SqliteCommandSide
let commands: HttpPaymentCommands
let adminUrl: string
let node: SimulatorNode
let connection: Connection
let dir: string
let readModel: PaymentReadModel
let receivedNet: ReceivedNetTotals
let outgoingReadModel: OutgoingReadModel

beforeAll(async () => {
  side = openSqliteCommandSide()
  cleanups.push(() => side.close())
  await side.addMerchant(MERCHANT)
  dir = mkdtempSync(join(tmpdir(), 'chainpay-refunds-distributed-'))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))

  // payment-command: its event store, the relay to the bus, the projection into MongoDB
  const mongo: MongoDatabase = await openMongoDatabase({
    url: testMongoDbUrl(),
    database: uniqueName('refunds'),
  })
  cleanups.push(async () => {
    await mongo.db.dropDatabase()
    await mongo.close()
  })
  await migrateMongoDatabase(mongo.db)
  readModel = createMongoPaymentReadModel(mongo.db)
  receivedNet = createMongoReceivedNetTotals(mongo.db)
  outgoingReadModel = createMongoOutgoingReadModel(mongo.db)
  const bus = createSqliteBus(side.db, { logger, pollIntervalMs: 20 })
  const relay = createEventRelay({
    eventStore: side.eventStore,
    bus,
    checkpoints: createSqliteCheckpointStore(side.db),
    logger,
    pollIntervalMs: 20,
  })
  const projection = createProjectionService({ bus, readModel, receivedNet, logger })
  const outgoingProjection = createOutgoingProjection({ bus, readModel: outgoingReadModel, logger })
  await relay.start()
  await projection.start()
  await outgoingProjection.start()
  cleanups.push(async () => {
    await outgoingProjection.stop()
    await projection.stop()
    await relay.stop()
    await bus.close()
  })
  const outgoing = createOutgoingCommandHandler({
    eventStore: side.eventStore,
    receivedNet,
    merchants: side.merchants,
    registry: defaultAssetRegistry,
    clock: systemClock,
    logger,
  })
  const commandApi = buildCommandApi({ handler: side.handler, outgoing, logger })
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
    balances: { commands, readModel, registry: defaultAssetRegistry },
    outgoing: commands,
    outgoingReadModel,
    outgoingReading: createOutgoingReading({
      readModel: outgoingReadModel,
      commands,
      clock: systemClock,
    }),
  })
  adminUrl = await admin.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(() => admin.close())

  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 20 }] })
  cleanups.push(() => node.close())
  await node.simulator.start()
  connection = new Connection(node.solanaUrl(NETWORK), 'confirmed')
  const owner = treasury.publicKey.toBase58()
  await node.simulator.submitTransfer(NETWORK, { to: owner, amount: '2', currency: 'SOL' })
  // as a wallet sends it: into the treasury's associated token account, opened
  await node.simulator.submitTransfer(
    NETWORK,
    { to: owner, amount: '30', currency: 'USDC' },
    { asWallet: true },
  )
})

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** a USDC payment of the merchant paid `amount` and final, once the projection put it in MongoDB */
async function paidPayment(amount: string): Promise<string> {
  const { payment } = await side.handler.createPayment({
    merchantId: MERCHANT,
    request: { amount, currency: 'USDC', network: NETWORK },
  })
  const { paymentId } = payment.created
  await payFinallyOn(side)(payment, toUnits(amount, payment.created.decimals).toString())
  const paid = await side.handler.getPayment({ merchantId: MERCHANT, paymentId })
  await vi.waitFor(async () => expect((await readModel.get(paymentId))?.revision).toBe(paid?.revision), {
    timeout: 10_000,
    interval: 20,
  })
  // and counted into the merchant's received net, which a create reads
  await vi.waitFor(async () => expect(await receivedNet.countedOf(paymentId)).toBeGreaterThan(0n), {
    timeout: 10_000,
    interval: 20,
  })
  return paymentId
}

/** a refund's idempotency key: one per create, unique in the run */
let keys = 0
async function refund(paymentId: string, amount: string, address = newOwner()): Promise<string> {
  keys += 1
  const created = await commands.createRefund({
    merchantId: MERCHANT,
    paymentId,
    request: { amount, address, idempotencyKey: `refund-${keys}` },
  })
  return (await projected(created)).item.id
}

/** a command made here, not through the admin API: once the projection put it in the read model */
async function projected(snapshot: OutgoingSnapshot): Promise<OutgoingSnapshot> {
  const { kind, id } = snapshot.item
  await vi.waitFor(
    async () =>
      expect((await outgoingReadModel.get(kind, id))?.revision).toBeGreaterThanOrEqual(snapshot.revision),
    { timeout: 10_000, interval: 20 },
  )
  return snapshot
}

const newOwner = () => Keypair.generate().publicKey.toBase58()

async function item(kind: OutgoingKind, id: string) {
  const snapshot = await commands.getOutgoing({ kind, id })
  if (snapshot === null) throw new Error(`${kind} ${id} is unknown`)
  return snapshot.item
}

async function wallet(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet([...argv, '--url', adminUrl], {
    env: { CHAINPAY_ADMIN_TOKEN: ADMIN_TOKEN },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: () => Promise.reject(new Error('no prompt')),
    now: () => new Date(),
  })
  return { code, out, err }
}

/** plan with the command, then sign the plan file with the treasury's key */
async function planAndSign(name: string) {
  const planPath = join(dir, `${name}.plan.json`)
  const signedPath = join(dir, `${name}.signed.json`)
  const planned = await wallet([
    'plan',
    '--network',
    NETWORK,
    '--treasury',
    treasury.publicKey.toBase58(),
    '--treasury-external',
    '--rpc-url',
    node.solanaUrl(NETWORK),
    '--out',
    planPath,
  ])
  expect(planned.err).toEqual([])
  const { plan, sha256 } = readPlanFile(planPath)
  const signed: SignedSweep = signPlan({
    plan,
    planSha256: sha256,
    mnemonic: TEST_MNEMONIC,
    treasuryKey: { chain: 'SOLANA', secretKey: treasury.secretKey },
  })
  writeJsonFile(signedPath, signed)
  return { plan, signed, planPath, signedPath }
}

const broadcast = (signedPath: string) =>
  wallet([
    'broadcast',
    '--signed',
    signedPath,
    '--rpc-url',
    node.solanaUrl(NETWORK),
    '--poll-ms',
    '20',
    '--max-polls',
    '500',
  ])

async function usdcOf(owner: string): Promise<string | undefined> {
  const account = new PublicKey(associatedTokenAccount(owner, USDC))
  if ((await connection.getAccountInfo(account)) === null) return undefined
  return (await connection.getTokenAccountBalance(account)).value.amount
}

describe('refunds and payouts through plan, sign and broadcast, distributed', () => {
  it('a refund and a payout recorded sent, then completed with their fees, through the command API; one canceled before the plan is left out, one released after it is never sent; a second broadcast records nothing; an abandoned plan released', async () => {
    const paymentId = await paidPayment('10')
    const refundTo = newOwner()
    const refundId = await refund(paymentId, '4', refundTo)
    const canceled = await refund(paymentId, '1')
    await projected(await commands.cancelOutgoing({ merchantId: MERCHANT, kind: 'refund', id: canceled }))
    const released = await refund(paymentId, '2')
    const payoutTo = newOwner()
    const { item: payout } = await projected(
      await commands.createPayout({
        merchantId: MERCHANT,
        request: {
          network: NETWORK,
          currency: 'USDC',
          amount: '3',
          address: payoutTo,
          idempotencyKey: 'payout-1',
        },
      }),
    )

    const { plan, signed, signedPath } = await planAndSign('paid')
    expect(plan.outgoing?.map((planned) => [planned.kind, planned.id])).toEqual([
      ['refund', refundId],
      ['refund', released],
      ['payout', payout.id],
    ])
    expect((await item('refund', refundId)).status).toBe('sending')
    expect((await item('refund', canceled)).status).toBe('canceled')
    // the operator decides the plan will not pay that one
    await createAdminApi(adminUrl, ADMIN_TOKEN).release(
      { kind: 'refund', id: released },
      plan.planId as string,
    )

    const run = await broadcast(signedPath)
    expect(run.code).toBe(1)
    expect(run.err).toEqual([
      expect.stringMatching(
        new RegExp(`^error: refund ${released} is no longer sending in plan ${plan.planId}`),
      ),
    ])
    expect(await usdcOf(refundTo)).toBe('4000000')
    expect(await usdcOf(payoutTo)).toBe('3000000')
    const paid = await item('refund', refundId)
    expect(paid).toMatchObject({
      status: 'completed',
      txHash: signed.steps.find((step) => step.id === `pay:refund:${refundId}`)?.txId,
      // the fee and the rent of the recipient's new token account
      networkFee: { currency: 'SOL', amountUnits: '2044280' },
    })
    expect((await item('payout', payout.id)).status).toBe('completed')
    expect((await item('refund', released)).status).toBe('ready')

    // run again: nothing sent, nothing recorded twice
    const again = await broadcast(signedPath)
    expect(again.err).toEqual([
      expect.stringMatching(new RegExp(`^error: refund ${released} is no longer sending`)),
    ])
    expect(await usdcOf(refundTo)).toBe('4000000')
    const history = await commands.getRefundHistory({ merchantId: MERCHANT, paymentId })
    expect(history.filter((entry) => entry.data.refundId === refundId).map((entry) => entry.type)).toEqual([
      'RefundCreated',
      'RefundPlanned',
      'RefundSent',
      'RefundCompleted',
    ])

    // a plan that will never be broadcast: `release` gives its items back
    const abandoned = await planAndSign('abandoned')
    expect(abandoned.plan.outgoing?.map((planned) => planned.id)).toEqual([released])
    expect((await item('refund', released)).status).toBe('sending')
    const given = await wallet(['release', '--plan', abandoned.planPath])
    expect(given).toMatchObject({
      code: 0,
      err: [],
      out: [`released refund ${released}: ready again, for the next plan`],
    })
    expect((await item('refund', released)).status).toBe('ready')
    await projected(await commands.cancelOutgoing({ merchantId: MERCHANT, kind: 'refund', id: released }))
  })

  it("a refund whose transaction fails on chain (the treasury's USDC spent by another of its transactions landing ahead) is failed, with the node's error, and the payment's rest is refundable again", async () => {
    const paymentId = await paidPayment('10')
    const refundTo = newOwner()
    const refundId = await refund(paymentId, '9', refundTo)
    const { signed, signedPath } = await planAndSign('fails')
    const txId = signed.steps.find((step) => step.id === `pay:refund:${refundId}`)?.txId as string
    // while it is in the plan, the payment's rest is 1
    await expect(refund(paymentId, '1.5')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: "amount: exceeds the payment's refundable rest of 1 USDC",
    })

    // the treasury's key signs elsewhere too: all its USDC leaves just ahead of the refund, after the
    // preflight of the refund's transaction passed
    const treasuryAccount = associatedTokenAccount(treasury.publicKey.toBase58(), USDC)
    const held = await node.simulator.balanceOf(NETWORK, treasuryAccount, USDC)
    await node.simulator.submitTransfer(
      NETWORK,
      {
        from: treasuryAccount,
        to: associatedTokenAccount(newOwner(), USDC),
        amount: formatUnits(held, 6),
        currency: 'USDC',
      },
      { landsAheadOf: txId },
    )
    const run = await broadcast(signedPath)
    expect(run.err).toEqual([
      `error: step pay:refund:${refundId} (${txId}) failed on chain: {"InstructionError":[1,{"Custom":1}]}. Plan again, sign and broadcast the new plan: it sees what moved.`,
    ])
    expect(await item('refund', refundId)).toMatchObject({
      status: 'failed',
      txHash: txId,
      failureReason: 'failed on chain: {"InstructionError":[1,{"Custom":1}]}',
    })
    expect(await usdcOf(refundTo)).toBeUndefined()
    // recorded: a run again sends nothing and records nothing
    const again = await broadcast(signedPath)
    expect(again).toMatchObject({ code: 0, err: [] })
    expect(await commands.getRefundHistory({ merchantId: MERCHANT, paymentId })).toEqual([
      expect.objectContaining({ type: 'RefundCreated' }),
      expect.objectContaining({ type: 'RefundPlanned' }),
      expect.objectContaining({ type: 'RefundSent' }),
      expect.objectContaining({ type: 'RefundFailed' }),
    ])
    // the 9 are refundable again
    const another = await refund(paymentId, '9')
    expect((await item('refund', another)).status).toBe('ready')
    await projected(await commands.cancelOutgoing({ merchantId: MERCHANT, kind: 'refund', id: another }))
  })
})

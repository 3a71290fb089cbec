// Deposits in the distributed shape (decisions.md section 22; docs/api.md, "Deposits"): the five
// deployables' own contexts in this process (testing/distributed-in-process.ts) on the run's Kafka
// and FerretDB. The gateway creates the deposit address through the command API; the relay carries
// DepositAddressCreated over Kafka to the chain-indexer, which watches the address in its MongoDB
// store and reports a transfer to it on the simulated TRON as a deposit observation; payment-command
// records the deposit in its event store; the relay publishes it; the projection folds it into the
// deposits' read model and the merchants' received net on MongoDB; the notifier delivers its
// webhooks. deposits.int proves the same in standalone, with the same expected values.

import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { depositIdOf, formatUnits, toDepositStreamId } from '@chainpay/domain'
import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { Chainpay, isDepositWebhookEvent, verifyWebhook } from '@chainpay/sdk'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { type MongoDatabase, openMongoDatabase } from '@chainpay/store-mongo'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type InProcessDistributed, startInProcessDistributed } from './testing/distributed-in-process.js'

let distributed: InProcessDistributed
let chainpay: Chainpay
let events: DatabaseSync
let mongo: MongoDatabase
let receiver: WebhookReceiver
/** how far the chains' time (the chain-indexer's clock) is ahead of the system's */
let chainTimeAheadMs = 0

beforeAll(async () => {
  const name = uniqueName('deposits')
  distributed = await startInProcessDistributed({
    kafkaBrokers: testKafkaBrokers().join(','),
    mongodbUrl: testMongoDbUrl(),
    name,
    chainClock: { now: () => new Date(Date.now() + chainTimeAheadMs) },
    networks: ['TRON', 'SOLANA'],
    // Solana by address checks deposit addresses every second here, not every ten minutes
    chainIndexerEnv: { SOLANA_DEPOSIT_CHECK_INTERVAL_MS: '1000' },
  })
  const merchant = await distributed.createMerchant('Deposits, distributed')
  chainpay = new Chainpay({
    baseUrl: distributed.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
  receiver = await startWebhookReceiver()
  // payment-command's embedded event store, read beside it
  events = new DatabaseSync(join(distributed.paymentCommandDataDir, 'chainpay.sqlite'), { readOnly: true })
  mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: distributed.mongodbDatabase })
}, 120_000)

afterAll(async () => {
  events?.close()
  await distributed?.stop()
  await mongo?.db.dropDatabase()
  await mongo?.close()
  await receiver?.close()
})

// the services' logs tell what went wrong where: shown with a failure
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    process.stderr.write(`--- the services logged:\n${distributed.output().slice(-30_000)}\n`)
  })
})

/** the types of the deposit's events in payment-command's event store and the first one's data */
function depositOf(
  txHash: string,
  network = 'TRON',
): { types: string[]; detected: Record<string, unknown> | undefined } {
  const rows = events
    .prepare('SELECT type, data FROM es_events WHERE stream_id = ? ORDER BY revision')
    .all(toDepositStreamId(depositIdOf(network, txHash, 0))) as Array<{ type: string; data: string }>
  const first = rows[0]
  return {
    types: rows.map((row) => row.type),
    detected: first === undefined ? undefined : (JSON.parse(first.data) as Record<string, unknown>),
  }
}

/** the chain-indexer learned of the address over Kafka and watches it (its store on MongoDB) */
async function watched(address: string, network = 'TRON'): Promise<void> {
  const collection = mongo.db.collection('deposit_addresses_watched')
  const found = await until(
    async () => (await collection.countDocuments({ network, address })) > 0,
    (yes) => yes,
  )
  expect(found).toBe(true)
}

/** a customer's transfer on the simulated chain, through the gateway's /dev/chains/* */
async function transfer(to: string, amount: string, network = 'TRON', currency = 'USDT'): Promise<string> {
  const response = await fetch(`${distributed.baseUrl}/dev/chains/${network}/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, amount, currency }),
  })
  const body = (await response.json()) as { txHash: string }
  if (response.status !== 201) throw new Error(`transfer refused: ${response.status} ${JSON.stringify(body)}`)
  return body.txHash
}

async function until<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('deposits at customers’ deposit addresses, distributed', () => {
  it('an arrival with no open payment is a deposit, detected with fee and net, then confirmed; its webhooks signed; its net counted once in the balances', {
    timeout: 90_000,
  }, async () => {
    const user = `depositor-${Date.now()}`
    const endpoint = await chainpay.webhookEndpoints.create({ url: receiver.url })
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    await watched(address)
    const txHash = await transfer(address, '12.5')

    const deposit = await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositConfirmed'),
    )
    expect(deposit.types[0]).toBe('DepositDetected')
    expect(deposit.types.at(-1)).toBe('DepositConfirmed')
    expect(deposit.detected).toMatchObject({
      merchantUserId: user,
      address,
      currency: 'USDT',
      amountUnits: '12500000',
    })
    const units = (field: string) => BigInt(String(deposit.detected?.[field]))
    expect(units('feeUnits') + units('netUnits')).toBe(units('amountUnits'))

    // GET /deposits, from the read model the projection fills on MongoDB
    const depositId = depositIdOf('TRON', txHash, 0)
    const listed = await until(
      () => chainpay.deposits.list({ merchantUserId: user, status: 'confirmed' }),
      (page) => page.data.length > 0,
    )
    expect(listed).toEqual({
      data: [
        expect.objectContaining({
          depositId,
          merchantUserId: user,
          network: 'TRON',
          currency: 'USDT',
          address,
          txHash,
          amount: '12.5',
          status: 'confirmed',
          confirmations: 20,
          dropReason: null,
        }),
      ],
      nextCursor: null,
    })
    const [shown] = listed.data
    expect(shown?.fee).toBe(formatUnits(units('feeUnits'), 6))
    expect(shown?.net).toBe(formatUnits(units('netUnits'), 6))
    expect((await chainpay.deposits.list({ merchantUserId: user, status: 'dropped' })).data).toEqual([])
    // GET /balances through the command API: the confirmed deposit's net, once (the only money here)
    expect(await chainpay.balances.list()).toMatchObject([
      { network: 'TRON', currency: 'USDT', receivedNetAmount: shown?.net, availableAmount: shown?.net },
    ])

    // the merchant hears of it twice, detected then confirmed, signed with the endpoint's secret
    const ofDeposit = (all: WebhookReceiver['received']) =>
      all.filter((webhook) => (webhook.body as { deposit?: { id: string } }).deposit?.id === depositId)
    const received = ofDeposit(await receiver.waitFor((all) => ofDeposit(all).length >= 2, 20_000))
    const verified = await Promise.all(
      received.map((webhook) =>
        verifyWebhook({ rawBody: webhook.rawBody, headers: webhook.headers, secret: endpoint.secret }),
      ),
    )
    const common = {
      id: depositId,
      merchant_user_id: user,
      network: 'TRON',
      currency: 'USDT',
      address,
      tx_hash: txHash,
      amount: '12.5',
      fee_amount: shown?.fee,
      net_amount: shown?.net,
    }
    expect(verified.every((event) => isDepositWebhookEvent(event))).toBe(true)
    expect(verified).toMatchObject([
      { event: 'deposit.detected', deposit: { ...common, status: 'DETECTED', confirmed_at: null } },
      { event: 'deposit.confirmed', deposit: { ...common, status: 'CONFIRMED', confirmations: 20 } },
    ])
  })

  it('on Solana by address, SOL sent to the deposit address is a deposit, detected then confirmed, its accounts followed on MongoDB', {
    timeout: 90_000,
  }, async () => {
    const user = `solana-${Date.now()}`
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'SOLANA' })
    await watched(address, 'SOLANA')
    const txHash = await transfer(address, '0.75', 'SOLANA', 'SOL')
    const deposit = await until(
      () => depositOf(txHash, 'SOLANA'),
      (read) => read.types.includes('DepositConfirmed'),
    )
    expect(deposit.types[0]).toBe('DepositDetected')
    expect(deposit.types.at(-1)).toBe('DepositConfirmed')
    expect(deposit.detected).toMatchObject({
      merchantUserId: user,
      address,
      currency: 'SOL',
      amountUnits: '750000000',
    })
    // the owner's balance and last signature, kept so that a restart neither reports it again nor misses
    const followed = await mongo.db
      .collection('account_signatures')
      .findOne({ network: 'SOLANA', account: address })
    expect(followed).toMatchObject({ owner: address, signature: txHash })
  })

  it('a deposit the chain drops before finality is in doubt, then dropped, and counts in no balance', {
    timeout: 90_000,
  }, async () => {
    const user = `forked-${Date.now()}`
    const { address } = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    await watched(address)
    const balancesBefore = await chainpay.balances.list()
    const txHash = await transfer(address, '4')
    await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositDetected'),
    )
    const dropped = await fetch(`${distributed.baseUrl}/dev/chains/TRON/transactions/${txHash}/drop`, {
      method: 'POST',
    })
    expect(dropped.status).toBe(200)
    expect(
      (
        await until(
          () => depositOf(txHash),
          (read) => read.types.includes('DepositInDoubt'),
        )
      ).types.at(-1),
    ).toBe('DepositInDoubt')

    // read over RPC as a real node is (tronweb), the chain could include it again until it expires,
    // 60 s after it was signed (docs/chains.md, "Forks"): past the blocks that would confirm it, it is
    // still in doubt
    const head = async () => {
      const response = await fetch(`${distributed.baseUrl}/dev/chains/TRON/head`)
      return ((await response.json()) as { height: number }).height
    }
    const doubtedAt = await head()
    await until(head, (height) => height > doubtedAt + 30)
    expect(depositOf(txHash).types.at(-1)).toBe('DepositInDoubt')
    // the chains' time past its expiration: dropped
    chainTimeAheadMs = 61_000
    const deposit = await until(
      () => depositOf(txHash),
      (read) => read.types.includes('DepositDropped'),
    )
    expect(deposit.types[0]).toBe('DepositDetected')
    expect(deposit.types.slice(-2)).toEqual(['DepositInDoubt', 'DepositDropped'])
    expect(deposit.types).not.toContain('DepositConfirmed')
    const listed = await until(
      () => chainpay.deposits.list({ merchantUserId: user }),
      (page) => page.data[0]?.status === 'dropped',
    )
    expect(listed.data).toMatchObject([
      { txHash, status: 'dropped', dropReason: 'EXPIRED', confirmedAt: null },
    ])
    expect(await chainpay.balances.list()).toEqual(balancesBefore)
  })
})

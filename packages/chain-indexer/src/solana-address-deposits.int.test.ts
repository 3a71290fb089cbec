// Customers' deposit addresses in SOLANA_WATCH_MODE=address (decisions.md section 22; docs/chains.md,
// "Customers' deposit addresses"): followed for as long as they exist by batched checks of their
// accounts, never one by one. Through @solana/web3.js against the simulator served over HTTP and its
// websocket, paid the way wallets pay; costs are counted in JSON-RPC calls, time is the test's clock.

import { simulatedAddress, simulatedWalletAddress } from '@chainpay/chain-sim'
import { solanaWallet } from '@chainpay/chain-sim/testing'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { associatedTokenAccount } from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_DEPOSIT_CHECK_INTERVAL_MS, type SolanaAddressIndexer } from './solana-address-indexer.js'
import { FINALITY_OVERDUE_MS } from './solana-transfer-follower.js'
import {
  type AddressIndexerRig,
  addressIndexerRig,
  FINALITY_DEPTH,
  MINUTE_MS,
} from './testing/address-indexer.js'
import {
  createIndexerHarness,
  depositAddressCreated,
  depositsAt,
  type IndexerHarness,
  paymentCreated,
  testLogger,
} from './testing/index.js'

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

let harness: IndexerHarness
let rig: AddressIndexerRig
const clock = { ms: 0 }

beforeEach(async () => {
  clock.ms = Date.parse('2030-01-01T00:00:00.000Z')
  harness = await createIndexerHarness({ clock: () => new Date(clock.ms) })
  rig = await addressIndexerRig(harness, clock)
  await harness.sim.mineBlocks('SOLANA', 1)
})

afterEach(async () => {
  await rig.stop()
  await harness.close()
})

/** the test clock's time, ISO 8601 */
const now = () => new Date(clock.ms).toISOString()

const depositsTo = async (address: string) => depositsAt(await harness.observations.settle(), address)

/** [txHash, transferIndex, currency, amountUnits, status, final] of each deposit observation */
const trail = async (address: string) =>
  (await depositsTo(address)).map((o) => [o.txHash, o.currency, o.amountUnits, o.status, o.final])

/** a deposit address created for `merchantUserId`, read by the indexer and checked once */
async function depositAddress(indexer: SolanaAddressIndexer, merchantUserId: string): Promise<string> {
  const created = depositAddressCreated('SOLANA', merchantUserId, undefined, now())
  await indexer.handleDepositEvent(created.message)
  await indexer.scanOnce()
  return created.address
}

/** runs the indexer until the deposits' transactions are final and reported so */
async function untilFinal(indexer: SolanaAddressIndexer, address: string, count: number): Promise<void> {
  await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
  await vi.waitFor(
    async () => {
      // web3.js drops a finality notification right after its subscription's answer: the overdue
      // status check covers that
      await rig.runFor(indexer, 5_000)
      expect((await depositsTo(address)).filter((o) => o.final)).toHaveLength(count)
    },
    { timeout: 15_000, interval: 50 },
  )
}

describe('deposit addresses watched by address (decisions 22, docs/chains.md)', () => {
  it('finds SOL to the owner and USDC into the token account the wallet creates, in one transaction, at the next deposit check, and counts them to final; a counterfeit token is nothing', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    rig.resetCalls()
    const address = await depositAddress(indexer, 'user:42')
    // the new address's accounts (the owner, its associated token account of USDC and USDT) at once
    expect(rig.calls).toEqual(['getMultipleAccounts'])
    expect(indexer.watcher.depositCounts).toEqual({ addresses: 1, accounts: 3 })
    // no subscription for a deposit address
    expect(rig.node.solanaPubsub.subscriptionCount()).toBe(0)

    const wallet = await solanaWallet(rig.node, 'SOLANA')
    const { txHash: both } = await wallet.pay([
      { to: address, amount: '1.5', currency: 'SOL' },
      { to: address, amount: '25', currency: 'USDC' },
    ])
    const { txHash: usdt } = await wallet.pay({ to: address, amount: '4', currency: 'USDT' })
    // a token outside the registry, into the owner's associated account of it: nobody's funds
    await harness.sim.submitTransfer('SOLANA', {
      to: address,
      amount: '5',
      currency: 'USDC',
      contract: simulatedAddress('SOLANA'),
    })
    await harness.sim.mineBlocks('SOLANA', 1)

    rig.resetCalls()
    await rig.runFor(indexer, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS - MINUTE_MS)
    expect(rig.count('getMultipleAccounts')).toBe(0)
    expect(await depositsTo(address)).toEqual([])

    await rig.runFor(indexer, MINUTE_MS)
    // the check, then the three changed accounts listed and the three transactions that name them
    // read, once each (the counterfeit's names the owner of the token account it opens)
    expect(rig.count('getMultipleAccounts')).toBe(1)
    expect(rig.count('getSignaturesForAddress')).toBe(3)
    expect(rig.count('getTransaction')).toBe(3)
    expect(await trail(address)).toEqual(
      expect.arrayContaining([
        [both, 'SOL', '1500000000', 'seen', false],
        [both, 'USDC', '25000000', 'seen', false],
        [usdt, 'USDT', '4000000', 'seen', false],
      ]),
    )
    expect(await depositsTo(address)).toHaveLength(3)
    expect((await depositsTo(address))[0]).toMatchObject({
      kind: 'deposit',
      network: 'SOLANA',
      merchantId: 'mer_shop',
      merchantUserId: 'user:42',
      address,
      confirmations: 1,
      requiredConfirmations: 32,
      dropReason: null,
    })

    await untilFinal(indexer, address, 3)
    expect(
      (await depositsTo(address)).filter((o) => o.final).map((o) => [o.txHash, o.currency, o.amountUnits]),
    ).toEqual(
      expect.arrayContaining([
        [both, 'SOL', '1500000000'],
        [both, 'USDC', '25000000'],
        [usdt, 'USDT', '4000000'],
      ]),
    )
    // the rent the wallet paid into the new token account, and the counterfeit: nobody's funds
    const others = (await harness.observations.settle()).filter(
      (o) => o.kind === 'transfer' || o.kind === 'foreign_funds',
    )
    expect(others).toEqual([])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('leaves an open USDC payment on the address its USDC; USDT paid there with it is a deposit', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const address = await depositAddress(indexer, 'bob')
    const payment = paymentCreated({
      network: 'SOLANA',
      currency: 'USDC',
      address,
      createdAt: new Date(clock.ms).toISOString(),
      expiresAt: new Date(clock.ms + 60 * MINUTE_MS).toISOString(),
    })
    await indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()

    const wallet = await solanaWallet(rig.node, 'SOLANA')
    const { txHash } = await wallet.pay([
      { to: address, amount: '10', currency: 'USDC' },
      { to: address, amount: '3', currency: 'USDT' },
    ])
    await harness.sim.mineBlocks('SOLANA', 1)
    // the open payment's subscriptions hear it at once
    await vi.waitFor(
      async () => {
        await indexer.scanOnce()
        expect((await harness.observations.transfersOf(payment.paymentId)).map((o) => o.txHash)).toEqual([
          txHash,
        ])
      },
      { timeout: 10_000, interval: 50 },
    )
    await untilFinal(indexer, address, 1)
    expect((await depositsTo(address)).map((o) => [o.txHash, o.currency, o.amountUnits, o.final])).toEqual([
      [txHash, 'USDT', '3000000', false],
      [txHash, 'USDT', '3000000', true],
    ])
    const foreign = (await harness.observations.settle()).filter((o) => o.kind === 'foreign_funds')
    expect(foreign).toEqual([])
  })

  it('reports a deposit a fork takes back as in doubt, then dropped once its blockhash expired', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const address = await depositAddress(indexer, 'carol')
    const { txHash } = await rig.pay(address, '2', 'SOL').then((hash) => ({ txHash: hash }))
    await rig.runFor(indexer, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
    const slot = (await harness.sim.transactionHeight('SOLANA', txHash)) as number
    expect(await trail(address)).toEqual([[txHash, 'SOL', '2000000000', 'seen', false]])

    expect(await harness.sim.dropTransaction('SOLANA', txHash)).toBe(true)
    await rig.runFor(indexer, FINALITY_OVERDUE_MS)
    expect((await depositsTo(address)).map((o) => o.status)).toEqual(['seen', 'in_doubt'])
    // the chain time is past its blockhash's expiry only once a later block says so
    await rig.runFor(indexer, 2 * MINUTE_MS)
    await harness.sim.mineBlocks('SOLANA', 1)
    await rig.runFor(indexer, 10_000)
    expect((await depositsTo(address)).map((o) => [o.status, o.dropReason, o.blockHeight])).toEqual([
      ['seen', null, slot],
      ['in_doubt', null, slot],
      ['dropped', 'EXPIRED', slot],
    ])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('after a restart, checks every deposit address at once: what came while it was down is found, nothing is reported twice', async () => {
    const first = rig.indexer()
    await first.scanOnce()
    const address = await depositAddress(first, 'dave')
    const before = await rig.pay(address, '1', 'SOL')
    await rig.runFor(first, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
    await untilFinal(first, address, 1)
    await rig.stop()

    // paid while no indexer ran
    const during = await rig.payToken(address, associatedTokenAccount(address, USDC), '7', 'USDC')
    const db = harness.reopen()
    const restarted = rig.indexer({
      store: createSqliteChainIndexerStore(db),
      bus: createSqliteBus(db, { logger: testLogger }),
    })
    rig.resetCalls()
    await restarted.scanOnce()
    expect(restarted.depositWatch.size).toBe(1)
    expect(rig.count('getMultipleAccounts')).toBe(1)
    // only the token account that changed is listed, from nothing (it did not exist), and read
    expect(rig.count('getSignaturesForAddress')).toBe(1)
    expect(rig.count('getTransaction')).toBe(1)
    await untilFinal(restarted, address, 2)
    expect((await depositsTo(address)).map((o) => [o.txHash, o.final])).toEqual([
      [before, false],
      [before, true],
      [during, false],
      [during, true],
    ])
  })

  it('after a restart, a payment open on a deposit address is followed on all its accounts, whichever of them the store kept', async () => {
    const first = rig.indexer()
    await first.scanOnce()
    const address = await depositAddress(first, 'frank')
    // SOL to the owner: only the owner's account changed, only it is stored
    await rig.pay(address, '1', 'SOL')
    await rig.runFor(first, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
    const payment = paymentCreated({
      network: 'SOLANA',
      currency: 'USDC',
      address,
      createdAt: new Date(clock.ms).toISOString(),
      expiresAt: new Date(clock.ms + 60 * MINUTE_MS).toISOString(),
    })
    await first.handlePaymentEvent(payment.message)
    await first.scanOnce()
    expect(first.watcher.counts).toMatchObject({ open: 1, accounts: 3 })
    await rig.stop()

    const db = harness.reopen()
    const restarted = rig.indexer({
      store: createSqliteChainIndexerStore(db),
      bus: createSqliteBus(db, { logger: testLogger }),
    })
    await restarted.scanOnce()
    expect(restarted.watcher.counts).toMatchObject({ open: 1, accounts: 3 })
  })

  it('costs one call per 100 accounts per deposit check for 400 addresses, 1,000 accounts an iteration, and lists nothing while nothing changes', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const addresses = Array.from({ length: 400 }, () => simulatedWalletAddress('SOLANA'))
    rig.resetCalls()
    for (const [position, address] of addresses.entries()) {
      await indexer.handleDepositEvent(
        depositAddressCreated('SOLANA', `user:${position}`, address, now()).message,
      )
    }
    // the 400 new addresses, 1,200 accounts, checked at once: 1,000 accounts (10 calls), then the rest
    expect(indexer.depositWatch.size).toBe(400)
    await indexer.scanOnce()
    expect(rig.calls).toEqual(Array(10).fill('getMultipleAccounts'))
    expect(indexer.watcher.depositChecksPending).toBeGreaterThan(0)
    await indexer.scanOnce()
    expect(rig.calls).toEqual(Array(12).fill('getMultipleAccounts'))
    expect(indexer.watcher.depositChecksPending).toBe(0)
    expect(indexer.watcher.depositCounts).toEqual({ addresses: 400, accounts: 1200 })

    // half an hour at idle: 3 checks of 12 calls, and the chain time every ten minutes
    rig.resetCalls()
    for (let round = 0; round < 3; round++) {
      rig.advance(DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
      await indexer.scanOnce()
      await indexer.scanOnce()
    }
    expect(rig.count('getMultipleAccounts')).toBe(3 * 12)
    expect(rig.calls.filter((call) => call !== 'getMultipleAccounts').sort()).toEqual(
      [...Array(3).fill('getSlot'), ...Array(3).fill('getBlockTime')].sort(),
    )

    // one deposit of USDT: one more listing and one read at the next check
    const [paid] = addresses as [string]
    const txHash = await rig.payToken(paid, associatedTokenAccount(paid, USDT), '4', 'USDT')
    rig.resetCalls()
    await rig.runFor(indexer, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
    // the round's last 200 accounts
    await indexer.scanOnce()
    expect(rig.count('getMultipleAccounts')).toBe(12)
    expect(rig.count('getSignaturesForAddress')).toBe(1)
    expect(rig.count('getTransaction')).toBe(1)
    expect((await depositsTo(paid)).map((o) => [o.txHash, o.merchantUserId, o.amountUnits])).toEqual([
      [txHash, 'user:0', '4000000'],
    ])
  })

  it('finds what was paid to a new address before it was watched, since its creation, at its first check; what came before its creation is no deposit', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const address = simulatedWalletAddress('SOLANA')
    // the address held funds before it was a deposit address (a wallet's, imported)
    await rig.pay(address, '3', 'SOL')
    rig.advance(MINUTE_MS)
    const createdAt = now()
    rig.advance(1_000)
    // the customer pays before the indexer reads the address's event (the relay lags)
    const wallet = await solanaWallet(rig.node, 'SOLANA')
    const { txHash: early } = await wallet.pay([
      { to: address, amount: '1', currency: 'SOL' },
      { to: address, amount: '8', currency: 'USDC' },
    ])
    await harness.sim.mineBlocks('SOLANA', 1)
    rig.advance(MINUTE_MS)
    rig.resetCalls()
    await indexer.handleDepositEvent(depositAddressCreated('SOLANA', 'grace', address, createdAt).message)
    await indexer.scanOnce()
    // both changed accounts listed from their beginning, only the transaction since the creation read
    expect(rig.calls).toEqual([
      'getMultipleAccounts',
      'getSignaturesForAddress',
      'getSignaturesForAddress',
      'getTransaction',
    ])
    expect((await depositsTo(address)).map((o) => [o.txHash, o.currency, o.amountUnits])).toEqual(
      expect.arrayContaining([
        [early, 'SOL', '1000000000'],
        [early, 'USDC', '8000000'],
      ]),
    )
    expect(await depositsTo(address)).toHaveLength(2)
  })

  it('follows an address read more than a day after its creation (the first start of this version) from how it is then: its history is no deposit', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const address = simulatedWalletAddress('SOLANA')
    const createdAt = now()
    await rig.pay(address, '3', 'SOL')
    rig.advance(2 * 24 * 60 * MINUTE_MS)
    await indexer.scanOnce()
    rig.resetCalls()
    await indexer.handleDepositEvent(depositAddressCreated('SOLANA', 'erin', address, createdAt).message)
    await indexer.scanOnce()
    // its newest signature is where it is listed from; nothing is read
    expect(rig.calls).toEqual(['getMultipleAccounts', 'getSignaturesForAddress'])
    const later = await rig.pay(address, '1', 'SOL')
    await rig.runFor(indexer, DEFAULT_DEPOSIT_CHECK_INTERVAL_MS)
    expect((await depositsTo(address)).map((o) => [o.txHash, o.amountUnits])).toEqual([[later, '1000000000']])
  })
})

// SOLANA_WATCH_MODE=address end to end in the indexer: payment events in, observations out, through
// @solana/web3.js against the simulator served over HTTP and its websocket. Costs are counted in
// JSON-RPC calls, and time is the test's clock, never measured (docs/chains.md, "Solana by address").

import { simulatedAddress } from '@chainpay/chain-sim'
import { solanaWallet } from '@chainpay/chain-sim/testing'
import type { ForeignFundsObservation } from '@chainpay/contracts'
import { at } from '@chainpay/domain/testing'
import { associatedTokenAccount } from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_CHECK_INTERVAL_MS, STALE_OPEN_MS } from './solana-address-indexer.js'
import {
  type AddressIndexerRig,
  addressIndexerRig,
  FINALITY_DEPTH,
  HOUR_MS,
  ITERATION_MS,
  MINUTE_MS,
} from './testing/address-indexer.js'
import { createIndexerHarness, type IndexerHarness, paymentCreated } from './testing/index.js'

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

const foreignFundsOf = async (paymentId: string) =>
  (await harness.observations.settle()).filter(
    (message): message is ForeignFundsObservation =>
      message.kind === 'foreign_funds' && message.paymentId === paymentId,
  )

describe('the Solana address indexer through web3.js', () => {
  it('reports watching after one batched check, reads a payment on its notification, final by its subscription', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    rig.resetCalls()
    const payment = await rig.watched(indexer, 'SOL')
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(2))
    await indexer.scanOnce()
    // the new payment's accounts (its owner, the associated token account of each registry mint) in
    // one call, for what came before its subscriptions, and again once the websocket connected, with
    // the token accounts its owner has then (one opened while nobody listened); the node's first
    // available block, read at most every ten minutes whatever the new payments
    expect(rig.calls.sort()).toEqual(
      [
        'getBlockTime',
        'getFirstAvailableBlock',
        'getMultipleAccounts',
        'getMultipleAccounts',
        'getTokenAccountsByOwner',
      ].sort(),
    )
    const watching = (await harness.observations.settle()).filter((message) => message.kind === 'watching')
    expect(watching).toEqual([expect.objectContaining({ paymentId: payment.paymentId })])

    rig.resetCalls()
    await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS - MINUTE_MS)
    expect(rig.calls).toEqual([])

    const txHash = await rig.pay(payment.address, '10', 'SOL')
    await rig.notified(indexer)
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({
        txHash,
        confirmations: 1,
        final: false,
        status: 'seen',
        amountUnits: '10000000000',
      }),
    ])
    // its finality subscription made before the chain finalizes it (one made after hears at once,
    // in an answer web3.js may drop: the overdue status check covers that)
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(3))
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await rig.notified(indexer)
    await indexer.scanOnce()
    const trail = await harness.observations.transfersOf(payment.paymentId)
    expect(trail.map(({ confirmations, final }) => [confirmations, final])).toEqual([
      [1, false],
      [32, true],
    ])
    // the notification's listing and the read; finality came over the websocket
    expect(rig.calls).toEqual(['getSignaturesForAddress', 'getTransaction'])
  })

  it('finds a payment made before it was watched, by its first check, and retries a check that failed', async () => {
    const indexer = rig.indexer()
    await indexer.scanOnce()
    const payment = paymentBefore()
    const txHash = await rig.pay(payment.address, '2', 'SOL')
    rig.fault('getMultipleAccounts', 'unavailable')
    await indexer.handlePaymentEvent(payment.message)
    await expect(indexer.scanOnce()).rejects.toThrow()
    expect((await harness.observations.settle()).some((message) => message.kind === 'watching')).toBe(false)
    rig.fault('getMultipleAccounts', undefined)
    await indexer.scanOnce()
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash, amountUnits: '2000000000' }),
    ])
    expect(
      (await harness.observations.settle()).filter((message) => message.kind === 'watching'),
    ).toHaveLength(1)
  })

  it('finds a transfer made while the websocket was down, by the check on reconnect', async () => {
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'SOL')
    expect(rig.node.solanaPubsub.subscriptionCount()).toBeGreaterThan(0)
    expect(rig.node.solanaPubsub.dropConnections()).toBeGreaterThan(0)
    const txHash = await rig.pay(payment.address, '10', 'SOL')
    rig.resetCalls()
    // web3.js reconnects by itself; the reconnect has the open payments' accounts checked
    await vi.waitFor(
      async () => {
        await indexer.scanOnce()
        expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
          expect.objectContaining({ txHash, confirmations: 1 }),
        ])
      },
      { timeout: 10_000, interval: 50 },
    )
    expect(rig.count('getMultipleAccounts')).toBe(1)
    expect(rig.count('getTransaction')).toBe(1)
  })

  it('finds USDC paid into a token account opened for the owner while the websocket was down, on reconnect', async () => {
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'USDC')
    rig.node.solanaPubsub.refuseConnections(true)
    expect(rig.node.solanaPubsub.dropConnections()).toBeGreaterThan(0)
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(0))
    // opened by the payer for the owner (not its associated account) and paid, nobody listening
    const txHash = await rig.payToken(payment.address, simulatedAddress('SOLANA'), '10', 'USDC')
    await rig.runFor(indexer, 5_000)
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([])
    rig.node.solanaPubsub.refuseConnections(false)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, ITERATION_MS)
        expect(
          (await harness.observations.transfersOf(payment.paymentId)).map((item) => item.txHash),
        ).toEqual([txHash])
      },
      { timeout: 15_000, interval: 50 },
    )
  })

  it('counts USDC to the owner’s associated and to another token account of it; USDT and SOL to it are foreign funds (decisions 16, 19)', async () => {
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'USDC')
    const owner = payment.address
    const associated = await rig.payToken(owner, payment.tokenAccount as string, '6', 'USDC')
    // a token account of the owner that no wallet derives: heard of through the owner's token accounts
    const other = await harness.sim.openTokenAccount('SOLANA', { owner, currency: 'USDC' })
    const toOther = await rig.payToken(owner, other.address, '4', 'USDC')
    const usdt = await rig.payToken(owner, associatedTokenAccount(owner, USDT), '3', 'USDT')
    const sol = await rig.pay(owner, '0.5', 'SOL')
    await vi.waitFor(
      async () => {
        await indexer.scanOnce()
        expect(
          (await harness.observations.transfersOf(payment.paymentId)).map(({ txHash }) => txHash).sort(),
        ).toEqual([associated, toOther].sort())
      },
      { timeout: 10_000, interval: 50 },
    )
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await vi.waitFor(
      async () => {
        // web3.js drops a finality notification that comes right after its subscription's answer
        // (a transaction already final when it was read): the overdue check asks its status
        await rig.runFor(indexer, 5_000)
        const final = (await harness.observations.transfersOf(payment.paymentId)).filter((item) => item.final)
        expect(
          final
            .map(({ txHash, address, owner: by, amountUnits }) => [txHash, address, by, amountUnits])
            .sort(),
        ).toEqual(
          [
            [associated, payment.tokenAccount, owner, '6000000'],
            [toOther, other.address, owner, '4000000'],
          ].sort(),
        )
        const foreign = (await foreignFundsOf(payment.paymentId)).filter((item) => item.final)
        expect(
          foreign.map(({ txHash, currency, amountUnits }) => [txHash, currency, amountUnits]).sort(),
        ).toEqual(
          [
            [usdt, 'USDT', '3000000'],
            [sol, 'SOL', '500000000'],
          ].sort(),
        )
      },
      { timeout: 10_000, interval: 50 },
    )
  })

  it('counts USDC a wallet pays the owner as Phantom does, creating its token account: the rent is nobody’s SOL', async () => {
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'USDC')
    const wallet = await solanaWallet(rig.node, 'SOLANA')
    expect(wallet.associatedTokenAccount(payment.address, 'USDC')).toBe(payment.tokenAccount)
    const { txHash } = await wallet.pay({ to: payment.address, amount: '10', currency: 'USDC' })
    await harness.sim.mineBlocks('SOLANA', 1)
    await vi.waitFor(
      async () => {
        await indexer.scanOnce()
        expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
          expect.objectContaining({
            txHash,
            address: payment.tokenAccount,
            owner: payment.address,
            amountUnits: '10000000',
          }),
        ])
      },
      { timeout: 10_000, interval: 50 },
    )
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, 5_000)
        expect((await harness.observations.transfersOf(payment.paymentId)).at(-1)).toMatchObject({
          final: true,
        })
      },
      { timeout: 10_000, interval: 50 },
    )
    // the 0.00203928 SOL the wallet paid into the new token account: no foreign funds
    expect(await foreignFundsOf(payment.paymentId)).toEqual([])
  })

  it('reports nothing a treasury sends: a sweep’s top-up is no funds (TREASURY_ADDRESSES)', async () => {
    const treasury = simulatedAddress('SOLANA')
    const indexer = rig.indexer({ treasuries: new Set([treasury]) })
    const payment = await rig.watched(indexer, 'USDC')
    const { txHash: topUp } = await harness.sim.submitTransfer('SOLANA', {
      from: treasury,
      to: payment.address,
      amount: '0.01',
      currency: 'SOL',
    })
    const customer = await rig.pay(payment.address, '0.02', 'SOL')
    await harness.sim.mineBlocks('SOLANA', FINALITY_DEPTH + 1)
    await vi.waitFor(
      async () => {
        await rig.runFor(indexer, 5_000)
        expect(
          (await foreignFundsOf(payment.paymentId)).filter((item) => item.final).map(({ txHash }) => txHash),
        ).toEqual([customer])
      },
      { timeout: 10_000, interval: 50 },
    )
    expect(JSON.stringify(await harness.observations.settle())).not.toContain(topUp)
  })

  it('after a restart, lists each account from the last signature it saw and reads nothing again', async () => {
    const first = rig.indexer()
    const payment = await rig.watched(first, 'SOL')
    await rig.pay(payment.address, '10', 'SOL')
    await rig.notified(first)
    await first.scanOnce()
    await first.stop()

    rig.resetCalls()
    const restarted = rig.indexer()
    await restarted.scanOnce()
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBeGreaterThan(0))
    await restarted.scanOnce()
    // the check of every account and the chain time at start, the open payments' accounts on
    // connect, one listing of the owner that changed from the signature saved, and the status of
    // the transfer it still follows to finality, at start and on connect
    expect(rig.count('getTransaction')).toBe(0)
    expect(rig.count('getSignaturesForAddress')).toBe(1)
    expect(rig.count('getSignatureStatuses')).toBeLessThanOrEqual(2)
    expect(rig.count('getMultipleAccounts')).toBeLessThanOrEqual(3)
    expect(await harness.observations.transfersOf(payment.paymentId)).toHaveLength(1)
  })

  it('forgets, at start, the followed accounts of an owner no payment has (left by a crash while forgetting)', async () => {
    const orphan = {
      account: simulatedAddress('SOLANA'),
      owner: simulatedAddress('SOLANA'),
      lastSignature: null,
      state: '1',
    }
    await harness.store.saveFollowedAccount('SOLANA', orphan)
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'SOL')
    const followed = await harness.store.listFollowedAccounts('SOLANA')
    expect(followed.map(({ account }) => account)).not.toContain(orphan.account)
    expect(followed.map(({ owner }) => owner)).toContain(payment.address)
  })

  it('at a payment’s deadline, checks its accounts, then publishes the chain time that lets it expire', async () => {
    const indexer = rig.indexer()
    const expiresAtMs = rig.now() + 2 * HOUR_MS
    await rig.watched(indexer, 'SOL')
    await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS)
    rig.advance(expiresAtMs - rig.now())
    await harness.sim.mineBlocks('SOLANA', 1)
    rig.resetCalls()
    await indexer.scanOnce()
    expect(rig.calls).toEqual(['getSlot', 'getBlockTime', 'getMultipleAccounts'])
    const progress = (await harness.observations.settle()).flatMap((message) =>
      message.kind === 'progress' ? [Date.parse(message.blockTime)] : [],
    )
    expect(progress.at(-1)).toBeGreaterThanOrEqual(expiresAtMs)
  })
})

describe('cost bounded by open work (decisions 19)', () => {
  it('a final payment is no longer followed one by one: its subscriptions end, late funds are found by the batched check', async () => {
    const indexer = rig.indexer()
    const payment = await rig.watched(indexer, 'SOL')
    expect(rig.node.solanaPubsub.subscriptionCount()).toBe(2)
    await rig.emit(indexer, {
      type: 'PaymentExpired',
      data: { paymentId: payment.paymentId, expiredAt: at(30) },
    })
    await indexer.scanOnce()
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(0))

    const late = await rig.pay(payment.address, '1', 'SOL')
    rig.resetCalls()
    await rig.runFor(indexer, DEFAULT_CHECK_INTERVAL_MS - MINUTE_MS)
    expect(rig.calls).toEqual([])
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([])
    await rig.runFor(indexer, MINUTE_MS)
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([
      expect.objectContaining({ txHash: late, amountUnits: '1000000000' }),
    ])
    // the check of all accounts with its chain time, the changed owner listed, the late transfer read
    expect(rig.calls).toEqual([
      'getSlot',
      'getBlockTime',
      'getMultipleAccounts',
      'getSignaturesForAddress',
      'getTransaction',
    ])
  })

  it('ends the subscriptions of a payment whose closing event never came, an hour after its deadline', async () => {
    const indexer = rig.indexer()
    const expiresAtMs = rig.now() + 2 * HOUR_MS
    await rig.watched(indexer, 'SOL')
    expect(rig.node.solanaPubsub.subscriptionCount()).toBe(2)
    rig.advance(expiresAtMs + STALE_OPEN_MS - 2 * MINUTE_MS - rig.now())
    await rig.runFor(indexer, MINUTE_MS)
    expect(indexer.watcher.counts).toMatchObject({ open: 1, closed: 0 })
    await rig.runFor(indexer, 2 * MINUTE_MS)
    expect(indexer.watcher.counts).toMatchObject({ open: 0, closed: 1 })
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(0))
  })

  it('at idle costs one call per 100 followed accounts per ten minutes, with 5 open and 35 final payments', async () => {
    const indexer = rig.indexer()
    const payments = []
    for (let created = 0; created < 40; created++) {
      payments.push(await rig.watched(indexer, created % 2 === 0 ? 'SOL' : 'USDC'))
    }
    for (const payment of payments.slice(5)) {
      await rig.emit(indexer, {
        type: 'PaymentConfirmed',
        data: { paymentId: payment.paymentId, receivedUnits: '1', txHash: 'tx', confirmedAt: at(10) },
      })
    }
    await indexer.scanOnce()
    // the open ones only: 3 SOL payments (owner's logs and token accounts), 2 USDC ones (and their own token account's logs)
    await vi.waitFor(() => expect(rig.node.solanaPubsub.subscriptionCount()).toBe(3 * 2 + 2 * 3))
    expect(indexer.watcher.counts).toEqual({ open: 5, closed: 35, accounts: 40 * 3 })
    rig.resetCalls()
    await rig.runFor(indexer, HOUR_MS)
    // six checks of 120 accounts (2 calls each) with their chain time (2 calls each); nothing listed
    expect(rig.count('getMultipleAccounts')).toBe(6 * 2)
    expect(rig.calls.length).toBe(6 * 4)
  })
})

/** a SOL payment created now that the indexer has not been told of yet */
function paymentBefore() {
  return paymentCreated({
    network: 'SOLANA',
    currency: 'SOL',
    createdAt: new Date(clock.ms).toISOString(),
    expiresAt: new Date(clock.ms + 2 * HOUR_MS).toISOString(),
  })
}

import { simulatedAddress } from '@chainpay/chain-sim'
import { solanaWallet } from '@chainpay/chain-sim/testing'
import { createSolanaChainClient } from '@chainpay/chain-solana'
import type { ChainProgressObservation } from '@chainpay/contracts'
import { defaultAssetRegistry } from '@chainpay/domain'
import { createManualClock } from '@chainpay/platform'
import { type ChainClient, Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ChainIndexerMetrics } from './indexer.js'
import {
  createIndexerHarness,
  harnessIndexer,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
  servedIndexer,
  statusTrail,
  testLogger,
  watchedPayment,
} from './testing/indexer-harness.js'

const COUNTERFEIT_USDT = 'THk5qH79SoAaUnUh8JVdRarSESTZpqPjSQ'

let harness: IndexerHarness

beforeEach(async () => {
  harness = await createIndexerHarness()
})

afterEach(async () => {
  await harness.close()
})

function progressOf(observations: Awaited<ReturnType<IndexerHarness['observations']['settle']>>) {
  return observations.filter(
    (observation): observation is ChainProgressObservation => observation.kind === 'progress',
  )
}

describe('createChainIndexer', () => {
  it.each([
    { network: 'TRON', currency: 'TRX', required: 20 },
    { network: 'SOLANA', currency: 'SOL', required: 32 },
  ])(
    'reports a transfer on $network at every new confirmation up to $required, then stops',
    async ({ network, currency, required }) => {
      const indexer = harnessIndexer(harness, network)
      await indexer.scanOnce()
      const payment = await watchedPayment(indexer, currency)
      const { txHash } = await harness.sim.submitTransfer(network, {
        to: payment.address,
        amount: '10',
        currency,
      })

      for (let block = 0; block < required + 5; block++) await mineAndScan(harness, indexer)

      const observations = await harness.observations.transfersOf(payment.paymentId)
      expect(observations.map((observation) => observation.confirmations)).toEqual(
        Array.from({ length: required }, (_, index) => index + 1),
      )
      expect(observations.every((observation) => observation.status === 'seen')).toBe(true)
      expect(observations[0]).toMatchObject({
        network,
        txHash,
        transferIndex: 0,
        address: payment.address,
        amountUnits: network === 'TRON' ? '10000000' : '10000000000',
        dropReason: null,
      })
      expect(await harness.store.listTracked(network)).toEqual([])
    },
  )

  it('matches an SPL transfer to the token account; SOL to its owner is foreign funds (decisions 19)', async () => {
    const indexer = harnessIndexer(harness, 'SOLANA')
    await indexer.scanOnce()
    const payment = await watchedPayment(indexer, 'USDC')
    // a token balance on the owner's own (system) account cannot be on a real chain: nobody's
    const impossible = await harness.sim.submitTransfer('SOLANA', {
      to: payment.address,
      amount: '3',
      currency: 'USDC',
    })
    const account = await harness.sim.submitTransfer('SOLANA', {
      to: payment.tokenAccount ?? '',
      amount: '10',
      currency: 'USDC',
    })
    const sol = await harness.sim.submitTransfer('SOLANA', {
      to: payment.address,
      amount: '0.5',
      currency: 'SOL',
    })
    await mineAndScan(harness, indexer)

    const observations = await harness.observations.settle()
    const ofPayment = observations.filter(
      (observation) => 'paymentId' in observation && observation.paymentId === payment.paymentId,
    )
    expect(JSON.stringify(ofPayment)).not.toContain(impossible.txHash)
    expect(ofPayment.filter((observation) => observation.kind === 'transfer')).toEqual([
      expect.objectContaining({
        txHash: account.txHash,
        address: payment.tokenAccount,
        amountUnits: '10000000',
      }),
    ])
    expect(ofPayment.filter((observation) => observation.kind === 'foreign_funds')).toEqual([
      expect.objectContaining({
        txHash: sol.txHash,
        currency: 'SOL',
        amountUnits: '500000000',
        owner: payment.address,
      }),
    ])
  })

  describe('ignores transfers that do not pay the payment', () => {
    it.each([
      ['the native coin sent to a token payment', { currency: 'TRX' }],
      ['a counterfeit token contract', { currency: 'USDT', contract: COUNTERFEIT_USDT }],
      ['a failed transaction', { currency: 'USDT', fail: true }],
    ])('%s', async (_case, transfer) => {
      const indexer = harnessIndexer(harness, 'TRON')
      await indexer.scanOnce()
      const payment = await watchedPayment(indexer, 'USDT')
      await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', ...transfer })
      const genuine = await harness.sim.submitTransfer('TRON', {
        to: payment.address,
        amount: '1',
        currency: 'USDT',
      })
      await mineAndScan(harness, indexer, 2)

      const observations = await harness.observations.transfersOf(payment.paymentId)
      expect(observations.map((observation) => observation.txHash)).toEqual([genuine.txHash])
    })
  })

  it.each([
    ['through web3.js', true],
    ['in process', false],
  ])(
    'counts USDC a wallet pays the owner as Phantom does (%s): the rent of the token account it creates is nobody’s SOL',
    async (_client, overRpc) => {
      const indexer = await servedIndexer(harness, 'SOLANA', (node) =>
        overRpc
          ? createSolanaChainClient({
              network: 'SOLANA',
              registry: defaultAssetRegistry,
              rpcUrl: node.solanaUrl('SOLANA'),
            })
          : harness.sim.client('SOLANA'),
      )
      const payment = await watchedPayment(indexer, 'USDC')
      const wallet = await solanaWallet(await harness.serve(), 'SOLANA')
      const { txHash } = await wallet.pay({ to: payment.address, amount: '10', currency: 'USDC' })
      await mineAndScan(harness, indexer)
      const observations = (await harness.observations.settle()).filter(
        (observation) =>
          'paymentId' in observation &&
          observation.paymentId === payment.paymentId &&
          observation.kind !== 'watching',
      )
      expect(observations).toEqual([
        expect.objectContaining({
          kind: 'transfer',
          txHash,
          address: payment.tokenAccount,
          amountUnits: '10000000',
        }),
      ])
    },
  )

  it('reports nothing a treasury sends: a sweep’s TRX top-up to a USDT payment’s address is no foreign TRX (TREASURY_ADDRESSES)', async () => {
    const treasury = simulatedAddress('TRON')
    const indexer = harnessIndexer(harness, 'TRON', { treasuries: new Set([treasury]) })
    await indexer.scanOnce()
    const payment = await watchedPayment(indexer, 'USDT')
    const topUp = await harness.sim.submitTransfer('TRON', {
      from: treasury,
      to: payment.address,
      amount: '13.5',
      currency: 'TRX',
    })
    const customer = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '1',
      currency: 'TRX',
    })
    await mineAndScan(harness, indexer, 2)
    const observations = JSON.stringify(await harness.observations.settle())
    expect(observations).not.toContain(topUp.txHash)
    expect(observations).toContain(customer.txHash)
  })

  it('reports two transfers of one block', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const payment = await watchedPayment(indexer, 'USDT')
    const first = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '4',
      currency: 'USDT',
    })
    const second = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '6',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(
      observations.map(({ txHash, amountUnits, blockHeight }) => ({ txHash, amountUnits, blockHeight })),
    ).toEqual([
      { txHash: first.txHash, amountUnits: '4000000', blockHeight: observations[0]?.blockHeight },
      { txHash: second.txHash, amountUnits: '6000000', blockHeight: observations[0]?.blockHeight },
    ])
  })

  it('reports a dropped transaction as in doubt and keeps scanning the new fork', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const payment = await watchedPayment(indexer, 'USDT')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer, 2)

    expect(await harness.sim.dropTransaction('TRON', txHash)).toBe(true)
    await indexer.scanOnce()
    for (let block = 0; block < 3; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(statusTrail(observations)).toEqual([
      ['seen', 1, null],
      ['seen', 3, null],
      ['in_doubt', 3, null],
    ])
    // still looked for, in case the chain includes it again
    expect(await harness.store.listTracked('TRON')).toMatchObject([
      { txHash, withdrawnUntilHeight: expect.any(Number) },
    ])

    // the cursor sat on a block that left the chain: the indexer rewinds and still finds new transfers
    const later = await watchedPayment(indexer, 'USDT')
    const next = await harness.sim.submitTransfer('TRON', {
      to: later.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    expect((await harness.observations.transfersOf(later.paymentId)).map((o) => o.txHash)).toEqual([
      next.txHash,
    ])
    const head = await harness.sim.head('TRON')
    expect(await harness.store.loadCursor('TRON')).toEqual({ height: head.height, hash: head.hash })

    // never included again: dropped once its payment's requirement in blocks has passed
    await mineAndScan(harness, indexer, 20)
    expect(await harness.store.listTracked('TRON')).toEqual([])
    expect((await harness.observations.transfersOf(payment.paymentId)).at(-1)).toMatchObject({
      status: 'dropped',
      dropReason: 'EXPIRED',
    })
  })

  it('reports a tracked transfer that the chain now reports failed as dropped (REVERTED)', async () => {
    const reverted = new Set<string>()
    const chain = harness.sim.client('TRON')
    // the simulator cannot revert an included transaction, so the client reports it failed from now on
    const client: ChainClient = {
      network: chain.network,
      getHead: () => chain.getHead(),
      getBlocks: async (from, to) =>
        (await chain.getBlocks(from, to)).map((block) => ({
          ...block,
          transfers: block.transfers.map((transfer) =>
            reverted.has(transfer.txHash) ? { ...transfer, success: false } : transfer,
          ),
        })),
    }
    const indexer = harnessIndexer(harness, 'TRON', { client })
    await indexer.scanOnce()
    const payment = await watchedPayment(indexer, 'USDT')
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    reverted.add(txHash)
    // read again after a restart (a running indexer does not re-read a block it scanned)
    const restarted = harnessIndexer(harness, 'TRON', { client })
    await mineAndScan(harness, restarted)
    await mineAndScan(harness, restarted)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(observations.map(({ status, dropReason }) => [status, dropReason])).toEqual([
      ['seen', null],
      ['dropped', 'REVERTED'],
    ])
  })

  it('resumes from its cursor after a restart: nothing final reported again, nothing mined meanwhile missed', async () => {
    const first = harnessIndexer(harness, 'TRON')
    await first.scanOnce()
    const settled = await watchedPayment(first, 'USDT')
    const counting = await watchedPayment(first, 'USDT')
    const missed = await watchedPayment(first, 'USDT')
    await harness.sim.submitTransfer('TRON', { to: settled.address, amount: '10', currency: 'USDT' })
    for (let block = 0; block < 15; block++) await mineAndScan(harness, first)
    await harness.sim.submitTransfer('TRON', { to: counting.address, amount: '10', currency: 'USDT' })
    for (let block = 0; block < 5; block++) await mineAndScan(harness, first)
    expect((await harness.observations.transfersOf(settled.paymentId)).at(-1)?.confirmations).toBe(20)
    expect((await harness.observations.transfersOf(counting.paymentId)).at(-1)?.confirmations).toBe(5)

    // stopped: three blocks go by, the first of them paying the third payment
    await harness.sim.submitTransfer('TRON', { to: missed.address, amount: '10', currency: 'USDT' })
    await harness.sim.mineBlocks('TRON', 3)
    const before = (await harness.observations.settle()).length

    const db = harness.reopen()
    const restarted = harnessIndexer(harness, 'TRON', {
      store: createSqliteChainIndexerStore(db),
      bus: createSqliteBus(db, { logger: testLogger }),
    })
    await restarted.scanOnce()

    const after = (await harness.observations.settle()).slice(before)
    const head = await harness.sim.head('TRON')
    expect(after.filter((o) => o.kind === 'transfer' && o.paymentId === settled.paymentId)).toEqual([])
    expect(after.filter((o) => o.kind === 'transfer' && o.paymentId === counting.paymentId)).toMatchObject([
      { confirmations: 8 },
    ])
    expect(after.filter((o) => o.kind === 'transfer' && o.paymentId === missed.paymentId)).toMatchObject([
      { confirmations: 3, blockHeight: head.height - 2 },
    ])
    expect(progressOf(after)).toMatchObject([{ height: head.height }])
  })

  it('publishes its progress after each batch with the time of the last block scanned', async () => {
    const clock = createManualClock('2026-11-21T14:00:00.000Z')
    await harness.close()
    harness = await createIndexerHarness({ clock: () => clock.now() })
    const indexer = harnessIndexer(harness, 'SOLANA', { maxBlocksPerBatch: 2 })
    await indexer.scanOnce()
    for (let block = 0; block < 3; block++) {
      clock.advance(400)
      await harness.sim.mineBlocks('SOLANA', 1)
    }
    await indexer.scanOnce()
    await indexer.scanOnce()
    await indexer.scanOnce()

    const blocks = await harness.sim.client('SOLANA').getBlocks(1, 4)
    expect(progressOf(await harness.observations.settle())).toEqual([
      {
        kind: 'progress',
        network: 'SOLANA',
        height: 1,
        blockTime: blocks[0]?.time,
        observedAt: expect.any(String),
      },
      {
        kind: 'progress',
        network: 'SOLANA',
        height: 3,
        blockTime: '2026-11-21T14:00:00.800Z',
        observedAt: expect.any(String),
      },
      {
        kind: 'progress',
        network: 'SOLANA',
        height: 4,
        blockTime: '2026-11-21T14:00:01.200Z',
        observedAt: expect.any(String),
      },
    ])
  })

  it('tells its metrics the chain head and its cursor after each scan, once it has a cursor', async () => {
    const reported: Array<[string, number, number]> = []
    const metrics: ChainIndexerMetrics = {
      scanned: (network, headHeight, cursorHeight) => reported.push([network, headHeight, cursorHeight]),
    }
    const start = (await harness.sim.client('SOLANA').getHead()).height
    const early = harnessIndexer(harness, 'SOLANA', { startHeight: start + 10, metrics })
    await early.scanOnce()
    expect(reported).toEqual([])

    const indexer = harnessIndexer(harness, 'SOLANA', { maxBlocksPerBatch: 2, metrics })
    await indexer.scanOnce()
    await harness.sim.mineBlocks('SOLANA', 3)
    for (let scan = 0; scan < 3; scan++) await indexer.scanOnce()

    expect(reported).toEqual([
      ['SOLANA', start, start],
      ['SOLANA', start + 3, start + 2],
      ['SOLANA', start + 3, start + 3],
      ['SOLANA', start + 3, start + 3],
    ])
  })

  it('starts at the given height on its very first run', async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'TRX' })
    await harness.sim.mineBlocks('TRON', 3)
    const indexer = harnessIndexer(harness, 'TRON', { startHeight: 1 })
    await harness.store.watch({
      network: 'TRON',
      address: payment.address,
      paymentId: payment.paymentId,
      assetContract: null,
      watchUntil: '2099-01-01T00:00:00.000Z',
      paymentCreatedAt: '2026-01-01T00:00:00.000Z',
      requiredConfirmations: 20,
      watchingReportedAt: null,
    })
    await indexer.scanOnce()

    expect(await harness.observations.transfersOf(payment.paymentId)).toMatchObject([
      { blockHeight: 2, confirmations: 3 },
    ])
  })

  it('rescans for an address whose payment event arrives after its transfer was scanned', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT' })
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'USDT',
    })
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer)
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([])

    await indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()
    await mineAndScan(harness, indexer)

    expect(
      (await harness.observations.transfersOf(payment.paymentId)).map((o) => [o.txHash, o.confirmations]),
    ).toEqual([
      [txHash, 2],
      [txHash, 3],
    ])
  })

  it('rescans by block time for an address that arrives late after a restart', async () => {
    const first = harnessIndexer(harness, 'TRON')
    await first.scanOnce()
    const payment = paymentCreated({ network: 'TRON', currency: 'USDT' })
    await harness.sim.mineBlocks('TRON', 30)
    await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '10', currency: 'USDT' })
    await mineAndScan(harness, first, 2)

    const restarted = harnessIndexer(harness, 'TRON')
    await restarted.handlePaymentEvent(payment.message)
    await restarted.scanOnce()

    const head = await harness.sim.head('TRON')
    expect(await harness.observations.transfersOf(payment.paymentId)).toMatchObject([
      { blockHeight: head.height - 1, confirmations: 2 },
    ])
  })

  it('watches only addresses of its own network', async () => {
    const indexer = harnessIndexer(harness, 'TRON')
    await indexer.handlePaymentEvent(paymentCreated({ network: 'SOLANA', currency: 'SOL' }).message)
    const tron = await watchedPayment(indexer, 'TRX')
    expect(indexer.watchSet.size).toBe(1)
    expect((await harness.store.listWatched('TRON')).map((entry) => entry.address)).toEqual([tron.address])
    expect(await harness.store.listWatched('SOLANA')).toEqual([])
  })

  it('keeps going after chain client failures, backing off, and subscribes to payment events when started', async () => {
    const chain = harness.sim.client('TRON')
    let failuresLeft = 3
    const client: ChainClient = {
      network: 'TRON',
      getHead: async () => {
        if (failuresLeft > 0) {
          failuresLeft -= 1
          throw new Error('node unavailable')
        }
        return chain.getHead()
      },
      getBlocks: (from, to) => chain.getBlocks(from, to),
    }
    const indexer = harnessIndexer(harness, 'TRON', { client, pollIntervalMs: 5 })
    await indexer.start()
    try {
      const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
      await harness.bus.publish(Topics.paymentEvents, [
        { key: payment.paymentId, value: payment.message.value, headers: payment.message.headers },
      ])
      await vi.waitFor(() => expect(indexer.watchSet.get(payment.address)).toBeDefined(), { timeout: 10_000 })
      await harness.sim.submitTransfer('TRON', { to: payment.address, amount: '1', currency: 'TRX' })
      await harness.sim.mineBlocks('TRON', 1)
      await vi.waitFor(
        async () => expect(await harness.observations.transfersOf(payment.paymentId)).toHaveLength(1),
        { timeout: 10_000 },
      )
      expect(failuresLeft).toBe(0)
    } finally {
      await indexer.stop()
    }
  })

  it('refuses a network outside the registry and a client of another network', () => {
    expect(() => harnessIndexer(harness, 'BITCOIN', { client: harness.sim.client('TRON') })).toThrow(
      /not in the asset registry/,
    )
    expect(() => harnessIndexer(harness, 'TRON', { client: harness.sim.client('SOLANA') })).toThrow(
      /client is for SOLANA/,
    )
  })

  it('stops watching an address once the chain passes its late funds window, by block time', async () => {
    const clock = createManualClock('2026-11-21T14:00:00.000Z')
    await harness.close()
    harness = await createIndexerHarness({ clock: () => clock.now() })
    const indexer = harnessIndexer(harness, 'TRON', { clock, lateFundsWindowMs: 60_000 })
    const payment = paymentCreated({
      network: 'TRON',
      currency: 'TRX',
      createdAt: '2026-11-21T13:59:00.000Z',
      expiresAt: '2026-11-21T14:30:00.000Z',
    })
    await indexer.handlePaymentEvent(payment.message)
    await mineAndScan(harness, indexer)
    expect(indexer.watchSet.size).toBe(1)

    // the indexer's own clock is past the window, the chain is not yet
    clock.advance(31 * 60_000 + 1)
    await indexer.scanOnce()
    expect(indexer.watchSet.size).toBe(1)

    clock.advance(61_000)
    await mineAndScan(harness, indexer)
    expect(indexer.watchSet.size).toBe(0)
    expect(await harness.store.listWatched('TRON')).toEqual([])
  })

  it('keeps watching through a backlog whose blocks are older than its clock, pruning by block time', async () => {
    const clock = createManualClock('2026-11-21T14:00:00.000Z')
    await harness.close()
    harness = await createIndexerHarness({ clock: () => clock.now() })
    const payment = paymentCreated({
      network: 'TRON',
      currency: 'TRX',
      createdAt: '2026-11-21T14:00:00.000Z',
      expiresAt: '2026-11-21T14:30:00.000Z',
    })
    // block 1 came at 14:00; block 2, paying the payment, comes at 14:20, block 3 at 14:40
    clock.advance(20 * 60_000)
    const { txHash } = await harness.sim.submitTransfer('TRON', {
      to: payment.address,
      amount: '10',
      currency: 'TRX',
    })
    await harness.sim.mineBlocks('TRON', 1)
    clock.advance(20 * 60_000)
    await harness.sim.mineBlocks('TRON', 1)

    // an hour later the indexer starts on that backlog, one block per iteration
    clock.advance(20 * 60_000)
    const indexer = harnessIndexer(harness, 'TRON', {
      clock,
      lateFundsWindowMs: 60_000,
      startHeight: 1,
      maxBlocksPerBatch: 1,
    })
    await indexer.handlePaymentEvent(payment.message)
    await indexer.scanOnce()
    clock.advance(61_000)
    await indexer.scanOnce()
    expect((await harness.observations.transfersOf(payment.paymentId)).map((o) => o.txHash)).toEqual([txHash])
    expect(indexer.watchSet.size).toBe(1)

    clock.advance(61_000)
    await indexer.scanOnce()
    expect(indexer.watchSet.size).toBe(0)
  })
})

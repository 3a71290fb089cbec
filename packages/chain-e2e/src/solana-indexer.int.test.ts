// The chain indexer watching Solana payments through the Solana RPC client: what it reports when
// the chain it reads comes from @solana/web3.js over HTTP instead of the simulator's own client.
import type { ChainIndexer } from '@chainpay/chain-indexer'
import {
  createIndexerHarness,
  type IndexerHarness,
  mineAndScan,
  paymentCreated,
  servedIndexer,
  statusTrail,
  watchedPayment,
} from '@chainpay/chain-indexer/testing'
import { simulatedAddress } from '@chainpay/chain-sim'
import { createSolanaChainClient } from '@chainpay/chain-solana'
import { defaultAssetRegistry } from '@chainpay/domain'
import type { ChainClient } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

let harness: IndexerHarness
let indexer: ChainIndexer

beforeEach(async () => {
  harness = await createIndexerHarness()
  indexer = await servedIndexer(harness, 'SOLANA', (node) =>
    createSolanaChainClient({
      network: 'SOLANA',
      registry: defaultAssetRegistry,
      rpcUrl: node.solanaUrl('SOLANA'),
    }),
  )
})

afterEach(() => harness.close())

function submit(...transfers: Array<{ to: string; amount: string; currency: string; contract?: string }>) {
  return harness.sim.submitTransaction('SOLANA', { transfers })
}

describe('the chain indexer over the Solana RPC client', () => {
  it('reports a SOL payment at every confirmation up to the 32 required, then stops following it', async () => {
    const payment = await watchedPayment(indexer, 'SOL')
    const { txHash } = await submit({ to: payment.address, amount: '10', currency: 'SOL' })
    for (let block = 0; block < 36; block++) await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(observations.map((observation) => observation.confirmations)).toEqual(
      Array.from({ length: 32 }, (_, index) => index + 1),
    )
    expect(observations[0]).toMatchObject({
      network: 'SOLANA',
      txHash,
      transferIndex: 0,
      address: payment.address,
      amountUnits: '10000000000',
      status: 'seen',
      dropReason: null,
    })
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
  })

  it('counts USDC paid into the token account, not to its owner, nor failed or counterfeit', async () => {
    const payment = await watchedPayment(indexer, 'USDC')
    const tokenAccount = payment.tokenAccount as string
    await submit({ to: payment.address, amount: '3', currency: 'USDC' })
    await harness.sim.submitTransaction('SOLANA', {
      transfers: [{ to: tokenAccount, amount: '10', currency: 'USDC' }],
      failure: 'INSTRUCTION_ERROR',
    })
    await submit({ to: tokenAccount, amount: '10', currency: 'USDC', contract: simulatedAddress('SOLANA') })
    await submit({ to: tokenAccount, amount: '10', currency: 'SOL' })
    const genuine = await submit({ to: tokenAccount, amount: '10', currency: 'USDC' })
    await mineAndScan(harness, indexer)

    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(
      observations.map(({ txHash, address, amountUnits }) => ({ txHash, address, amountUnits })),
    ).toEqual([{ txHash: genuine.txHash, address: tokenAccount, amountUnits: '10000000' }])
  })

  it('counts the payment inside a transaction of several transfers', async () => {
    const payment = await watchedPayment(indexer, 'USDC')
    const tokenAccount = payment.tokenAccount as string
    const { txHash } = await submit(
      { to: simulatedAddress('SOLANA'), amount: '1', currency: 'SOL' },
      { to: tokenAccount, amount: '4', currency: 'USDC' },
      { to: simulatedAddress('SOLANA'), amount: '2', currency: 'USDT' },
      { to: tokenAccount, amount: '6', currency: 'USDC' },
    )
    await mineAndScan(harness, indexer, 2)

    const block = (
      await harness.sim.blockDetails('SOLANA', 1, (await harness.sim.head('SOLANA')).height)
    ).find((candidate) => candidate.transactions.some((transaction) => transaction.txHash === txHash))
    const observations = await harness.observations.transfersOf(payment.paymentId)
    expect(
      observations.map(({ txHash, amountUnits, blockHeight }) => ({ txHash, amountUnits, blockHeight })),
    ).toEqual([{ txHash, amountUnits: '10000000', blockHeight: block?.height }])
    expect(observations.at(-1)?.confirmations).toBe(2)
  })

  it('puts in doubt a transfer whose transaction the chain drops before it is final', async () => {
    const payment = await watchedPayment(indexer, 'SOL')
    const { txHash } = await submit({ to: payment.address, amount: '10', currency: 'SOL' })
    await mineAndScan(harness, indexer)
    await mineAndScan(harness, indexer, 2)

    expect(await harness.sim.dropTransaction('SOLANA', txHash)).toBe(true)
    await indexer.scanOnce()
    await mineAndScan(harness, indexer)

    expect(statusTrail(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      ['seen', 1, null],
      ['seen', 3, null],
      ['in_doubt', 3, null],
    ])
  })

  it('keeps counting a payment whose block the node lacks (-32009): unknown, never withdrawn', async () => {
    const payment = await watchedPayment(indexer, 'SOL')
    await submit({ to: payment.address, amount: '10', currency: 'SOL' })
    await mineAndScan(harness, indexer)
    const height = (await harness.observations.transfersOf(payment.paymentId))[0]?.blockHeight ?? 0
    // the node loses the block (a ledger jump to a recent snapshot), the chain keeps it
    harness.sim.lackBlocks('SOLANA', [height])
    const failures: string[] = []
    for (let block = 0; block < 40; block++) {
      await harness.sim.mineBlocks('SOLANA', 1)
      await indexer.scanOnce().catch((error: Error) => failures.push(error.message))
    }
    harness.sim.lackBlocks('SOLANA', [])
    await mineAndScan(harness, indexer)

    const trail = statusTrail(await harness.observations.transfersOf(payment.paymentId))
    expect(trail.filter(([status]) => status !== 'seen')).toEqual([])
    expect(trail.at(-1)).toEqual(['seen', 32, null])
    expect(await harness.store.listTracked('SOLANA')).toEqual([])
    // counted from the head and the parent-hash chain: the lacking block is never needed again
    expect(failures).toEqual([])
  })

  it('does not skip a block the node lacks while scanning it: the scan waits until the block is served', async () => {
    const payment = await watchedPayment(indexer, 'SOL')
    await mineAndScan(harness, indexer)
    const { txHash } = await submit({ to: payment.address, amount: '10', currency: 'SOL' })
    const { height } = await harness.sim.mineBlocks('SOLANA', 1)
    await harness.sim.mineBlocks('SOLANA', 2)
    // the node lists every block but the one holding the payment (-32009 when asked for it)
    harness.sim.lackBlocks('SOLANA', [height])
    await expect(indexer.scanOnce()).rejects.toThrow(`lacks the block at slot ${height}`)
    expect(await harness.observations.transfersOf(payment.paymentId)).toEqual([])

    harness.sim.lackBlocks('SOLANA', [])
    await indexer.scanOnce()
    expect(statusTrail(await harness.observations.transfersOf(payment.paymentId))).toEqual([
      ['seen', 3, null],
    ])
    expect((await harness.observations.transfersOf(payment.paymentId))[0]?.txHash).toBe(txHash)
  })
})

describe('a node started from a snapshot (docs/chains.md, "Backfill")', () => {
  it('backfills a payment whose history lies below the first block the node has from that block, never from 0', async () => {
    let nowMs = Date.parse('2030-01-01T00:00:00.000Z')
    const clock = { now: () => new Date(nowMs) }
    const own = await createIndexerHarness({ clock: clock.now })
    /** every getBlocks range the indexer asked for */
    const ranges: Array<[number, number]> = []
    const connect = (node: Parameters<Parameters<typeof servedIndexer>[2]>[0]): ChainClient => {
      const client = createSolanaChainClient({
        network: 'SOLANA',
        registry: defaultAssetRegistry,
        rpcUrl: node.solanaUrl('SOLANA'),
      })
      return {
        ...client,
        getBlocks: (from, to) => {
          ranges.push([from, to])
          return client.getBlocks(from, to)
        },
      }
    }
    try {
      await own.sim.mineBlocks('SOLANA', 1)
      let solana = await servedIndexer(own, 'SOLANA', connect, { clock })
      const createdAt = new Date(nowMs).toISOString()
      for (let block = 0; block < 60; block++) {
        nowMs += 400
        await own.sim.mineBlocks('SOLANA', 1)
        await solana.scanOnce()
      }
      own.sim.forgetHistoryBelow('SOLANA', 40)
      // a fresh indexer (no history of its own) learns of a payment created before slot 40
      solana = await servedIndexer(own, 'SOLANA', connect, { clock })
      const payment = paymentCreated({ network: 'SOLANA', currency: 'SOL', createdAt })
      await solana.handlePaymentEvent(payment.message)
      ranges.length = 0
      nowMs += 400
      await own.sim.mineBlocks('SOLANA', 1)
      await solana.scanOnce()

      expect(ranges.length).toBeGreaterThan(0)
      expect(Math.min(...ranges.map(([from]) => from))).toBeGreaterThanOrEqual(40)
      const watching = (await own.observations.settle()).filter(
        (observation) => observation.kind === 'watching' && observation.paymentId === payment.paymentId,
      )
      expect(watching).toHaveLength(1)
    } finally {
      await own.close()
    }
  })
})

describe('a block that is not on the finalized chain (docs/chains.md, "Forks: transfers in doubt")', () => {
  let nowMs: number
  let own: IndexerHarness
  let solana: ChainIndexer

  beforeEach(async () => {
    nowMs = Date.parse('2030-01-01T00:00:00.000Z')
    own = await createIndexerHarness({ clock: () => new Date(nowMs) })
    await own.sim.mineBlocks('SOLANA', 1)
    solana = await servedIndexer(
      own,
      'SOLANA',
      (node) =>
        createSolanaChainClient({
          network: 'SOLANA',
          registry: defaultAssetRegistry,
          rpcUrl: node.solanaUrl('SOLANA'),
        }),
      { clock: { now: () => new Date(nowMs) } },
    )
  })

  afterEach(() => own.close())

  /** mines `blocks` blocks `stepMs` apart, scanning after each */
  async function mineAndScanEvery(stepMs: number, blocks: number): Promise<void> {
    for (let block = 0; block < blocks; block++) {
      nowMs += stepMs
      await own.sim.mineBlocks('SOLANA', 1)
      await solana.scanOnce()
    }
  }

  async function paidInDoubt(requeue: boolean) {
    const payment = await watchedPayment(solana, 'SOL')
    const { txHash } = await own.sim.submitTransfer('SOLANA', {
      to: payment.address,
      amount: '10',
      currency: 'SOL',
    })
    await mineAndScanEvery(400, 3)
    expect(await own.sim.dropTransaction('SOLANA', txHash, { requeue })).toBe(true)
    await solana.scanOnce()
    return { payment, txHash }
  }

  it('counts a transfer in doubt again, once, when a later block includes it', async () => {
    const { payment, txHash } = await paidInDoubt(true)
    await mineAndScanEvery(400, 40)

    const observations = await own.observations.transfersOf(payment.paymentId)
    const trail = statusTrail(observations)
    expect(trail.slice(0, 4)).toEqual([
      ['seen', 1, null],
      ['seen', 2, null],
      ['seen', 3, null],
      ['in_doubt', 3, null],
    ])
    expect(trail.filter(([status]) => status === 'dropped')).toEqual([])
    expect(trail.at(-1)).toEqual(['seen', 32, null])
    expect(new Set(observations.map((observation) => observation.txHash))).toEqual(new Set([txHash]))
    expect(await own.store.listTracked('SOLANA')).toEqual([])
  })

  it('drops a transfer in doubt only once its blockhash expired and the finalized chain does not know it', async () => {
    const { payment } = await paidInDoubt(false)
    // 40 slots (16 s) on: final depth passed, the blockhash not expired yet: still in doubt
    await mineAndScanEvery(400, 40)
    expect(statusTrail(await own.observations.transfersOf(payment.paymentId)).at(-1)).toEqual([
      'in_doubt',
      3,
      null,
    ])
    // two minutes later the blockhash has expired and getSignatureStatuses does not know it
    await mineAndScanEvery(10_000, 13)
    expect(statusTrail(await own.observations.transfersOf(payment.paymentId)).at(-1)).toEqual([
      'dropped',
      3,
      'EXPIRED',
    ])
    expect(await own.store.listTracked('SOLANA')).toEqual([])
  })
})

// The real chain indexer over the real TRON and Solana clients, wrapped in the RPC resilience
// policies, reading the simulator's nodes through a faulty proxy: an outage while confirmations
// accrue, and a catch-up after downtime through intermittent faults. Every payment must end up with
// each of its transfers counted once, final, and settled.

import { type ResilientChainClient, type RpcRetry, withRpcResilience } from '@chainpay/chain-access'
import type { ChainIndexer } from '@chainpay/chain-indexer'
import {
  createIndexerHarness,
  harnessIndexer,
  type IndexerHarness,
  type TestPayment,
  testLogger,
  watchedPayment,
} from '@chainpay/chain-indexer/testing'
import type { TransferObservation } from '@chainpay/contracts'
import { defaultAssetRegistry, findNetwork } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type FaultyChainNode, startFaultyChainNode } from './faulty-chain-node.js'
import { paymentAfter } from './payment-fold.js'

let harness: IndexerHarness
let node: FaultyChainNode
const running: ChainIndexer[] = []

beforeEach(async () => {
  harness = await createIndexerHarness()
  node = await startFaultyChainNode(harness)
})

afterEach(async () => {
  await Promise.all(running.splice(0).map((indexer) => indexer.stop()))
  await node.close()
  await harness.close()
})

async function resilientClient(network: string, retries: RpcRetry[] = []): Promise<ResilientChainClient> {
  return withRpcResilience(await node.clientThroughProxy(network, { timeoutMs: 1_000 }), {
    logger: testLogger,
    initialBackoffMs: 5,
    maxBackoffMs: 100,
    breaker: { consecutiveFailures: 3, halfOpenAfterMs: 200 },
    onRetry: (retry) => retries.push(retry),
  })
}

/**
 * a running indexer of `network` over `client`, stopped after the test. A first run starts at the
 * head it reads first: `scanFirst` scans once before the test pays, so that its blocks are all scanned.
 */
async function startIndexer(
  network: string,
  client: ResilientChainClient,
  options: { scanFirst?: boolean } = {},
): Promise<ChainIndexer> {
  const indexer = harnessIndexer(harness, network, { client, pollIntervalMs: 20, maxBlocksPerBatch: 8 })
  running.push(indexer)
  if (options.scanFirst) await indexer.scanOnce()
  await indexer.start()
  return indexer
}

async function stopIndexer(indexer: ChainIndexer): Promise<void> {
  await indexer.stop()
  running.splice(running.indexOf(indexer), 1)
}

/** where a payment of the test is paid: the token account of an SPL payment, else its address */
const payTo = (payment: TestPayment) => payment.tokenAccount ?? payment.address

/** submits a transfer of `amount` in the payment's currency to where it is paid */
const pay = (payment: TestPayment, amount: string) =>
  harness.sim.submitTransfer(payment.network, { to: payTo(payment), amount, currency: payment.currency })

async function confirmationsOf(payment: TestPayment, txHash: string): Promise<number> {
  const observations = await harness.observations.transfersOf(payment.paymentId)
  return Math.max(
    0,
    ...observations.filter((seen) => seen.txHash === txHash).map((seen) => seen.confirmations),
  )
}

async function statusOf(payment: TestPayment): Promise<string> {
  return paymentAfter(payment, await harness.observations.transfersOf(payment.paymentId)).status
}

/**
 * The payment as the command side folds its observations: settled at its amount, with exactly the
 * transfers `expected` (txHash, index) counted, each once and final; and the observations of each
 * transfer never count its confirmations down.
 */
async function expectSettledOnce(
  payment: TestPayment,
  expected: { txHash: string; transferIndex: number }[],
  required: number,
): Promise<void> {
  const observations = await harness.observations.transfersOf(payment.paymentId)
  const settled = paymentAfter(payment, observations)
  expect(settled.status).toBe('confirmed')
  expect(settled.receivedUnits).toBe(settled.created.amountUnits)
  expect(settled.transfers.map(({ txHash, transferIndex }) => ({ txHash, transferIndex }))).toEqual(
    expect.arrayContaining(expected),
  )
  expect(settled.transfers).toHaveLength(expected.length)
  expect(
    settled.transfers.every((transfer) => transfer.confirmations >= required && !transfer.withdrawn),
  ).toBe(true)
  expect(observations.every((observation) => observation.status === 'seen')).toBe(true)
  for (const { txHash, transferIndex } of expected) {
    const counts = confirmationsSeen(observations, txHash, transferIndex)
    expect(counts).toEqual([...counts].sort((left, right) => left - right))
    expect(counts.at(-1)).toBe(required)
  }
}

function confirmationsSeen(
  observations: TransferObservation[],
  txHash: string,
  transferIndex: number,
): number[] {
  return observations
    .filter((seen) => seen.txHash === txHash && seen.transferIndex === transferIndex)
    .map((seen) => seen.confirmations)
}

const settles = { timeout: 60_000, interval: 100 }

describe.each([
  { network: 'TRON', native: 'TRX', token: 'USDT' },
  { network: 'SOLANA', native: 'SOL', token: 'USDC' },
])('the $network indexer through a faulty endpoint', ({ network, native, token }) => {
  const required = findNetwork(defaultAssetRegistry, network)?.requiredConfirmations ?? 0

  it('keeps counting confirmations across an outage', { timeout: 120_000 }, async () => {
    const client = await resilientClient(network)
    await harness.sim.mineBlocks(network, 1)
    const indexer = await startIndexer(network, client, { scanFirst: true })
    const payment = await watchedPayment(indexer, token)

    const first = await pay(payment, '4')
    await harness.sim.mineBlocks(network, 3)
    await expect.poll(() => confirmationsOf(payment, first.txHash), settles).toBe(3)

    // every request fails for a while: the breaker opens, the indexer keeps retrying its iterations
    node.proxy.inject({ kind: 'status', status: 503 })
    const second = await pay(payment, '6')
    await harness.sim.mineBlocks(network, 5)
    await expect.poll(() => client.state(), settles).toBe('open')
    await expect.poll(() => node.proxy.faulted(), settles).toBeGreaterThan(9)
    node.proxy.clear()

    await harness.sim.mineBlocks(network, required)
    await expect.poll(() => statusOf(payment), settles).toBe('confirmed')
    await stopIndexer(indexer)

    await expectSettledOnce(
      payment,
      [
        { txHash: first.txHash, transferIndex: 0 },
        { txHash: second.txHash, transferIndex: 0 },
      ],
      required,
    )
    expect(await harness.store.listTracked(network)).toEqual([])
  })

  it('catches up after downtime through intermittent faults, counting each transfer once', {
    timeout: 120_000,
  }, async () => {
    await harness.sim.mineBlocks(network, 1)
    const before = await startIndexer(network, await resilientClient(network), { scanFirst: true })
    const nativePayment = await watchedPayment(before, native)
    const tokenPayment = await watchedPayment(before, token)
    const splitPayment = await watchedPayment(before, token)
    const early = await pay(nativePayment, '4')
    await harness.sim.mineBlocks(network, 1)
    await expect.poll(() => confirmationsOf(nativePayment, early.txHash), settles).toBe(1)
    await stopIndexer(before)

    // mined while no indexer runs: more blocks than one batch, one transaction paying two payments
    const late = await pay(nativePayment, '6')
    await harness.sim.mineBlocks(network, 3)
    const multi = await harness.sim.submitTransaction(network, {
      transfers: [
        { to: payTo(tokenPayment), amount: '10', currency: token },
        { to: payTo(splitPayment), amount: '3', currency: token },
      ],
    })
    await harness.sim.mineBlocks(network, 12)
    const rest = await pay(splitPayment, '7')
    await harness.sim.mineBlocks(network, 2)
    const [multiBlock] = await (await node.directClient(network)).getBlocks(
      ...(await heightOf(network, multi.txHash)),
    )
    const multiIndex = (to: string) =>
      multiBlock?.transfers.find((transfer) => transfer.txHash === multi.txHash && transfer.to === to)
        ?.index ?? -1

    const faults = [
      { kind: 'pass', times: 2 },
      { kind: 'rate-limit', retryAfterSeconds: 0, times: 1 },
      { kind: 'pass', times: 3 },
      { kind: 'status', status: 502, times: 2 },
      { kind: 'reset', times: 1 },
      { kind: 'pass', times: 4 },
      { kind: 'hang', times: 1 },
      { kind: 'pass', times: 2 },
      { kind: 'status', status: 500, times: 1 },
    ] as const
    for (const fault of faults) node.proxy.inject(fault)
    const retries: RpcRetry[] = []
    await startIndexer(network, await resilientClient(network, retries))
    await harness.sim.mineBlocks(network, required)

    for (const payment of [nativePayment, tokenPayment, splitPayment]) {
      await expect.poll(() => statusOf(payment), settles).toBe('confirmed')
    }
    // the indexer keeps polling: every fault is met, however few calls settling took
    await expect.poll(() => node.proxy.faulted(), settles).toBe(6)
    expect(retries.length).toBeGreaterThan(0)
    await expectSettledOnce(
      nativePayment,
      [
        { txHash: early.txHash, transferIndex: 0 },
        { txHash: late.txHash, transferIndex: 0 },
      ],
      required,
    )
    await expectSettledOnce(
      tokenPayment,
      [{ txHash: multi.txHash, transferIndex: multiIndex(payTo(tokenPayment)) }],
      required,
    )
    await expectSettledOnce(
      splitPayment,
      [
        { txHash: multi.txHash, transferIndex: multiIndex(payTo(splitPayment)) },
        { txHash: rest.txHash, transferIndex: 0 },
      ],
      required,
    )
  })
})

/** the one-block range [height, height] of the block holding `txHash` */
async function heightOf(network: string, txHash: string): Promise<[number, number]> {
  const head = await harness.sim.head(network)
  const blocks = await harness.sim.blockDetails(network, 0, head.height)
  const block = blocks.find((candidate) => candidate.transactions.some((tx) => tx.txHash === txHash))
  if (block === undefined) throw new Error(`no block holds ${txHash}`)
  return [block.height, block.height]
}

// A real chain indexer of a simulated Solana network reading the chain through the Solana RPC
// client (web3.js over HTTP to the simulator's JSON-RPC routes), with the SQLite bus and indexer
// store in the simulator's file, payment events as the relay publishes them, and the chain
// observations read back through a subscription of their own.
import { randomUUID } from 'node:crypto'
import { type ChainIndexer, createChainIndexer } from '@chainpay/chain-indexer'
import { simulatedAddress } from '@chainpay/chain-sim'
import {
  type ChainObservationMessage,
  parseChainObservationMessage,
  paymentEventBusMessage,
  type TransferObservation,
} from '@chainpay/contracts'
import { paymentEventMessage } from '@chainpay/contracts/testing'
import { findNetwork, resolveAsset, toUnits } from '@chainpay/domain'
import { paymentCreatedData } from '@chainpay/domain/testing'
import { systemClock } from '@chainpay/platform'
import { type Bus, type ChainIndexerStore, type ConsumedMessage, Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { createSolanaChainClient } from '../solana-chain-client.js'
import { type SolanaSimulatorNode, startSolanaSimulatorNode, testLogger } from './solana-simulator-node.js'

const MARKER_HEADER = 'test-marker'

export interface WatchedSolanaPayment {
  paymentId: string
  currency: string
  /** the owner address the payment shows */
  address: string
  /** the token account an SPL payment is paid into; null for SOL */
  tokenAccount: string | null
}

export interface SolanaIndexerHarness {
  node: SolanaSimulatorNode
  indexer: ChainIndexer
  store: ChainIndexerStore
  network: string
  /** a payment of `currency`, created now and handed to the indexer as its PaymentCreated event */
  watch(currency: string): Promise<WatchedSolanaPayment>
  /** mines `blocks` blocks, then lets the indexer scan once */
  mineAndScan(blocks?: number): Promise<void>
  /** the transfer observations of a payment published so far */
  transfersOf(paymentId: string): Promise<TransferObservation[]>
  close(): Promise<void>
}

export async function createSolanaIndexerHarness(network = 'SOLANA'): Promise<SolanaIndexerHarness> {
  const node = await startSolanaSimulatorNode()
  const { db, registry, simulator } = node
  const bus = createSqliteBus(db, { logger: testLogger })
  const store = createSqliteChainIndexerStore(db)
  const observations = await observeChain(bus)
  const client = createSolanaChainClient({ network, registry, rpcUrl: node.rpcUrl(network) })
  const indexer = createChainIndexer({
    network,
    client,
    store,
    bus,
    registry,
    clock: systemClock,
    logger: testLogger,
  })
  // the cursor starts at the head: payments are watched from now on
  await indexer.scanOnce()

  return {
    node,
    indexer,
    store,
    network,
    async watch(currency) {
      const asset = resolveAsset(registry, { network, currency })
      const units = toUnits('10', asset.decimals).toString()
      const data = paymentCreatedData({
        paymentId: randomUUID(),
        network,
        currency,
        tokenStandard: asset.tokenStandard,
        decimals: asset.decimals,
        amount: '10',
        amountUnits: units,
        feeUnits: '0',
        netUnits: units,
        address: simulatedAddress('SOLANA'),
        tokenAccount: asset.tokenStandard === 'SPL' ? simulatedAddress('SOLANA') : null,
        derivationPath: "m/44'/501'/1'/0'",
        requiredConfirmations: findNetwork(registry, network)?.requiredConfirmations ?? 32,
        createdAt: new Date().toISOString(),
      })
      await indexer.handlePaymentEvent(consumed(paymentEventMessage({ type: 'PaymentCreated', data })))
      return { paymentId: data.paymentId, currency, address: data.address, tokenAccount: data.tokenAccount }
    },
    async mineAndScan(blocks = 1) {
      await simulator.mineBlocks(network, blocks)
      await indexer.scanOnce()
    },
    async transfersOf(paymentId) {
      return (await observations.settle()).filter(
        (observation): observation is TransferObservation =>
          observation.kind === 'transfer' && observation.paymentId === paymentId,
      )
    },
    async close() {
      await observations.stop()
      await bus.close()
      await node.close()
    },
  }
}

function consumed(message: ReturnType<typeof paymentEventMessage>): ConsumedMessage {
  return { topic: Topics.paymentEvents, offset: String(message.revision), ...paymentEventBusMessage(message) }
}

/** the chain observations published so far; settle() waits until all published before it are read */
async function observeChain(bus: Bus) {
  const received: ChainObservationMessage[] = []
  const waiting = new Map<string, () => void>()
  const subscription = await bus.subscribe({
    topic: Topics.chainObservations,
    groupId: `test-${randomUUID()}`,
    handle: async (message) => {
      const marker = message.headers[MARKER_HEADER]
      if (marker === undefined) received.push(parseChainObservationMessage(message.value))
      else waiting.get(marker)?.()
    },
  })
  return {
    // the bus keeps one order per topic: once the marker is read, so is everything before it
    async settle() {
      const marker = randomUUID()
      const seen = new Promise<void>((resolve) => waiting.set(marker, resolve))
      await bus.publish(Topics.chainObservations, [
        { key: 'marker', value: '{}', headers: { [MARKER_HEADER]: marker } },
      ])
      await seen
      waiting.delete(marker)
      return [...received]
    },
    stop: () => subscription.stop(),
  }
}

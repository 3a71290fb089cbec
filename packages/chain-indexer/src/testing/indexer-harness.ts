// What the chain indexer's integration tests stand on: a real chain simulator, bus and indexer store
// in one temporary SQLite file, payment event messages as the relay publishes them, and a log of the
// chain observations read back through a real subscription. serve() puts the simulator behind real
// HTTP as TRON and Solana nodes, for indexers that read it through the real RPC clients.

import { randomUUID } from 'node:crypto'
import { type ChainSimulator, simulatedWalletAddress } from '@chainpay/chain-sim'
import {
  openTestSimulator,
  type SimulatorNode,
  startSimulatorNode,
  testNetworks,
} from '@chainpay/chain-sim/testing'
import {
  type ChainObservationMessage,
  DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
  type DepositObservation,
  depositAddressEventBusMessage,
  type PaymentEventMessage,
  parseChainObservationMessage,
  paymentEventBusMessage,
  type TransferObservation,
} from '@chainpay/contracts'
import { paymentEventMessage } from '@chainpay/contracts/testing'
import {
  type Chain,
  defaultAssetRegistry,
  findNetwork,
  type PaymentCreatedData,
  resolveAsset,
  toUnits,
} from '@chainpay/domain'
import { paymentCreatedData } from '@chainpay/domain/testing'
import { createRootLogger, type Logger, systemClock } from '@chainpay/platform'
import {
  type Bus,
  type ChainClient,
  type ChainIndexerStore,
  type ChainTransfer,
  type ConsumedMessage,
  Topics,
} from '@chainpay/ports'
import {
  createSqliteBus,
  createSqliteChainIndexerStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { associatedTokenAccount } from '@chainpay/wallet'
import { type ChainIndexer, type ChainIndexerOptions, createChainIndexer } from '../indexer.js'

export const testLogger: Logger = createRootLogger({ service: 'chain-indexer-test', level: 'silent' })

const MARKER_HEADER = 'test-marker'

/** the chain observations published so far, read through a subscription of its own */
export interface ObservationLog {
  /** waits until everything published before the call has been read, and returns it all */
  settle(): Promise<ChainObservationMessage[]>
  /** the transfer observations of one payment, after settle() */
  transfersOf(paymentId: string): Promise<TransferObservation[]>
}

export async function observeChain(bus: Bus): Promise<ObservationLog & { stop(): Promise<void> }> {
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
  // The bus keeps one order per topic, so once the marker is read, so is everything before it.
  const settle = async () => {
    const marker = randomUUID()
    const seen = new Promise<void>((resolve) => waiting.set(marker, resolve))
    await bus.publish(Topics.chainObservations, [
      { key: 'marker', value: '{}', headers: { [MARKER_HEADER]: marker } },
    ])
    await seen
    waiting.delete(marker)
    return [...received]
  }
  return {
    settle,
    async transfersOf(paymentId) {
      return (await settle()).filter(
        (observation): observation is TransferObservation =>
          observation.kind === 'transfer' && observation.paymentId === paymentId,
      )
    },
    stop: () => subscription.stop(),
  }
}

/** what a payment's transfer observations said, in order: [status, confirmations, dropReason] */
export function statusTrail(observations: TransferObservation[]): Array<[string, number, string | null]> {
  return observations.map(({ status, confirmations, dropReason }) => [status, confirmations, dropReason])
}

export interface TestPayment {
  paymentId: string
  network: string
  currency: string
  address: string
  tokenAccount: string | null
  message: ConsumedMessage
}

/**
 * A PaymentCreated message as the relay publishes it, created now. SPL payments get the associated
 * token account of their address unless given one; addresses are fresh random ones of the chain.
 */
export function paymentCreated(
  fields: Partial<PaymentCreatedData> & { network: string; currency: string },
): TestPayment {
  const asset = resolveAsset(defaultAssetRegistry, fields)
  const chain: Chain = asset.chain
  const units = toUnits('10', asset.decimals).toString()
  const address = fields.address ?? simulatedWalletAddress(chain)
  const data = paymentCreatedData({
    paymentId: randomUUID(),
    tokenStandard: asset.tokenStandard,
    decimals: asset.decimals,
    amount: '10',
    amountUnits: units,
    feeUnits: '0',
    netUnits: units,
    address,
    // as payment-command derives it: the associated token account of the address for the mint
    tokenAccount:
      asset.tokenStandard === 'SPL' ? associatedTokenAccount(address, asset.contract as string) : null,
    derivationPath: chain === 'TRON' ? "m/44'/195'/0'/0/1" : "m/44'/501'/1'/0'",
    requiredConfirmations: findNetwork(defaultAssetRegistry, fields.network)?.requiredConfirmations ?? 1,
    createdAt: new Date().toISOString(),
    ...fields,
  })
  return {
    paymentId: data.paymentId,
    network: data.network,
    currency: data.currency,
    address: data.address,
    tokenAccount: data.tokenAccount,
    message: consumed(paymentEventMessage({ type: 'PaymentCreated', data })),
  }
}

/** a payment event message as a subscription hands it over */
export function consumed(message: PaymentEventMessage): ConsumedMessage {
  return { topic: Topics.paymentEvents, offset: String(message.revision), ...paymentEventBusMessage(message) }
}

/**
 * DepositAddressCreated of a fresh wallet address of `chain` for `merchantUserId` of mer_shop, as
 * the deposit relay publishes it (on Solana a real ed25519 key: its token accounts can be derived)
 */
export function depositAddressCreated(
  chain: Chain,
  merchantUserId: string,
  address = simulatedWalletAddress(chain),
  createdAt = new Date().toISOString(),
): { address: string; message: ConsumedMessage } {
  const published = depositAddressEventBusMessage({
    eventId: randomUUID(),
    streamId: `deposit-address-${randomUUID()}`,
    revision: 0,
    schemaVersion: DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION,
    recordedAt: new Date().toISOString(),
    type: 'DepositAddressCreated',
    data: {
      merchantId: 'mer_shop',
      merchantUserId,
      chain,
      address,
      derivationPath: chain === 'TRON' ? "m/44'/195'/0'/2/7" : "m/44'/501'/2'/7'",
      walletId: 'operator',
      index: 7,
      createdAt,
    },
  })
  return { address, message: { topic: Topics.depositEvents, offset: '0', ...published } }
}

/** the deposit observations of `address` among `observations` */
export function depositsAt(observations: ChainObservationMessage[], address: string): DepositObservation[] {
  return observations.filter(
    (observation): observation is DepositObservation =>
      observation.kind === 'deposit' && observation.address === address,
  )
}

export interface IndexerHarness {
  path: string
  db: DatabaseSync
  sim: ChainSimulator
  bus: Bus
  store: ChainIndexerStore
  observations: ObservationLog
  /** a further connection to the same file, closed with the harness */
  reopen(): DatabaseSync
  /** the simulator served over HTTP as TRON and Solana nodes (started once), closed with the harness */
  serve(): Promise<SimulatorNode>
  close(): Promise<void>
}

/** TRON and SOLANA, producing blocks only when a test mines them */
export async function createIndexerHarness(options: { clock?: () => Date } = {}): Promise<IndexerHarness> {
  const chain = openTestSimulator({ networks: testNetworks('TRON', 'SOLANA'), clock: options.clock })
  const { db, path, simulator: sim } = chain
  const connections: DatabaseSync[] = []
  const bus = createSqliteBus(db, { logger: testLogger })
  const store = createSqliteChainIndexerStore(db)
  const observations = await observeChain(bus)
  let node: Promise<SimulatorNode> | undefined
  return {
    path,
    db,
    sim,
    bus,
    store,
    observations,
    reopen() {
      const connection = openSqliteDatabase(path)
      connections.push(connection)
      return connection
    },
    serve() {
      node ??= startSimulatorNode({ simulator: sim })
      return node
    },
    async close() {
      await (await node)?.close()
      await observations.stop()
      await bus.close()
      for (const connection of connections) if (connection.isOpen) connection.close()
      await chain.close()
    },
  }
}

/** an indexer of `network` on the harness's simulated chain, bus and store; `overrides` win */
export function harnessIndexer(
  harness: IndexerHarness,
  network: string,
  overrides: Partial<ChainIndexerOptions> = {},
): ChainIndexer {
  return createChainIndexer({
    network,
    store: harness.store,
    bus: harness.bus,
    registry: defaultAssetRegistry,
    clock: systemClock,
    logger: testLogger,
    ...overrides,
    client: overrides.client ?? harness.sim.client(network),
  })
}

/**
 * An indexer of `network` reading the harness's simulator served over HTTP (serve()) through the
 * client `connect` makes for the node, such as the real TRON or Solana RPC client. It has scanned
 * once: its cursor is at the head, so payments are watched from then on.
 */
export async function servedIndexer(
  harness: IndexerHarness,
  network: string,
  connect: (node: SimulatorNode) => ChainClient,
  overrides: Partial<ChainIndexerOptions> = {},
): Promise<ChainIndexer> {
  const indexer = harnessIndexer(harness, network, { ...overrides, client: connect(await harness.serve()) })
  await indexer.scanOnce()
  return indexer
}

/** a payment the indexer watches, created now and handed to it as its PaymentCreated event */
export async function watchedPayment(indexer: ChainIndexer, currency: string): Promise<TestPayment> {
  const payment = paymentCreated({ network: indexer.network, currency })
  await indexer.handlePaymentEvent(payment.message)
  return payment
}

/** mines `blocks` blocks on the indexer's network, then lets the indexer scan once */
export async function mineAndScan(harness: IndexerHarness, indexer: ChainIndexer, blocks = 1): Promise<void> {
  await harness.sim.mineBlocks(indexer.network, blocks)
  await indexer.scanOnce()
}

/**
 * A client that answers like the simulator's, except for the heights a test names: `missing` ones
 * are left out of every answer (a node lagging behind, or a slot the chain skipped), `forked` ones
 * come from another fork: another hash, none of the transfers (`once`: in the next answer only);
 * `included` adds transfers to the block at a height.
 */
export function unreliableClient(base: ChainClient): {
  client: ChainClient
  missing: Set<number>
  forked: Set<number>
  forkedOnce: Set<number>
  included: Map<number, ChainTransfer[]>
} {
  const missing = new Set<number>()
  const forked = new Set<number>()
  const forkedOnce = new Set<number>()
  const included = new Map<number, ChainTransfer[]>()
  const client: ChainClient = {
    network: base.network,
    getHead: () => base.getHead(),
    async getBlocks(from, to) {
      return (await base.getBlocks(from, to)).flatMap((block) => {
        if (missing.has(block.height)) return []
        if (forked.has(block.height) || forkedOnce.delete(block.height)) {
          return [{ ...block, hash: `fork-${block.hash}`, transfers: [] }]
        }
        const extra = included.get(block.height) ?? []
        return [{ ...block, transfers: [...block.transfers, ...extra] }]
      })
    },
  }
  return { client, missing, forked, forkedOnce, included }
}

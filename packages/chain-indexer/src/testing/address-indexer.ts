// What the Solana address indexer's integration tests stand on: the indexer harness's simulator served
// over HTTP and its websocket, read through @solana/web3.js; JSON-RPC calls counted by method, and a
// node that answers a method as the test says (503, or a JSON-RPC null result, as a node that does not
// hold a transaction yet answers); the test's own clock, moved by hand.

import type { SimulatorNode } from '@chainpay/chain-sim/testing'
import { createSolanaAddressReader, createSolanaConnection } from '@chainpay/chain-solana'
import { paymentEventMessage } from '@chainpay/contracts/testing'
import { defaultAssetRegistry, type PaymentEvent } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import type { Bus, ChainIndexerStore } from '@chainpay/ports'
import { expect, vi } from 'vitest'
import { createSolanaAddressIndexer, type SolanaAddressIndexer } from '../solana-address-indexer.js'
import {
  consumed,
  type IndexerHarness,
  paymentCreated,
  type TestPayment,
  testLogger,
} from './indexer-harness.js'

export const MINUTE_MS = 60_000
export const HOUR_MS = 60 * MINUTE_MS
/** how often the running loop iterates (its poll interval) */
export const ITERATION_MS = 500
/** Solana's finality depth in the simulator */
export const FINALITY_DEPTH = 31

/** what a node does with a JSON-RPC method, instead of answering it */
export type NodeFault = 'unavailable' | 'null'

export interface AddressIndexerRig {
  node: SimulatorNode
  clock: Clock
  /** the test's clock, in ms */
  now(): number
  advance(ms: number): void
  /** JSON-RPC calls made over HTTP so far, by method, in order */
  readonly calls: string[]
  count(method: string): number
  resetCalls(): void
  /** answers `method` with the fault until cleared (undefined); only the calls `applies` to, when given */
  fault(method: string, fault: NodeFault | undefined, applies?: (params: unknown[]) => boolean): void
  /** sends `method` to another node (its JSON-RPC URL) until cleared (undefined): one behind, say */
  route(method: string, url: string | undefined): void
  indexer(options?: {
    logger?: Logger
    store?: ChainIndexerStore
    bus?: Bus
    treasuries?: ReadonlySet<string>
    /** the node's websocket: another one (a closed port, say) */
    wsUrl?: string
  }): SolanaAddressIndexer
  /** a payment created now, expiring in two hours, handed to the indexer and watched */
  watched(indexer: SolanaAddressIndexer, currency: string, createdAt?: string): Promise<TestPayment>
  /** a payment event as payment-command publishes it, handed to the indexer */
  emit(indexer: SolanaAddressIndexer, event: PaymentEvent, revision?: number): Promise<void>
  /** the running loop's iterations over `ms` of the test's clock */
  runFor(indexer: SolanaAddressIndexer, ms: number): Promise<void>
  /** until a websocket notification (or a reconnect) has marked something for the next iteration */
  notified(indexer: SolanaAddressIndexer): Promise<void>
  /** a simulated transfer, mined */
  pay(to: string, amount: string, currency: string): Promise<string>
  /** SPL paid into the owner's token account `account` (its associated one unless given), opened for it */
  payToken(owner: string, account: string, amount: string, currency: string): Promise<string>
  stop(): Promise<void>
}

export async function addressIndexerRig(
  harness: IndexerHarness,
  clockStart: { ms: number },
): Promise<AddressIndexerRig> {
  const node = await harness.serve()
  const calls: string[] = []
  const faults = new Map<string, { fault: NodeFault; applies: (params: unknown[]) => boolean }>()
  const routes = new Map<string, string>()
  const indexers: SolanaAddressIndexer[] = []
  const clock: Clock = { now: () => new Date(clockStart.ms) }
  const counting = (async (url: string, init: RequestInit) => {
    const { method, id, params } = JSON.parse(String(init.body)) as {
      method: string
      id: unknown
      params?: unknown[]
    }
    calls.push(method)
    const faulted = faults.get(method)
    const fault = faulted?.applies(params ?? []) ? faulted.fault : undefined
    if (fault === 'unavailable') return new Response('unavailable', { status: 503 })
    if (fault === 'null') {
      return new Response(JSON.stringify({ jsonrpc: '2.0', result: null, id }), {
        headers: { 'content-type': 'application/json' },
      })
    }
    return fetch(routes.get(method) ?? url, init)
  }) as unknown as typeof fetch

  const rig: AddressIndexerRig = {
    node,
    clock,
    now: () => clockStart.ms,
    advance(ms) {
      clockStart.ms += ms
    },
    calls,
    count: (method) => calls.filter((call) => call === method).length,
    resetCalls() {
      calls.length = 0
    },
    fault(method, fault, applies = () => true) {
      if (fault === undefined) faults.delete(method)
      else faults.set(method, { fault, applies })
    },
    route(method, url) {
      if (url === undefined) routes.delete(method)
      else routes.set(method, url)
    },
    indexer(options = {}) {
      const connection = createSolanaConnection({
        rpcUrl: node.solanaUrl('SOLANA'),
        wsUrl: options.wsUrl ?? node.solanaWsUrl('SOLANA'),
        fetch: counting,
      })
      const indexer = createSolanaAddressIndexer({
        network: 'SOLANA',
        reader: createSolanaAddressReader({ network: 'SOLANA', registry: defaultAssetRegistry, connection }),
        store: options.store ?? harness.store,
        bus: options.bus ?? harness.bus,
        registry: defaultAssetRegistry,
        clock,
        logger: options.logger ?? testLogger,
        ...(options.treasuries === undefined ? {} : { treasuries: options.treasuries }),
      })
      indexers.push(indexer)
      return indexer
    },
    async watched(indexer, currency, createdAt = new Date(clockStart.ms).toISOString()) {
      const payment = paymentCreated({
        network: 'SOLANA',
        currency,
        createdAt,
        expiresAt: new Date(clockStart.ms + 2 * HOUR_MS).toISOString(),
      })
      await indexer.handlePaymentEvent(payment.message)
      await indexer.scanOnce()
      return payment
    },
    async emit(indexer, event, revision = 2) {
      await indexer.handlePaymentEvent(consumed(paymentEventMessage(event, revision)))
    },
    async runFor(indexer, ms) {
      for (let elapsed = 0; elapsed < ms; elapsed += ITERATION_MS) {
        clockStart.ms += ITERATION_MS
        await indexer.scanOnce()
      }
    },
    async notified(indexer) {
      await vi.waitFor(() => expect(indexer.watcher.due).toBe(true), { timeout: 10_000, interval: 20 })
    },
    async pay(to, amount, currency) {
      const { txHash } = await harness.sim.submitTransfer('SOLANA', { to, amount, currency })
      await harness.sim.mineBlocks('SOLANA', 1)
      return txHash
    },
    async payToken(owner, account, amount, currency) {
      await harness.sim.openTokenAccount('SOLANA', { owner, currency, address: account })
      return rig.pay(account, amount, currency)
    },
    async stop() {
      for (const indexer of indexers.splice(0)) await indexer.stop()
    },
  }
  return rig
}

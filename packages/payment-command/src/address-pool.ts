// Addresses derived ahead of need (docs/capacity.md, "Addresses derived ahead"): deriving a
// receiving address is the costliest part of a create (an elliptic-curve child derivation, about a
// millisecond), so the operator's wallet keeps, per chain family, a pool of addresses whose indexes
// the allocator handed out and which were derived while the process, and the machine, had nothing
// else to do. A create takes one (the store deletes it as it hands it out, so it is never handed out
// twice) and derives on the spot only when the pool is empty. The pool is named by the keys' public identity: addresses of
// keys that were replaced are never handed out. Merchants' own wallets derive on the spot.

import { availableParallelism, loadavg } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import type { AddressFamily, Asset, Chain, ReceivingAddress } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import type { AddressIndexAllocator, AddressPoolStore, PooledAddress } from '@chainpay/ports'
import type { AddressDeriver } from '@chainpay/wallet'

export interface AddressPoolOptions {
  store: AddressPoolStore
  allocator: AddressIndexAllocator
  /** the operator's wallet */
  deriver: AddressDeriver
  /** the chain families served: one pool each */
  families: AddressFamily[]
  /** the public identity of the operator's key of a chain (its TRON account key fingerprint, its Solana address 0) */
  keyIdOf(chain: Chain): string
  logger: Logger
  /** addresses kept per family; default 1,000 */
  size?: number
  /** addresses derived at a time, between two looks at how busy the process is; default 16 */
  chunk?: number
  /**
   * whether the process had time to spare since the previous call; default: its event loop was busy
   * less than half of it, and the machine's load average is below its cores
   */
  idle?: () => boolean
  /** how often a busy or full pool looks again; default 100 ms */
  checkIntervalMs?: number
}

/** how long the process is watched before a chunk: it derives only if that time was mostly idle */
const IDLE_PROBE_MS = 5

export interface AddressPool extends Service {
  /** a pooled address of the family for the asset; null when the family's pool is empty */
  take(family: AddressFamily, asset: Asset): Promise<ReceivingAddress | null>
  /** derives one chunk for the first pool below its size; how many it added (0: every pool is full) */
  refillOnce(): Promise<number>
}

/** a pool's name: its chain and the public identity of the operator's key (`TRON@<key id>`) */
export function addressPoolName(chain: Chain, keyId: string): string {
  return `${chain}@${keyId}`
}

export function createAddressPool(options: AddressPoolOptions): AddressPool {
  const { store, allocator, deriver, families, keyIdOf, logger } = options
  const size = options.size ?? 1_000
  const chunk = options.chunk ?? 16
  const checkIntervalMs = options.checkIntervalMs ?? 100
  const idle = options.idle ?? eventLoopIdle()
  const poolOf = (chain: Chain) => addressPoolName(chain, keyIdOf(chain))
  let timer: NodeJS.Timeout | undefined
  let running = false
  let refilling: Promise<unknown> = Promise.resolve()

  const refillOnce = async (): Promise<number> => {
    for (const family of families) {
      const pool = poolOf(family.chain)
      const missing = size - (await store.size(pool))
      if (missing <= 0) continue
      const addresses: PooledAddress[] = []
      for (let i = 0; i < Math.min(chunk, missing); i++) {
        const index = await allocator.allocate(family)
        addresses.push({ index, ...deriver.deriveChainAddress(family.chain, index) })
      }
      await store.add(pool, addresses)
      return addresses.length
    }
    return 0
  }

  // While the process is idle, chunk after chunk; when busy or full, a look every checkIntervalMs.
  // Idle is judged over a short probe after each chunk, so that the chunk's own work does not count.
  const refillWhileIdle = async () => {
    let added = 0
    while (running) {
      idle()
      await sleep(IDLE_PROBE_MS)
      if (!running || !idle()) break
      const chunkAdded = await refillOnce()
      if (chunkAdded === 0) break
      added += chunkAdded
    }
    if (added > 0) logger.debug({ added }, 'addresses derived ahead')
  }
  const schedule = () => {
    timer = setTimeout(() => {
      refilling = refillWhileIdle()
        .catch((error: unknown) =>
          logger.warn({ err: error }, 'deriving addresses ahead failed; trying again'),
        )
        .finally(() => {
          if (running) schedule()
        })
    }, checkIntervalMs)
    timer.unref()
  }

  return {
    name: 'address pool',
    async take(family, asset) {
      const pooled = await store.take(poolOf(family.chain))
      return pooled === null ? null : deriver.receivingAddressOf(asset, pooled)
    },
    refillOnce,
    async start() {
      if (running || size === 0) return
      running = true
      schedule()
    },
    async stop() {
      running = false
      clearTimeout(timer)
      await refilling
    },
  }
}

/**
 * true when the event loop was busy less than half of the time since the previous call, and the
 * machine has a core to spare (its 1-minute load average below its cores): deriving ahead must not
 * take CPU from other work on the machine either
 */
function eventLoopIdle(): () => boolean {
  let previous = performance.eventLoopUtilization()
  return () => {
    const current = performance.eventLoopUtilization()
    const { utilization } = performance.eventLoopUtilization(current, previous)
    previous = current
    return utilization < 0.5 && (loadavg()[0] ?? 0) < availableParallelism()
  }
}

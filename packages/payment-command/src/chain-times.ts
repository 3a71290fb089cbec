// How far each network's chain watcher has scanned, as the block time of its newest scanned block,
// and the payments it does not speak for yet (holds: a transaction found on their accounts that the
// node did not return yet). Expiry waits for it: a payment is only due once the chain has been read
// past its deadline for it.

import type { ChainTimeHold } from '@chainpay/contracts'

export interface ChainTimeTracker {
  /**
   * keeps the latest time per network with its holds; an older report (a replayed message) changes
   * nothing, the same time again replaces the holds
   */
  update(network: string, blockTime: string, holds?: readonly ChainTimeHold[]): void
  /** null until the network's watcher has reported */
  get(network: string): string | null
  /** the chain time of one payment: the network's, or just before what holds it; null until reported */
  forPayment(network: string, paymentId: string): string | null
  /** the networks whose watcher has reported, in the order they first did */
  networks(): string[]
}

export function createChainTimeTracker(): ChainTimeTracker {
  const times = new Map<string, { iso: string; ms: number; holds: Map<string, string> }>()
  return {
    update(network, blockTime, holds = []) {
      const ms = Date.parse(blockTime)
      if (Number.isNaN(ms)) throw new RangeError(`chain time of ${network}: not a time: ${blockTime}`)
      const known = times.get(network)
      if (known !== undefined && ms < known.ms) return
      times.set(network, {
        iso: blockTime,
        ms,
        holds: new Map(holds.map(({ paymentId, before }) => [paymentId, before])),
      })
    },
    get(network) {
      return times.get(network)?.iso ?? null
    },
    forPayment(network, paymentId) {
      const known = times.get(network)
      if (known === undefined) return null
      const before = known.holds.get(paymentId)
      if (before === undefined || Date.parse(before) > known.ms) return known.iso
      return new Date(Date.parse(before) - 1).toISOString()
    },
    networks() {
      return [...times.keys()]
    },
  }
}

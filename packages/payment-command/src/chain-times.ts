// How far each network's chain watcher has scanned, as the block time of its newest scanned block.
// Expiry waits for it: a payment is only due once the chain has been read past its deadline.

export interface ChainTimeTracker {
  /** keeps the latest time per network; an older report (a replayed message) changes nothing */
  update(network: string, blockTime: string): void
  /** null until the network's watcher has reported */
  get(network: string): string | null
  /** the networks whose watcher has reported, in the order they first did */
  networks(): string[]
}

export function createChainTimeTracker(): ChainTimeTracker {
  const times = new Map<string, { iso: string; ms: number }>()
  return {
    update(network, blockTime) {
      const ms = Date.parse(blockTime)
      if (Number.isNaN(ms)) throw new RangeError(`chain time of ${network}: not a time: ${blockTime}`)
      const known = times.get(network)
      if (known === undefined || ms > known.ms) times.set(network, { iso: blockTime, ms })
    },
    get(network) {
      return times.get(network)?.iso ?? null
    },
    networks() {
      return [...times.keys()]
    },
  }
}

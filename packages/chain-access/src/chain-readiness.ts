// Readiness of the watched chains over RPC: a network is ready once its node has answered a head
// call, and stays ready while the latest head call succeeds and its circuit breaker is not open. The
// indexer asks for the head at the start of every scan, so the latest head call is at most one scan
// (or one retry backoff, 10 s at most) old.

import { type ChainClient, isChainRpcError } from '@chainpay/ports'

/** what a circuit breaker reports, e.g. withRpcResilience's client */
export interface BreakerStateSource {
  state(): string
}

export interface ReadinessTrackedClient extends ChainClient {
  /** why the network is not ready; undefined when it is */
  notReadyReason(): string | undefined
}

/**
 * `client` with its readiness: the latest head call's outcome, and its breaker's state where it has
 * one (an in-process simulator has none)
 */
export function trackReadiness(client: ChainClient & Partial<BreakerStateSource>): ReadinessTrackedClient {
  /** the outcome of the latest head call: 'ok', a failure, or undefined before the first one ended */
  let latestHead: string | undefined

  return {
    network: client.network,
    async getHead() {
      try {
        const head = await client.getHead()
        latestHead = 'ok'
        return head
      } catch (error) {
        // the failure class only: an RPC error's message may name the endpoint
        latestHead = isChainRpcError(error) ? error.failure : 'error'
        throw error
      }
    },
    getBlocks: (fromHeight, toHeight) => client.getBlocks(fromHeight, toHeight),
    // the client's own ways of asking the final chain and the first block it has: without them the
    // indexer would count a TRON transfer final without asking the solidity node
    ...(client.finalInclusion === undefined
      ? {}
      : {
          finalInclusion: (txHash: string) => client.finalInclusion?.(txHash) ?? Promise.resolve(undefined),
        }),
    ...(client.firstAvailableHeight === undefined
      ? {}
      : { firstAvailableHeight: () => client.firstAvailableHeight?.() ?? Promise.resolve(0) }),
    notReadyReason() {
      if (client.state?.() === 'open') return 'circuit breaker open after repeated RPC failures'
      if (latestHead === undefined) return 'no head block from the node yet'
      if (latestHead !== 'ok') return `the latest head call failed (${latestHead})`
      return undefined
    },
  }
}

/**
 * For service-kit's `readiness`: true when every network is ready and `infrastructure` answers;
 * rejects naming each network that is not ready, which /readyz logs as the reason for its 503.
 */
export function chainsReadiness(
  clients: readonly ReadinessTrackedClient[],
  infrastructure: () => Promise<boolean>,
): () => Promise<boolean> {
  return async () => {
    const notReady = clients.flatMap((client) => {
      const reason = client.notReadyReason()
      return reason === undefined ? [] : [`${client.network}: ${reason}`]
    })
    if (notReady.length > 0) throw new Error(`chains not ready: ${notReady.join('; ')}`)
    return infrastructure()
  }
}

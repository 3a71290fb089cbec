import { type ChainHead, ChainRpcError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { chainsReadiness, trackReadiness } from './chain-readiness.js'

const head: ChainHead = { height: 10, hash: 'h10', time: '2026-01-01T00:00:00.000Z', finalizedHeight: 1 }

/** a chain port whose answers and breaker state the test sets */
function scriptedClient(network: string) {
  const script = {
    breaker: 'closed',
    headFailure: undefined as Error | undefined,
  }
  const client = {
    network,
    state: () => script.breaker,
    async getHead() {
      if (script.headFailure) throw script.headFailure
      return head
    },
    getBlocks: async () => [],
  }
  return { script, client }
}

describe('trackReadiness', () => {
  it('is ready once a head call succeeded, and while the latest one does', async () => {
    const { script, client } = scriptedClient('TRON')
    const tracked = trackReadiness(client)
    expect(tracked.notReadyReason()).toBe('no head block from the node yet')
    expect(await tracked.getHead()).toEqual(head)
    expect(tracked.notReadyReason()).toBeUndefined()

    script.headFailure = new ChainRpcError('rate-limited', 'TRON RPC: HTTP 429 from https://api.trongrid.io')
    await expect(tracked.getHead()).rejects.toThrow('HTTP 429')
    // the failure class, never the message, which may name the endpoint
    expect(tracked.notReadyReason()).toBe('the latest head call failed (rate-limited)')

    script.headFailure = new Error('socket hang up')
    await expect(tracked.getHead()).rejects.toThrow('socket hang up')
    expect(tracked.notReadyReason()).toBe('the latest head call failed (error)')

    script.headFailure = undefined
    await tracked.getHead()
    expect(tracked.notReadyReason()).toBeUndefined()
  })

  it('is not ready while the circuit breaker is open, whatever the latest head call said', async () => {
    const { script, client } = scriptedClient('SOLANA')
    const tracked = trackReadiness(client)
    await tracked.getHead()
    script.breaker = 'open'
    expect(tracked.notReadyReason()).toBe('circuit breaker open after repeated RPC failures')
    script.breaker = 'half-open'
    expect(tracked.notReadyReason()).toBeUndefined()
  })

  it('passes block requests through, and the final chain and first block questions of a client that has them', async () => {
    const { client } = scriptedClient('SOLANA')
    const tracked = trackReadiness(client)
    expect(tracked.network).toBe('SOLANA')
    expect(await tracked.getBlocks(1, 2)).toEqual([])
    expect(tracked.finalInclusion).toBeUndefined()

    // before, the TRON client's finalInclusion was dropped here, and a transfer counted final
    // without the solidity node being asked
    const asking = trackReadiness({
      ...client,
      finalInclusion: async (txHash: string) =>
        txHash === 'final' ? { blockHeight: 7, success: true } : undefined,
      firstAvailableHeight: async () => 5,
    })
    expect(await asking.finalInclusion?.('final')).toEqual({ blockHeight: 7, success: true })
    expect(await asking.firstAvailableHeight?.()).toBe(5)
  })

  it('tracks a client without a breaker (the simulator in process)', async () => {
    const { state: _state, ...client } = scriptedClient('TRON').client
    const tracked = trackReadiness(client)
    await tracked.getHead()
    expect(tracked.notReadyReason()).toBeUndefined()
  })
})

describe('chainsReadiness', () => {
  it('names every network that is not ready, and asks the infrastructure only when all are', async () => {
    const tron = scriptedClient('TRON')
    const solana = scriptedClient('SOLANA')
    const clients = [trackReadiness(tron.client), trackReadiness(solana.client)]
    let infrastructureAnswers = true
    const ready = chainsReadiness(clients, async () => infrastructureAnswers)

    await expect(ready()).rejects.toThrow(
      'chains not ready: TRON: no head block from the node yet; SOLANA: no head block from the node yet',
    )
    await clients[0]?.getHead()
    await expect(ready()).rejects.toThrow('chains not ready: SOLANA: no head block from the node yet')
    await clients[1]?.getHead()
    expect(await ready()).toBe(true)
    infrastructureAnswers = false
    expect(await ready()).toBe(false)
  })
})

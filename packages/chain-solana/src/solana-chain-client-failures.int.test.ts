// How the Solana client fails against endpoints that misbehave: small real HTTP servers that
// answer what rate-limited, broken, slow or lagging nodes answer.
import { createServer } from 'node:net'
import { defaultAssetRegistry } from '@chainpay/domain'
import { ChainRpcError } from '@chainpay/ports'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { createSolanaChainClient } from './solana-chain-client.js'

const API_KEY = 'b7f1c2d3-4e5f-4a6b-8c7d-9e0f1a2b3c4d'

interface JsonRpcCall {
  method: string
  params: unknown[]
  id: string
}

interface StubAnswer {
  status?: number
  headers?: Record<string, string>
  /** a JSON-RPC result, or with `raw` the exact body */
  result?: unknown
  error?: { code: number; message: string }
  raw?: string
}

let servers: FastifyInstance[] = []
let releases: Array<() => void> = []

afterEach(async () => {
  for (const release of releases) release()
  await Promise.all(servers.map((server) => server.close()))
  servers = []
  releases = []
})

/** a node at 127.0.0.1 answering every call with `answer`; its URL carries an API key */
async function stubNode(answer: (call: JsonRpcCall) => StubAnswer | Promise<StubAnswer>) {
  const calls: JsonRpcCall[] = []
  const app = Fastify()
  app.post('/', async (request, reply) => {
    const call = request.body as JsonRpcCall
    calls.push(call)
    const { status = 200, headers = {}, result, error, raw } = await answer(call)
    reply.code(status).headers(headers)
    if (raw !== undefined) return reply.type('text/html').send(raw)
    return reply.send(
      error ? { jsonrpc: '2.0', error, id: call.id } : { jsonrpc: '2.0', result, id: call.id },
    )
  })
  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  servers.push(app)
  return { rpcUrl: `${origin}/?api-key=${API_KEY}`, calls }
}

function clientOf(rpcUrl: string, timeoutMs?: number) {
  return createSolanaChainClient({ network: 'SOLANA', registry: defaultAssetRegistry, rpcUrl, timeoutMs })
}

async function failureOf(work: Promise<unknown>): Promise<ChainRpcError> {
  const error = await work.then(
    () => undefined,
    (rejection: unknown) => rejection,
  )
  expect(error).toBeInstanceOf(ChainRpcError)
  const failure = error as ChainRpcError
  expect(failure.message).not.toContain(API_KEY)
  return failure
}

function block(slot: number) {
  return {
    blockHeight: slot - 10,
    blockTime: 1_765_000_000 + slot,
    blockhash: `hash-${slot}`,
    parentSlot: slot - 1,
    previousBlockhash: `hash-${slot - 1}`,
    transactions: [],
  }
}

describe('createSolanaChainClient against failing endpoints', () => {
  it('passes HTTP 429 on at once, with the Retry-After the node asked for', async () => {
    const node = await stubNode(() => ({ status: 429, headers: { 'retry-after': '3' }, raw: 'slow down' }))
    const error = await failureOf(clientOf(node.rpcUrl).getBlocks(1, 5))
    expect(error).toMatchObject({ failure: 'rate-limited', retryAfterMs: 3000, transient: true })
    // no retry of its own: the caller's policy decides
    expect(node.calls).toHaveLength(1)
  })

  it('calls HTTP 5xx unavailable and HTTP 401 a bad response', async () => {
    const failing = await stubNode(() => ({ status: 503, raw: '<html>upstream down</html>' }))
    expect(await failureOf(clientOf(failing.rpcUrl).getHead())).toMatchObject({
      failure: 'unavailable',
      transient: true,
    })
    const refusing = await stubNode(() => ({ status: 401, raw: 'invalid api key' }))
    expect(await failureOf(clientOf(refusing.rpcUrl).getHead())).toMatchObject({
      failure: 'bad-response',
      transient: false,
    })
  })

  it('calls a closed port unavailable', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    const error = await failureOf(clientOf(`http://127.0.0.1:${port}/?api-key=${API_KEY}`).getHead())
    expect(error.failure).toBe('unavailable')
    expect(error.message).toContain(`SOLANA at http://127.0.0.1:${port}`)
  })

  it('gives up on a node that does not answer within the deadline', async () => {
    const node = await stubNode(
      () => new Promise<StubAnswer>((resolve) => releases.push(() => resolve({ result: 1 }))),
    )
    expect(await failureOf(clientOf(node.rpcUrl, 200).getHead())).toMatchObject({ failure: 'timeout' })
  })

  it('calls an unhealthy node unavailable and an unreadable answer a bad response', async () => {
    const unhealthy = await stubNode(() => ({
      error: { code: -32005, message: 'Node is behind by 42 slots' },
    }))
    const behind = await failureOf(clientOf(unhealthy.rpcUrl).getHead())
    expect(behind).toMatchObject({ failure: 'unavailable' })
    expect(behind.message).toContain('-32005')

    const html = await stubNode(() => ({ raw: '<html>maintenance</html>' }))
    expect(await failureOf(clientOf(html.rpcUrl).getHead())).toMatchObject({ failure: 'bad-response' })
    const misshapen = await stubNode(() => ({ result: 'not a slot' }))
    expect(await failureOf(clientOf(misshapen.rpcUrl).getBlocks(1, 2))).toMatchObject({
      failure: 'bad-response',
    })
  })

  it('leaves out listed slots it gets -32007/-32009 for once a later parent slot shows them skipped', async () => {
    /** a node listing 10..13 that answers -32007 for 11 and -32009 for 12; 13's parent is `parentOf13` */
    const nodeWith = (parentOf13: number) =>
      stubNode((call) => {
        if (call.method === 'getBlocks') return { result: [10, 11, 12, 13] }
        const slot = call.params[0] as number
        if (slot === 11) {
          return {
            error: {
              code: -32007,
              message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`,
            },
          }
        }
        if (slot === 12)
          return {
            error: { code: -32009, message: `Slot ${slot} was skipped, or missing in long-term storage` },
          }
        if (slot === 13) return { result: { ...block(13), parentSlot: parentOf13 } }
        return { result: block(slot) }
      })
    // 13 builds on 10: the cluster skipped 11 and 12 (their fork was abandoned)
    const skipped = await nodeWith(10)
    const blocks = await clientOf(skipped.rpcUrl).getBlocks(10, 13)
    expect(blocks.map(({ height, hash, parentHash }) => ({ height, hash, parentHash }))).toEqual([
      { height: 10, hash: 'hash-10', parentHash: 'hash-9' },
      { height: 13, hash: 'hash-13', parentHash: 'hash-12' },
    ])
    expect(blocks[0]?.time).toBe(new Date((1_765_000_000 + 10) * 1000).toISOString())
    const getBlock = skipped.calls.find((call) => call.method === 'getBlock')
    expect(getBlock?.params[1]).toMatchObject({
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
      transactionDetails: 'accounts',
      rewards: false,
    })

    // 13 builds on 12: the chain holds 12 and this node lacks it, which is unknown, not skipped
    const lacking = await nodeWith(12)
    expect(await failureOf(clientOf(lacking.rpcUrl).getBlocks(10, 13))).toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('lacks the block at slot 12'),
    })
  })

  it('does not trust getBlocks as complete: a slot it leaves out that a later block names as parent is unavailable', async () => {
    const node = await stubNode((call) => {
      const [first] = call.params as number[]
      // asked 10..12, the node lists 10 and 12 and leaves out 11, which 12 builds on
      if (call.method === 'getBlocks') return { result: first === 10 ? [10, 12] : [14] }
      const slot = call.params[0] as number
      return { result: block(slot) }
    })
    expect(await failureOf(clientOf(node.rpcUrl).getBlocks(10, 12))).toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('lacks the block at slot 11'),
    })
    // the range ends in slots without a block: the next block after it (14, parent 13) tells
    expect(await failureOf(clientOf(node.rpcUrl).getBlocks(12, 13))).toMatchObject({
      failure: 'unavailable',
      message: expect.stringContaining('lacks the block at slot 13'),
    })
  })

  it('answers -32007 and -32009 anywhere else as unavailable: unknown, worth asking again', async () => {
    const node = await stubNode(() => ({
      error: { code: -32009, message: 'Slot 7 was skipped, or missing in long-term storage' },
    }))
    expect(await failureOf(clientOf(node.rpcUrl).getHead())).toMatchObject({ failure: 'unavailable' })
  })

  it('calls a block the node has not got yet unavailable', async () => {
    // a node behind its peers has not got the block yet: worth another try, not a gap
    const lagging = await stubNode((call) =>
      call.method === 'getBlocks'
        ? { result: [20, 21] }
        : { error: { code: -32004, message: 'Block not available for slot 21' } },
    )
    expect(await failureOf(clientOf(lagging.rpcUrl).getBlocks(20, 21))).toMatchObject({
      failure: 'unavailable',
    })
  })

  it('calls a block of another shape a bad response, naming the call and the field', async () => {
    const node = await stubNode((call) =>
      call.method === 'getBlocks'
        ? { result: [31] }
        : // a full-detail transaction where accounts-only was asked: no accountKeys beside signatures
          {
            result: {
              ...block(31),
              transactions: [
                {
                  transaction: { signatures: ['sig'], message: { accountKeys: [], instructions: [] } },
                  meta: null,
                },
              ],
            },
          },
    )
    const error = await failureOf(clientOf(node.rpcUrl).getBlocks(31, 31))
    expect(error.failure).toBe('bad-response')
    expect(error.message).toContain('Solana getBlock 31 on SOLANA')
    expect(error.message).toContain('/transactions/0/transaction')
  })

  it('calls a block with a transaction it cannot read a bad response, naming the block', async () => {
    const node = await stubNode((call) =>
      call.method === 'getBlocks'
        ? { result: [30] }
        : {
            result: {
              ...block(30),
              transactions: [
                {
                  transaction: {
                    signatures: [
                      '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
                    ],
                    accountKeys: [],
                  },
                  // a node without the transaction's status
                  meta: null,
                  version: 'legacy',
                },
              ],
            },
          },
    )
    const error = await failureOf(clientOf(node.rpcUrl).getBlocks(30, 30))
    expect(error.failure).toBe('bad-response')
    expect(error.message).toContain('Solana block 30 on SOLANA')
  })
})

import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry } from '@chainpay/domain'
import { type ChainClient, type ChainRpcError, isChainRpcError } from '@chainpay/ports'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createTronChainClient } from './tron-chain-client.js'

const API_KEY = 'b7c1d2e3-api-key-never-echo-9f8e'

type Answer = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | unknown

/** a real HTTP server that answers every request as the test says, and remembers what it was asked */
interface FakeNode {
  url: string
  seen: Array<{ path: string; headers: FastifyRequest['headers'] }>
  answer: Answer
  /** resolves once the fake is closed: an answer that awaits it never comes in time */
  hold(): Promise<void>
  close(): Promise<void>
}

async function startFakeNode(): Promise<FakeNode> {
  const app: FastifyInstance = Fastify()
  const held: Array<() => void> = []
  const fake: FakeNode = {
    url: '',
    seen: [],
    answer: (_request, reply) => reply.code(500).send(),
    hold: () => new Promise<void>((resume) => held.push(resume)),
    async close() {
      for (const resume of held.splice(0)) resume()
      await app.close()
    },
  }
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    fake.seen.push({ path: request.url, headers: request.headers })
    return fake.answer(request, reply)
  }
  app.get('/*', handle)
  app.post('/*', handle)
  fake.url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/node`
  return fake
}

let fake: FakeNode

beforeEach(async () => {
  fake = await startFakeNode()
})

afterEach(async () => {
  await fake.close()
})

function clientOf(
  url: string,
  overrides: { solidityNodeUrl?: string; timeoutMs?: number } = {},
): ChainClient {
  return createTronChainClient({
    network: 'TRON',
    registry: defaultAssetRegistry,
    fullNodeUrl: url,
    apiKey: API_KEY,
    ...overrides,
  })
}

async function failureOf(work: Promise<unknown>): Promise<ChainRpcError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!isChainRpcError(error)) throw new Error(`expected a ChainRpcError, got ${String(error)}`)
  // the key travels in a header only: not in the message, the cause, or anything the error holds
  expect(error.message).not.toContain(API_KEY)
  expect(String((error.cause as Error | undefined)?.message)).not.toContain(API_KEY)
  expect(JSON.stringify({ ...error, message: error.message, cause: String(error.cause) })).not.toContain(
    API_KEY,
  )
  return error
}

describe('createTronChainClient: failed calls become ChainRpcError', () => {
  it('429 with Retry-After: rate-limited, with the wait the node asked for', async () => {
    fake.answer = (_request, reply) =>
      reply.code(429).header('retry-after', '7').send({ Error: 'too many requests' })
    const error = await failureOf(clientOf(fake.url).getHead())
    expect(error).toMatchObject({ failure: 'rate-limited', retryAfterMs: 7000, transient: true })
    expect(error.message).toMatch(/^TRON wallet(solidity)?\/getnowblock failed: HTTP 429$/)
  })

  it('TronGrid 403 (quota spent): rate-limited, on block reads too', async () => {
    fake.answer = (_request, reply) => reply.code(403).send({ Error: 'Exceed the user daily usage' })
    const error = await failureOf(clientOf(fake.url).getBlocks(1, 5))
    expect(error).toMatchObject({ failure: 'rate-limited', retryAfterMs: undefined })
  })

  it.each([500, 502, 503])('%i: unavailable', async (status) => {
    fake.answer = (_request, reply) => reply.code(status).send('<html>bad gateway</html>')
    expect(await failureOf(clientOf(fake.url).getBlocks(1, 5))).toMatchObject({
      failure: 'unavailable',
      transient: true,
    })
  })

  it('404 (not a java-tron node): bad-response, not worth retrying', async () => {
    fake.answer = (_request, reply) => reply.code(404).send({ message: 'Route not found' })
    expect(await failureOf(clientOf(fake.url).getHead())).toMatchObject({
      failure: 'bad-response',
      transient: false,
    })
  })

  it('a connection refused: unavailable', async () => {
    const closed = await startFakeNode()
    await closed.close()
    expect(await failureOf(clientOf(closed.url).getHead())).toMatchObject({ failure: 'unavailable' })
  })

  it('a connection reset mid-request: unavailable', async () => {
    fake.answer = (request) => {
      request.raw.socket.destroy()
    }
    expect(await failureOf(clientOf(fake.url).getBlocks(1, 1))).toMatchObject({ failure: 'unavailable' })
  })

  it('no answer within timeoutMs: timeout', async () => {
    fake.answer = async (_request, reply) => {
      await fake.hold()
      return reply.send({})
    }
    expect(await failureOf(clientOf(fake.url, { timeoutMs: 150 }).getHead())).toMatchObject({
      failure: 'timeout',
    })
  })

  it.each([
    ['java-tron Error body with status 200', { Error: 'class java.lang.NullPointerException : null' }],
    ['an HTML page with status 200', '<html>maintenance</html>'],
    ['a list where an object belongs', [1, 2, 3]],
  ])('%s: bad-response', async (_case, body) => {
    fake.answer = (_request, reply) => reply.code(200).send(body)
    expect(await failureOf(clientOf(fake.url).getBlocks(1, 5))).toMatchObject({ failure: 'bad-response' })
  })

  it('blanks the key where a node echoes it back', async () => {
    fake.answer = (_request, reply) => reply.code(200).send({ Error: `ApiKey ${API_KEY} is not valid` })
    const error = await failureOf(clientOf(fake.url).getBlocks(1, 5))
    expect(error.message).toContain('ApiKey [redacted] is not valid')
  })
})

describe('createTronChainClient: requests', () => {
  let node: SimulatorNode

  beforeEach(async () => {
    node = await startSimulatorNode()
  })

  afterEach(() => node.close())

  it('sends the API key as TRON-PRO-API-KEY, and asks the solidity node about a transaction, not for its head', async () => {
    fake.answer = (_request, reply) => reply.send({})
    const { height } = await node.simulator.mineBlocks('TRON', 10)
    const client = clientOf(node.tronUrl('TRON'), { solidityNodeUrl: fake.url })

    expect(await client.getHead()).toMatchObject({ height })
    expect(fake.seen).toEqual([])
    expect(await client.finalInclusion?.('ab'.repeat(32))).toBeUndefined()
    expect(fake.seen).toEqual([
      {
        path: '/node/walletsolidity/gettransactioninfobyid',
        headers: expect.objectContaining({ 'tron-pro-api-key': API_KEY }),
      },
    ])
  })

  it('sends no key header without a key', async () => {
    fake.answer = (_request, reply) => reply.send({ block: [] })
    const client = createTronChainClient({
      network: 'TRON',
      registry: defaultAssetRegistry,
      fullNodeUrl: fake.url,
    })
    expect(await client.getBlocks(1, 5)).toEqual([])
    expect(fake.seen).toHaveLength(1)
    expect(fake.seen[0]?.headers).not.toHaveProperty('tron-pro-api-key')
  })
})

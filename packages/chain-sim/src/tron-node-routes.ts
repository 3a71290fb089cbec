// The simulated TRON chains as a java-tron full node and solidity node answer over HTTP, under
// /chains/<network>/ so that `new TronWeb({ fullHost: 'http://host:port/chains/TRON' })` reads them.
// Shapes follow java-tron's servlets (framework/.../services/http): `{}` for an unknown block,
// `{"Error"}` bodies with status 200 for requests the node cannot parse; the blocks and receipts
// themselves are printed by tron-node-blocks.ts.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { ChainSimulator, SimulatedBlock } from './simulator.js'
import { renderTronBlock, renderTronTransactionInfo } from './tron-node-blocks.js'

export { SIMULATED_MULTISEND_CONTRACT_HEX } from './tron-node-blocks.js'

export interface TronNodeRoutesOptions {
  simulator: ChainSimulator
}

type Json = Record<string, unknown>

const BLOCK_LIMIT = 100

export const tronNodeRoutes: FastifyPluginAsync<TronNodeRoutesOptions> = async (app, options) => {
  const { simulator } = options

  // java-tron reads an empty POST body as an empty request; fastify's own parser would answer 400.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body).trim()
    try {
      done(null, text === '' ? {} : JSON.parse(text))
    } catch (error) {
      done(error as Error, undefined)
    }
  })

  function tronNetwork(request: FastifyRequest): string | undefined {
    const { network } = request.params as { network: string }
    const name = simulator.networkNamed(network)
    return name && simulator.chainOf(name) === 'TRON' ? name : undefined
  }

  async function blockAt(
    network: string,
    height: number,
    ceiling: number,
  ): Promise<SimulatedBlock | undefined> {
    // a node started from a snapshot has no older block (simulator.forgetHistoryBelow)
    if (height < simulator.firstAvailableHeight(network) || height > ceiling) return undefined
    return (await simulator.blockDetails(network, height, height))[0]
  }

  /** the highest block a node of the kind answers for: the head, or the solidified block */
  async function ceilingOf(network: string, solidity: boolean): Promise<number> {
    return solidity ? simulator.finalizedHeight(network) : (await simulator.head(network)).height
  }

  const endpoints: Record<string, (network: string, input: Json, solidity: boolean) => Promise<unknown>> = {
    async getnowblock(network, _input, solidity) {
      const ceiling = await ceilingOf(network, solidity)
      const block = await blockAt(network, ceiling, ceiling)
      return block ? renderTronBlock(block) : {}
    },
    async getblockbynum(network, input, solidity) {
      const block = await blockAt(network, integer(input, 'num'), await ceilingOf(network, solidity))
      return block ? renderTronBlock(block) : {}
    },
    async getblockbyid(network, input, solidity) {
      const block = await blockById(network, String(input.value ?? ''), solidity)
      return block ? renderTronBlock(block) : {}
    },
    // java-tron's unified read: no id means the latest block; detail=false leaves out the transactions
    async getblock(network, input, solidity) {
      const id = String(input.id_or_num ?? '')
      const detail = input.detail === true || input.detail === 'true'
      const ceiling = await ceilingOf(network, solidity)
      const block = /^[0-9a-fA-F]{64}$/.test(id)
        ? await blockById(network, id, solidity)
        : await blockAt(network, id === '' ? ceiling : integer({ id }, 'id'), ceiling)
      return block ? renderTronBlock(block, detail) : {}
    },
    // [startNum, endNum), at most 100 blocks
    async getblockbylimitnext(network, input, solidity) {
      const start = integer(input, 'startNum')
      const end = integer(input, 'endNum')
      if (!(end > 0 && end > start && end - start <= BLOCK_LIMIT)) return {}
      const last = Math.min(end - 1, await ceilingOf(network, solidity))
      const first = Math.max(start, simulator.firstAvailableHeight(network))
      const blocks = last < first ? [] : await simulator.blockDetails(network, first, last)
      return { block: blocks.map((block) => renderTronBlock(block)) }
    },
    async gettransactioninfobyblocknum(network, input, solidity) {
      const num = integer(input, 'num')
      if (num <= 0) return {}
      const block = await blockAt(network, num, await ceilingOf(network, solidity))
      return block
        ? block.transactions.map((transaction) => renderTronTransactionInfo(transaction, block))
        : []
    },
    // the receipt of one transaction; on walletsolidity only once its block is solidified; `{}` else
    async gettransactioninfobyid(network, input, solidity) {
      const id = String(input.value ?? '').toLowerCase()
      const height = /^[0-9a-f]{64}$/.test(id) ? await simulator.transactionHeight(network, id) : undefined
      if (typeof height !== 'number') return {}
      const block = await blockAt(network, height, await ceilingOf(network, solidity))
      const transaction = block?.transactions.find((candidate) => candidate.txHash === id)
      return block && transaction ? renderTronTransactionInfo(transaction, block) : {}
    },
  }

  async function blockById(
    network: string,
    id: string,
    solidity: boolean,
  ): Promise<SimulatedBlock | undefined> {
    // a blockID starts with the block number, so the id names the one height it can be at
    const height = Number.parseInt(id.slice(0, 16), 16)
    if (!/^[0-9a-fA-F]{64}$/.test(id) || !Number.isSafeInteger(height)) return undefined
    const block = await blockAt(network, height, await ceilingOf(network, solidity))
    return block?.hash === id.toLowerCase() ? block : undefined
  }

  async function answer(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const network = tronNetwork(request)
    const { endpoint } = request.params as { endpoint: string }
    const solidity = request.routeOptions.url?.includes('/walletsolidity/') === true
    const handler = Object.hasOwn(endpoints, endpoint) ? endpoints[endpoint] : undefined
    if (!network || !handler) {
      return reply.code(404).send({ Error: `no simulated TRON node endpoint ${request.url.split('?')[0]}` })
    }
    const input: Json = { ...(request.query as Json), ...(isJsonObject(request.body) ? request.body : {}) }
    try {
      return reply.code(200).send(await handler(network, input, solidity))
    } catch (error) {
      if (error instanceof NumberFormatError) return reply.code(200).send({ Error: error.message })
      throw error
    }
  }

  for (const api of ['wallet', 'walletsolidity']) {
    app.get(`/chains/:network/${api}/:endpoint`, answer)
    app.post(`/chains/:network/${api}/:endpoint`, answer)
  }
}

class NumberFormatError extends Error {}

function integer(input: Json, field: string): number {
  const value = input[field] ?? 0
  const parsed = typeof value === 'number' ? value : Number(String(value))
  if (!Number.isSafeInteger(parsed)) {
    throw new NumberFormatError(
      `class java.lang.NumberFormatException : For input string: "${String(value)}"`,
    )
  }
  return parsed
}

function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

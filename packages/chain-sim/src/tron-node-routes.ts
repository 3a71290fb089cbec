// The simulated TRON chains as a java-tron full node and solidity node answer over HTTP, under
// /chains/<network>/ so that `new TronWeb({ fullHost: 'http://host:port/chains/TRON' })` reads them.
// Shapes follow java-tron's servlets (framework/.../services/http): `{}` for an unknown block,
// `{"Error"}` bodies with status 200 for requests the node cannot parse; the blocks and receipts
// themselves are printed by tron-node-blocks.ts.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { TronWeb } from 'tronweb'
import type { ChainSimulator, SimulatedBlock } from './simulator.js'
import { TRC20_TRANSFER_ENERGY, TRON_CHAIN_PARAMETERS, TRON_TOTAL_ENERGY_WEIGHT } from './tron-execution.js'
import { renderTronBlock, renderTronTransaction, renderTronTransactionInfo } from './tron-node-blocks.js'
import { signedTransactionOfHex, TronRefusal, unsignedTriggerSmartContract } from './tron-transaction.js'

export { SIMULATED_MULTISEND_CONTRACT_HEX } from './tron-node-blocks.js'

export interface TronNodeRoutesOptions {
  simulator: ChainSimulator
  /** answer as a node this many blocks behind the head (chainSimulatorRoutes' `behind`) */
  behind?: number | undefined
}

type Json = Record<string, unknown>

const BLOCK_LIMIT = 100
const BALANCE_OF_SELECTOR = '70a08231'
const TRANSFER_SELECTOR = 'a9059cbb'
/** what a solidity node (/walletsolidity) does not serve: it takes and builds no transaction */
const FULL_NODE_ONLY = new Set(['broadcasttransaction', 'broadcasthex', 'triggersmartcontract'])

export const tronNodeRoutes: FastifyPluginAsync<TronNodeRoutesOptions> = async (app, options) => {
  const { simulator } = options
  const behind = options.behind ?? 0

  // java-tron reads an empty POST body as an empty request, and a body as JSON whatever its content
  // type (tronweb posts a request without parameters with axios's form content type); fastify's own
  // parsers would answer 400 or 415.
  const parseJson = (
    _request: FastifyRequest,
    body: string | Buffer,
    done: (error: Error | null, value?: unknown) => void,
  ) => {
    const text = String(body).trim()
    try {
      done(null, text === '' ? {} : JSON.parse(text))
    } catch (error) {
      done(error as Error, undefined)
    }
  }
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson)

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
    const head = Math.max(0, (await simulator.head(network)).height - behind)
    return solidity ? Math.min(head, await simulator.finalizedHeight(network)) : head
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
    // signed transactions and the account state they change (docs/chains.md, "The simulator as a
    // node for sweeping", TRON)
    async broadcasttransaction(network, input) {
      return broadcast(network, input)
    },
    async broadcasthex(network, input) {
      let body: Json
      try {
        body = signedTransactionOfHex(String(input.transaction ?? ''))
      } catch (error) {
        if (!(error instanceof TronRefusal)) throw error
        return { code: error.code, message: Buffer.from(error.message).toString('hex') }
      }
      const answer = await broadcast(network, body)
      return answer.result === true ? { ...answer, transaction: JSON.stringify(body) } : answer
    },
    async gettransactionbyid(network, input, solidity) {
      const id = String(input.value ?? '').toLowerCase()
      const height = /^[0-9a-f]{64}$/.test(id) ? await simulator.transactionHeight(network, id) : undefined
      if (typeof height !== 'number') return {}
      const block = await blockAt(network, height, await ceilingOf(network, solidity))
      const transaction = block?.transactions.find((candidate) => candidate.txHash === id)
      return block && transaction ? renderTronTransaction(transaction, block) : {}
    },
    async getchainparameters() {
      return {
        chainParameter: Object.entries(TRON_CHAIN_PARAMETERS).map(([key, value]) => ({
          key,
          value: Number(value),
        })),
      }
    },
    async getaccount(network, input) {
      const hex = addressHex(input.address)
      const account = hex && (await simulator.tronAccount(network, TronWeb.address.fromHex(hex)))
      if (!hex || !account) return {}
      const frozenV2 = [{}, { type: 'ENERGY', ...amount('amount', account.frozen) }, { type: 'TRON_POWER' }]
      return {
        address: input.visible === true || input.visible === 'true' ? TronWeb.address.fromHex(hex) : hex,
        ...amount('balance', account.balance),
        frozenV2,
        account_resource: {
          ...amount('delegated_frozenV2_balance_for_energy', account.delegatedOut),
          ...amount('acquired_delegated_frozenV2_balance_for_energy', account.delegatedIn),
          ...amount('energy_usage', BigInt(account.energyUsed)),
        },
        ...amount('free_net_usage', BigInt(account.freeNetUsed)),
      }
    },
    async getaccountresource(network, input) {
      const hex = addressHex(input.address)
      const account = hex && (await simulator.tronAccount(network, TronWeb.address.fromHex(hex)))
      if (!hex || !account) return {}
      return {
        ...amount('freeNetUsed', BigInt(account.freeNetUsed)),
        freeNetLimit: Number(TRON_CHAIN_PARAMETERS.getFreeNetLimit),
        TotalNetLimit: 43_200_000_000,
        ...amount('EnergyUsed', BigInt(account.energyUsed)),
        ...amount('EnergyLimit', account.energyLimit),
        TotalEnergyLimit: Number(TRON_CHAIN_PARAMETERS.getTotalEnergyLimit),
        TotalEnergyWeight: Number(TRON_TOTAL_ENERGY_WEIGHT),
      }
    },
    // type 1: ENERGY, the one resource staked here
    async getcandelegatedmaxsize(network, input) {
      const hex = addressHex(input.owner_address)
      const account = hex && (await simulator.tronAccount(network, TronWeb.address.fromHex(hex)))
      if (!account || Number(input.type ?? 0) !== 1) return {}
      return amount('max_size', account.frozen - account.delegatedOut)
    },
    async triggerconstantcontract(network, input) {
      return trigger(network, input, true)
    },
    async triggersmartcontract(network, input) {
      return trigger(network, input, false)
    },
  }

  async function broadcast(network: string, body: Json): Promise<Json> {
    try {
      const { txID } = await simulator.sendTronTransaction(network, body)
      return { result: true, txid: txID }
    } catch (error) {
      if (!(error instanceof TronRefusal)) throw error
      // java-tron prints the Return message as hex; a failed Return has no `result` key (false)
      const txid = typeof body.txID === 'string' ? { txid: body.txID } : {}
      return { code: error.code, ...txid, message: Buffer.from(error.message).toString('hex') }
    }
  }

  /** balanceOf(address) and transfer(address,uint256) of the chain's TRC20 tokens */
  async function trigger(network: string, input: Json, constant: boolean): Promise<Json> {
    const owner = addressHex(input.owner_address)
    const contract = addressHex(input.contract_address)
    const selector = String(input.function_selector ?? '')
    const parameter = String(input.parameter ?? '')
    const data = String(input.data ?? '') || `${TronWeb.sha3(selector).slice(2, 10)}${parameter}`
    const decimals = contract
      ? simulator.tronTokenDecimals(network, TronWeb.address.fromHex(contract))
      : undefined
    if (!owner || !contract || decimals === undefined) {
      return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: hex('Smart contract is not exist.') } }
    }
    const token = TronWeb.address.fromHex(contract)
    const head = await simulator.head(network)
    const transaction = unsignedTriggerSmartContract(
      { owner_address: owner, contract_address: contract, data },
      Number(input.fee_limit ?? 0),
      { height: head.height, hash: head.hash, timeMs: Date.parse(head.time) },
    )
    if (!constant) return { result: { result: true }, transaction }
    // the address argument: the first ABI word's low 20 bytes
    const addressArgument = TronWeb.address.fromHex(`41${data.slice(8 + 24, 8 + 64)}`)
    if (data.startsWith(BALANCE_OF_SELECTOR)) {
      const balance = await simulator.balanceOf(network, addressArgument, token)
      return { result: { result: true }, constant_result: [uint256(balance)], transaction }
    }
    if (data.startsWith(TRANSFER_SELECTOR)) {
      const holds = (await simulator.balanceOf(network, addressArgument, token)) > 0n
      const energy = holds ? TRC20_TRANSFER_ENERGY.holder : TRC20_TRANSFER_ENERGY.newHolder
      return {
        result: { result: true },
        energy_used: Number(energy),
        constant_result: [uint256(1n)],
        transaction,
      }
    }
    return {
      result: {
        code: 'CONTRACT_VALIDATE_ERROR',
        message: hex('the simulated contract runs balanceOf and transfer only'),
      },
    }
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
    if (!network || !handler || (solidity && FULL_NODE_ONLY.has(endpoint))) {
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

/** an address given as 41-prefixed hex or base58; undefined if it is neither */
function addressHex(value: unknown): string | undefined {
  const text = String(value ?? '')
  if (/^41[0-9a-fA-F]{40}$/.test(text)) return text.toLowerCase()
  return TronWeb.isAddress(text) ? TronWeb.address.toHex(text).toLowerCase() : undefined
}

/** java-tron leaves zero amounts out */
function amount(key: string, value: bigint): Json {
  return value === 0n ? {} : { [key]: Number(value) }
}

function uint256(value: bigint): string {
  return value.toString(16).padStart(64, '0')
}

function hex(text: string): string {
  return Buffer.from(text).toString('hex')
}

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

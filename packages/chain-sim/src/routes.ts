// Development endpoints that drive the simulated chains (pay an address, mine, roll back), and the
// node-shaped endpoints that the real TRON and Solana clients read them through.
// They answer with the merchant API's error body; the hosting app handles anything else.
// Anyone who reaches them can fake the transfer that confirms a payment, so they answer callers on
// this machine only, or, when the operator sets a token, only callers that send it
// (docs/operations.md, "The chain simulator's routes").
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { DECIMAL_AMOUNT_PATTERN, isDomainError } from '@chainpay/domain'
import { constantTimeEqual } from '@chainpay/platform'
import {
  forwardedByAProxy,
  isLocalCaller,
  SIMULATOR_TOKEN_HEADER,
  SIMULATOR_TOKEN_QUERY,
  simulatorAccess,
} from '@chainpay/service-kit'
import {
  type FastifyPluginAsyncTypebox,
  Type,
  TypeBoxValidatorCompiler,
} from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { SIMULATED_FAILURES } from './chain-format.js'
import type { ChainSimulator } from './simulator.js'
import { createSolanaPubsub, type SolanaPubsub } from './solana-pubsub.js'
import { solanaRpcRoutes } from './solana-rpc-routes.js'
import { tronNodeRoutes } from './tron-node-routes.js'

export interface ChainSimulatorRoutesOptions {
  simulator: ChainSimulator
  /** SIMULATOR_TOKEN; undefined: loopback callers only */
  token: string | undefined
  /** the Solana websocket pubsub served on the same port; a new one when absent */
  solanaPubsub?: SolanaPubsub | undefined
  /**
   * the node routes answer as a node this many blocks behind the simulator's head would (tests of
   * failover between endpoints: a second server of the same simulator is a node that lags); default 0
   */
  behind?: number | undefined
}

const MAX_BLOCKS_PER_REQUEST = 1000
/**
 * transfers sent here are made as a wallet makes them: on Solana, tokens sent to an owner land in
 * its associated token account, opened if need be (docs/api.md, "Development endpoints")
 */
const AS_A_WALLET = { asWallet: true } as const

const NetworkParams = Type.Object({ network: Type.String({ minLength: 1, maxLength: 64 }) })
const TransactionParams = Type.Object({
  network: Type.String({ minLength: 1, maxLength: 64 }),
  txHash: Type.String({ minLength: 1, maxLength: 128 }),
})
const Address = Type.String({ minLength: 1, maxLength: 128 })
const TransferBody = Type.Object(
  {
    to: Address,
    amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }),
    currency: Type.String({ minLength: 1, maxLength: 32 }),
    contract: Type.Optional(Address),
    from: Type.Optional(Address),
    fail: Type.Optional(Type.Boolean()),
    // Solana: held until the signed transaction of this signature is sent, landing just ahead of it
    landsAheadOf: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
)
const TransactionBody = Type.Object(
  {
    from: Type.Optional(Address),
    transfers: Type.Array(
      Type.Object(
        {
          to: Address,
          amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }),
          currency: Type.String({ minLength: 1, maxLength: 32 }),
          contract: Type.Optional(Address),
          // TRON: TRX the called contract sends on (an internal transaction)
          internal: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    failure: Type.Optional(Type.Union(SIMULATED_FAILURES.map((failure) => Type.Literal(failure)))),
  },
  { additionalProperties: false },
)
const TokenAccountBody = Type.Object(
  {
    owner: Address,
    currency: Type.String({ minLength: 1, maxLength: 32 }),
    // e.g. the owner's associated token account; a new address when absent
    address: Type.Optional(Address),
  },
  { additionalProperties: false },
)
const DropBody = Type.Union([
  // requeue: back to the mempool, the next block includes it again (java-tron re-queues popped ones)
  Type.Object({ requeue: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  Type.Null(),
])
const BlocksBody = Type.Union([
  Type.Object(
    { count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BLOCKS_PER_REQUEST })) },
    { additionalProperties: false },
  ),
  // a POST without a body mines one block (fastify validates a missing body as null)
  Type.Null(),
])

export const chainSimulatorRoutes: FastifyPluginAsyncTypebox<ChainSimulatorRoutesOptions> = async (
  app,
  { simulator, token, solanaPubsub, behind },
) => {
  // before anything else, the node-shaped APIs' scopes included (they copy this scope's hooks)
  app.addHook('onRequest', simulatorAccess(token))
  serveSolanaPubsub(app, simulator, token, solanaPubsub ?? createSolanaPubsub({ simulator }))
  // The node-shaped APIs the real TRON and Solana clients read, each in its own scope: both answer
  // bodies the way their nodes do, with parsers of their own.
  await app.register(tronNodeRoutes, { simulator, behind })
  await app.register(solanaRpcRoutes, { simulator, behind })

  // Scoped to this plugin: strict TypeBox checks, no type coercion of bodies.
  app.setValidatorCompiler(TypeBoxValidatorCompiler)

  app.post(
    '/dev/chains/:network/transfers',
    { schema: { params: NetworkParams, body: TransferBody }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      try {
        const { landsAheadOf, ...transfer } = request.body
        const options = landsAheadOf === undefined ? AS_A_WALLET : { ...AS_A_WALLET, landsAheadOf }
        return reply.code(201).send(await simulator.submitTransfer(request.params.network, transfer, options))
      } catch (error) {
        return sendDomainError(reply, error)
      }
    },
  )

  // several transfers in one transaction, or a transaction that fails with a given reason
  app.post(
    '/dev/chains/:network/transactions',
    { schema: { params: NetworkParams, body: TransactionBody }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      try {
        return reply
          .code(201)
          .send(await simulator.submitTransaction(request.params.network, request.body, AS_A_WALLET))
      } catch (error) {
        return sendDomainError(reply, error)
      }
    },
  )

  // a Solana token account with a given owner, which SPL transfers can then pay
  app.post(
    '/dev/chains/:network/token-accounts',
    { schema: { params: NetworkParams, body: TokenAccountBody }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      try {
        return reply.code(201).send(await simulator.openTokenAccount(request.params.network, request.body))
      } catch (error) {
        return sendDomainError(reply, error)
      }
    },
  )

  app.post(
    '/dev/chains/:network/blocks',
    { schema: { params: NetworkParams, body: BlocksBody }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      return reply
        .code(200)
        .send(await simulator.mineBlocks(request.params.network, request.body?.count ?? 1))
    },
  )

  app.post(
    '/dev/chains/:network/transactions/:txHash/drop',
    { schema: { params: TransactionParams, body: DropBody }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      const { network, txHash } = request.params
      const requeue = request.body?.requeue === true
      if (await simulator.dropTransaction(network, txHash, { requeue }))
        return reply.code(200).send({ dropped: true, requeued: requeue })
      const message = `transaction ${txHash} is not on ${simulator.networkNamed(network)}`
      return sendError(reply, { status: 404, code: 'NOT_FOUND', message })
    },
  )

  app.get(
    '/dev/chains/:network/head',
    { schema: { params: NetworkParams }, attachValidation: true },
    async (request, reply) => {
      const rejected = rejection(simulator, request)
      if (rejected) return sendError(reply, rejected)
      return reply.code(200).send(await simulator.head(request.params.network))
    },
  )
}

/**
 * The Solana node's websocket on the HTTP port, at the network's JSON-RPC path
 * (ws://127.0.0.1:PORT/chains/SOLANA): web3.js reaches it with `wsEndpoint` (it would otherwise
 * take port + 1, where a validator listens). The same callers as the routes' hook may open it.
 */
function serveSolanaPubsub(
  app: FastifyInstance,
  simulator: ChainSimulator,
  token: string | undefined,
  pubsub: SolanaPubsub,
): void {
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://simulator')
    const path = url.pathname
    const network = simulator.networkNamed(/^\/chains\/([^/]+)\/?$/.exec(path)?.[1] ?? '')
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    }
    if (network === undefined || simulator.chainOf(network) !== 'SOLANA') return refuse('404 Not Found')
    const sent =
      request.headers[SIMULATOR_TOKEN_HEADER] ?? url.searchParams.get(SIMULATOR_TOKEN_QUERY) ?? undefined
    const allowed =
      token === undefined
        ? isLocalCaller(request.socket) && !forwardedByAProxy(request.headers)
        : typeof sent === 'string' && constantTimeEqual(sent, token)
    if (!allowed) return refuse(token === undefined ? '404 Not Found' : '401 Unauthorized')
    pubsub.handleUpgrade(request, socket, head, network)
  }
  app.server.on('upgrade', onUpgrade)
  // before the server closes: it would wait for the upgraded sockets
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade)
    await pubsub.close()
  })
}

interface ErrorReply {
  status: 400 | 404
  code: 'VALIDATION_ERROR' | 'UNSUPPORTED_ASSET' | 'NOT_FOUND'
  message: string
}

/** an unknown network is 404 before anything about the request body is looked at */
function rejection(
  simulator: ChainSimulator,
  request: { params: { network: string }; validationError?: Error | undefined },
): ErrorReply | undefined {
  const { network } = request.params
  if (!simulator.networkNamed(network)) {
    const supported = simulator.networks.join(', ')
    return {
      status: 404,
      code: 'NOT_FOUND',
      message: `no simulated network ${network}; simulated: ${supported}`,
    }
  }
  if (request.validationError) {
    return { status: 400, code: 'VALIDATION_ERROR', message: request.validationError.message }
  }
  return undefined
}

function sendDomainError(reply: FastifyReply, error: unknown): FastifyReply {
  if (isDomainError(error) && (error.code === 'VALIDATION_ERROR' || error.code === 'UNSUPPORTED_ASSET')) {
    return sendError(reply, { status: 400, code: error.code, message: error.message })
  }
  throw error
}

function sendError(reply: FastifyReply, { status, code, message }: ErrorReply): FastifyReply {
  return reply.code(status).send({ error: { code, message } })
}

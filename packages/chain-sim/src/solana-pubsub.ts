// A Solana node's websocket pubsub in front of the simulator: accountSubscribe, logsSubscribe
// (mentions one address), signatureSubscribe, programSubscribe (the token program's accounts, by
// dataSize and memcmp filters: how a watcher hears of any token account of an owner) and their
// unsubscribes, with notifications in the node's shapes (docs/chains.md, "Solana by address: what
// the simulator answers"). Like a node it replays nothing: a client that was disconnected lists what
// it missed with getSignaturesForAddress. The simulator has no event for a new block, so open
// subscriptions look at the chain every `pollIntervalMs`.
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { base58, base64 } from '@scure/base'
import { type WebSocket, WebSocketServer } from 'ws'
import type { ChainSimulator, SimulatedBlock } from './simulator.js'
import {
  type AccountEncoding,
  accountStateAfter,
  tokenAccountData,
  tokenHoldingAfter,
} from './solana-accounts.js'
import {
  nodeJson,
  type SolanaTransaction,
  simulatedSolanaTransactions,
  TOKEN_PROGRAM_ID,
} from './solana-rpc-blocks.js'

export interface SolanaPubsubOptions {
  simulator: ChainSimulator
  /** how often open subscriptions look for new blocks; default 25 ms */
  pollIntervalMs?: number
}

export interface SolanaPubsub {
  /** takes over an HTTP upgrade for the pubsub of a simulated Solana network */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, network: string): void
  /**
   * ends every open connection without a closing handshake, as a node restart or a network fault
   * does (clients see code 1006 and reconnect); how tests exercise a client's reconnection
   */
  dropConnections(): number
  /** the open subscriptions over all connections */
  subscriptionCount(): number
  close(): Promise<void>
}

type Commitment = 'processed' | 'confirmed' | 'finalized'
type Json = Record<string, unknown>

interface Subscription {
  id: number
  kind: 'account' | 'logs' | 'signature' | 'program'
  /** the watched account or signature */
  target: string
  commitment: Commitment
  encoding: AccountEncoding
  /** the highest slot already looked at */
  seen: number
  /** programSubscribe: what every notified account matches */
  filters: AccountFilter[]
}

type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } }

interface Connection {
  socket: WebSocket
  network: string
  subscriptions: Map<number, Subscription>
}

/** the largest message a node takes from a client */
const MAX_CLIENT_MESSAGE_BYTES = 4096
const CLOSE_HANDSHAKE_MS = 200
const UNSUBSCRIBE: Record<string, Subscription['kind']> = {
  accountUnsubscribe: 'account',
  logsUnsubscribe: 'logs',
  signatureUnsubscribe: 'signature',
  programUnsubscribe: 'program',
}

export function createSolanaPubsub(options: SolanaPubsubOptions): SolanaPubsub {
  const { simulator } = options
  const pollIntervalMs = options.pollIntervalMs ?? 25
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES })
  const connections = new Set<Connection>()
  let nextId = 1
  let timer: NodeJS.Timeout | undefined
  let polling = false

  server.on('connection', (socket: WebSocket, _request: IncomingMessage, network: string) => {
    const connection: Connection = { socket, network, subscriptions: new Map() }
    connections.add(connection)
    ensurePolling()
    socket.on('message', (data) => {
      void onMessage(connection, String(data)).catch(() => socket.terminate())
    })
    socket.on('close', () => {
      connections.delete(connection)
      if (connections.size === 0) stopPolling()
    })
    socket.on('error', () => socket.terminate())
  })

  async function onMessage(connection: Connection, text: string): Promise<void> {
    let call: unknown
    try {
      call = JSON.parse(text)
    } catch {
      return send(connection, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null })
    }
    if (typeof call !== 'object' || call === null || Array.isArray(call)) {
      return send(connection, {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid request' },
        id: null,
      })
    }
    const { method, params, id } = call as { method?: unknown; params?: unknown; id?: unknown }
    // a notification (web3.js sends `ping` every 5 s) gets no answer
    if (id === undefined) return
    const reply = (body: Json) => send(connection, { jsonrpc: '2.0', ...body, id })
    const list = Array.isArray(params) ? params : []
    try {
      if (typeof method === 'string' && method in UNSUBSCRIBE) {
        const subscription = connection.subscriptions.get(Number(list[0]))
        if (subscription === undefined || subscription.kind !== UNSUBSCRIBE[method]) {
          return reply({ error: { code: -32602, message: 'Invalid subscription id.' } })
        }
        connection.subscriptions.delete(subscription.id)
        return reply({ result: true })
      }
      const subscription = await subscribe(connection.network, method, list)
      if (subscription === undefined) return reply({ error: { code: -32601, message: 'Method not found' } })
      connection.subscriptions.set(subscription.id, subscription)
      return reply({ result: subscription.id })
    } catch (error) {
      if (error instanceof InvalidParams) return reply({ error: { code: -32602, message: error.message } })
      throw error
    }
  }

  async function subscribe(network: string, method: unknown, params: unknown[]) {
    const [target, config] = params
    const settings = readSettings(config)
    const seen = await slotAt(network, settings.commitment)
    const make = (kind: Subscription['kind'], watched: string): Subscription => ({
      id: nextId++,
      kind,
      target: watched,
      seen,
      filters: [],
      ...settings,
    })
    switch (method) {
      case 'accountSubscribe':
        return make('account', readKey(target, 32))
      case 'logsSubscribe': {
        const mentions = (target as { mentions?: unknown } | undefined)?.mentions
        if (!Array.isArray(mentions)) {
          throw new InvalidParams(
            'Invalid params: the simulator follows logs by {"mentions":[address]} only.',
          )
        }
        if (mentions.length !== 1) throw new InvalidParams('Invalid Request: Only 1 address supported')
        return make('logs', readKey(mentions[0], 32))
      }
      case 'programSubscribe': {
        const subscription = make('program', readKey(target, 32))
        subscription.filters = readFilters((config as { filters?: unknown } | undefined)?.filters)
        return subscription
      }
      case 'signatureSubscribe': {
        const subscription = make('signature', readKey(target, 64))
        // a signature already in a block at the commitment is notified at the next look
        const slot = await simulator.transactionHeight(network, subscription.target)
        if (typeof slot === 'number') subscription.seen = Math.min(seen, slot - 1)
        return subscription
      }
      default:
        return undefined
    }
  }

  async function slotAt(network: string, commitment: Commitment): Promise<number> {
    if (commitment === 'finalized') return simulator.finalizedHeight(network)
    return (await simulator.head(network)).height
  }

  function ensurePolling(): void {
    if (timer !== undefined) return
    timer = setInterval(() => {
      if (polling) return
      polling = true
      poll()
        .catch(() => {})
        .finally(() => {
          polling = false
        })
    }, pollIntervalMs)
    timer.unref()
  }

  function stopPolling(): void {
    clearInterval(timer)
    timer = undefined
  }

  async function poll(): Promise<void> {
    const slots = new Map<string, number>()
    const blocks = new Map<string, { block: SimulatedBlock; transactions: SolanaTransaction[] }>()
    const read = async (network: string, slot: number) => {
      const key = `${network}/${slot}`
      const known = blocks.get(key)
      if (known) return known
      const [block] = await simulator.blockDetails(network, slot, slot)
      const found = block && { block, transactions: simulatedSolanaTransactions(block) }
      if (found) blocks.set(key, found)
      return found
    }
    for (const connection of connections) {
      for (const subscription of [...connection.subscriptions.values()]) {
        const key = `${connection.network}/${subscription.commitment}`
        const highest = slots.get(key) ?? (await slotAt(connection.network, subscription.commitment))
        slots.set(key, highest)
        while (subscription.seen < highest && connection.subscriptions.has(subscription.id)) {
          subscription.seen += 1
          const found = await read(connection.network, subscription.seen)
          if (found) notify(connection, subscription, found.block.height, found.transactions)
        }
      }
    }
  }

  function notify(
    connection: Connection,
    subscription: Subscription,
    slot: number,
    transactions: SolanaTransaction[],
  ): void {
    const context = { slot }
    const message = (method: string, value: unknown) =>
      send(connection, {
        jsonrpc: '2.0',
        method,
        params: { result: { context, value }, subscription: subscription.id },
      })
    if (subscription.kind === 'signature') {
      const transaction = transactions.find((candidate) => candidate.signature === subscription.target)
      if (transaction === undefined) return
      // one notification, then the subscription ends on its own
      connection.subscriptions.delete(subscription.id)
      message('signatureNotification', { err: transaction.err })
      return
    }
    const mentioning = transactions.filter((transaction) =>
      transaction.keys.some((key) => key.pubkey === subscription.target),
    )
    if (subscription.kind === 'logs') {
      for (const transaction of mentioning) {
        message('logsNotification', {
          err: transaction.err,
          logs: transaction.logMessages,
          signature: transaction.signature,
        })
      }
      return
    }
    if (subscription.kind === 'account') {
      // an account's notification carries its state after the slot, once however often it changed
      const last = mentioning.at(-1)
      if (last)
        message('accountNotification', accountStateAfter(last, subscription.target, subscription.encoding))
      return
    }
    // the program's accounts that changed in the slot and match the filters, each once, last state
    const changed = new Map<string, SolanaTransaction>()
    for (const transaction of transactions) {
      for (const { pubkey } of transaction.keys) {
        if (programAccount(transaction, pubkey, subscription)) changed.set(pubkey, transaction)
      }
    }
    for (const [pubkey, transaction] of changed) {
      message('programNotification', {
        account: accountStateAfter(transaction, pubkey, subscription.encoding),
        pubkey,
      })
    }
  }

  function send(connection: Connection, body: Json): void {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(nodeJson(body))
  }

  return {
    handleUpgrade(request, socket, head, network) {
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request, network))
    },
    dropConnections() {
      const dropped = connections.size
      for (const connection of connections) {
        connection.socket.terminate()
        // gone now, not when the socket's close event comes
        connections.delete(connection)
      }
      stopPolling()
      return dropped
    },
    subscriptionCount: () =>
      [...connections].reduce((count, connection) => count + connection.subscriptions.size, 0),
    async close() {
      stopPolling()
      // a normal closure, which web3.js does not reconnect after; sockets that do not answer it
      // are ended at once
      await Promise.all(
        [...connections].map(
          ({ socket }) =>
            new Promise<void>((resolve) => {
              const ended = setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_MS)
              socket.once('close', () => {
                clearTimeout(ended)
                resolve()
              })
              socket.close(1000, 'node stopping')
            }),
        ),
      )
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** whether a key of the transaction is an account of the subscription's program matching its filters */
function programAccount(transaction: SolanaTransaction, pubkey: string, subscription: Subscription): boolean {
  // only token accounts are simulated as program-owned accounts with data
  if (subscription.target !== TOKEN_PROGRAM_ID) return false
  const token = tokenHoldingAfter(transaction, pubkey)
  if (token === undefined) return false
  const data = tokenAccountData(token.mint, token.owner, BigInt(token.uiTokenAmount.amount))
  return subscription.filters.every((filter) => {
    if ('dataSize' in filter) return filter.dataSize === data.length
    const { offset, bytes } = filter.memcmp
    return offset + bytes.length <= data.length && bytes.every((byte, at) => data[offset + at] === byte)
  })
}

class InvalidParams extends Error {}

function readSettings(config: unknown): Pick<Subscription, 'commitment' | 'encoding'> {
  const { commitment, encoding } = (typeof config === 'object' && config !== null ? config : {}) as Json
  // a node's default commitment is finalized
  const level = commitment ?? 'finalized'
  if (level !== 'processed' && level !== 'confirmed' && level !== 'finalized') {
    throw new InvalidParams(`Invalid params: unknown variant \`${String(level)}\`.`)
  }
  const format = encoding ?? 'binary'
  if (format !== 'binary' && format !== 'base58' && format !== 'base64' && format !== 'jsonParsed') {
    throw new InvalidParams(`Invalid params: encoding ${String(encoding)} is not served by the simulator.`)
  }
  return { commitment: level, encoding: format }
}

function readFilters(filters: unknown): AccountFilter[] {
  if (filters === undefined) return []
  if (!Array.isArray(filters)) throw new InvalidParams('Invalid params: filters must be a list.')
  return filters.map((filter: Json): AccountFilter => {
    if (typeof filter?.dataSize === 'number') return { dataSize: filter.dataSize }
    const memcmp = filter?.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown } | undefined
    if (typeof memcmp?.offset === 'number' && typeof memcmp.bytes === 'string') {
      try {
        const bytes = memcmp.encoding === 'base64' ? base64.decode(memcmp.bytes) : base58.decode(memcmp.bytes)
        return { memcmp: { offset: memcmp.offset, bytes } }
      } catch {
        // answered below
      }
    }
    throw new InvalidParams('Invalid params: a filter is {"dataSize": n} or {"memcmp": {"offset", "bytes"}}.')
  })
}

function readKey(value: unknown, length: number): string {
  try {
    if (typeof value === 'string' && base58.decode(value).length === length) return value
  } catch {
    // not base58: answered below
  }
  throw new InvalidParams('Invalid Request: Invalid pubkey provided')
}

// A Solana node's websocket pubsub in front of the simulator: accountSubscribe, logsSubscribe
// (mentions one address), signatureSubscribe, programSubscribe (the token program's accounts, by
// dataSize and memcmp filters: how a watcher hears of any token account of an owner) and their
// unsubscribes, with notifications in the node's shapes (docs/chains.md, "Solana by address: what
// the simulator answers"). Like a node it replays nothing: a client that was disconnected lists what
// it missed with getSignaturesForAddress. What a subscription hears of each block, and how a new
// slot reaches only the subscriptions it concerns, is solana-block-subscriptions.ts's, shared with
// the simulator's in-process address reader. flush() and traffic() serve callers on a simulated
// clock (the call-budget benchmark): the timer runs on real time.
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { base58, base64 } from '@scure/base'
import { type WebSocket, WebSocketServer } from 'ws'
import type { ChainSimulator } from './simulator.js'
import { type AccountEncoding, accountStateAfter } from './solana-accounts.js'
import {
  type AccountFilter,
  type BlockNews,
  type BlockSubscription,
  createBlockFollower,
  type SubscriptionKind,
} from './solana-block-subscriptions.js'
import { slotAt } from './solana-node.js'
import { nodeJson } from './solana-rpc-blocks.js'

export interface SolanaPubsubOptions {
  simulator: ChainSimulator
  /** how often open subscriptions look for new blocks; default 25 ms */
  pollIntervalMs?: number
}

/** what crossed the sockets so far: how a caller on a simulated clock knows when they are quiet */
export interface SolanaPubsubTraffic {
  /** messages received from clients (subscribes, unsubscribes, pings) */
  received: number
  /** messages sent to clients (answers and notifications) */
  sent: number
  /** notifications among them */
  notifications: number
  /** subscriptions made over all connections, and the most open at once */
  subscribed: number
  peakSubscriptions: number
  /** connections opened */
  connections: number
}

export interface SolanaPubsub {
  /** takes over an HTTP upgrade for the pubsub of a simulated Solana network */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, network: string): void
  /**
   * ends every open connection without a closing handshake, as a node restart or a network fault
   * does (clients see code 1006 and reconnect); how tests exercise a client's reconnection
   */
  dropConnections(): number
  /**
   * while true, new connections are cut before their handshake (a node whose websocket is down
   * while its HTTP answers); what tests use to keep a client disconnected
   */
  refuseConnections(refuse: boolean): void
  /** the open subscriptions over all connections */
  subscriptionCount(): number
  /**
   * looks at the chain now, as the timer would, and resolves once every notification it made (and
   * every message sent before) is written to its socket: for callers whose clock is simulated
   */
  flush(): Promise<void>
  traffic(): SolanaPubsubTraffic
  close(): Promise<void>
}

type Json = Record<string, unknown>

interface Subscription extends BlockSubscription {
  id: number
  encoding: AccountEncoding
}

interface Connection {
  socket: WebSocket
  network: string
  subscriptions: Map<number, Subscription>
}

/** the largest message a node takes from a client */
const MAX_CLIENT_MESSAGE_BYTES = 4096
const CLOSE_HANDSHAKE_MS = 200
const UNSUBSCRIBE: Record<string, SubscriptionKind> = {
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
  let refusing = false
  let nextId = 1
  const follower = createBlockFollower(simulator, pollIntervalMs)
  const sending = new Set<Promise<void>>()
  const traffic: SolanaPubsubTraffic = {
    received: 0,
    sent: 0,
    notifications: 0,
    subscribed: 0,
    peakSubscriptions: 0,
    connections: 0,
  }

  server.on('connection', (socket: WebSocket, _request: IncomingMessage, network: string) => {
    const connection: Connection = { socket, network, subscriptions: new Map() }
    connections.add(connection)
    traffic.connections += 1
    follower.start()
    socket.on('message', (data) => {
      traffic.received += 1
      void onMessage(connection, String(data)).catch(() => socket.terminate())
    })
    socket.on('close', () => forget(connection))
    socket.on('error', () => socket.terminate())
  })

  function add(connection: Connection, subscription: Subscription): void {
    connection.subscriptions.set(subscription.id, subscription)
    follower.add(subscription)
    traffic.subscribed += 1
    traffic.peakSubscriptions = Math.max(traffic.peakSubscriptions, follower.size)
  }

  function remove(connection: Connection, subscription: Subscription): void {
    connection.subscriptions.delete(subscription.id)
    follower.remove(subscription)
  }

  /** a connection gone: its subscriptions with it */
  function forget(connection: Connection): void {
    if (!connections.delete(connection)) return
    for (const subscription of [...connection.subscriptions.values()]) remove(connection, subscription)
    if (connections.size === 0) follower.stop()
  }

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
        remove(connection, subscription)
        return reply({ result: true })
      }
      const subscription = await subscribe(connection, method, list)
      if (subscription === undefined) return reply({ error: { code: -32601, message: 'Method not found' } })
      // a socket closed while the subscription was made keeps none
      if (!connections.has(connection)) return
      add(connection, subscription)
      return reply({ result: subscription.id })
    } catch (error) {
      if (error instanceof InvalidParams) return reply({ error: { code: -32602, message: error.message } })
      throw error
    }
  }

  async function subscribe(connection: Connection, method: unknown, params: unknown[]) {
    const [target, config] = params
    const settings = readSettings(config)
    const make = async (kind: SubscriptionKind, watched: string, filters: AccountFilter[] = []) => {
      const id = nextId++
      const subscription: Subscription = {
        id,
        network: connection.network,
        kind,
        target: watched,
        filters,
        ...settings,
        seen: await slotAt({ simulator, network: connection.network }, settings.commitment),
        isOpen: () => connection.subscriptions.has(id),
        deliver: (slot, news) => notify(connection, subscription, slot, news),
      }
      return subscription
    }
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
      case 'programSubscribe':
        return make(
          'program',
          readKey(target, 32),
          readFilters((config as { filters?: unknown } | undefined)?.filters),
        )
      case 'signatureSubscribe':
        return make('signature', readKey(target, 64))
      default:
        return undefined
    }
  }

  function notify(connection: Connection, subscription: Subscription, slot: number, news: BlockNews[]): void {
    const context = { slot }
    const message = (method: string, value: unknown) => {
      traffic.notifications += 1
      send(connection, {
        jsonrpc: '2.0',
        method,
        params: { result: { context, value }, subscription: subscription.id },
      })
    }
    for (const item of news) {
      const { transaction } = item
      if (item.kind === 'signature') {
        // one notification, then the subscription ends on its own
        remove(connection, subscription)
        message('signatureNotification', { err: transaction.err })
      } else if (item.kind === 'logs') {
        message('logsNotification', {
          err: transaction.err,
          logs: transaction.logMessages,
          signature: transaction.signature,
        })
      } else if (item.kind === 'account') {
        message(
          'accountNotification',
          accountStateAfter(transaction, subscription.target, subscription.encoding),
        )
      } else {
        message('programNotification', {
          account: accountStateAfter(transaction, item.pubkey, subscription.encoding),
          pubkey: item.pubkey,
        })
      }
    }
  }

  function send(connection: Connection, body: Json): void {
    if (connection.socket.readyState !== connection.socket.OPEN) return
    traffic.sent += 1
    const sent = new Promise<void>((resolve) => connection.socket.send(nodeJson(body), () => resolve()))
    sending.add(sent)
    void sent.then(() => sending.delete(sent))
  }

  return {
    handleUpgrade(request, socket, head, network) {
      if (refusing) {
        socket.destroy()
        return
      }
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request, network))
    },
    refuseConnections(refuse) {
      refusing = refuse
    },
    dropConnections() {
      const dropped = connections.size
      for (const connection of [...connections]) {
        connection.socket.terminate()
        // gone now, not when the socket's close event comes
        forget(connection)
      }
      follower.stop()
      return dropped
    },
    subscriptionCount: () => follower.size,
    async flush() {
      await follower.poll()
      while (sending.size > 0) await Promise.all([...sending])
    },
    traffic: () => ({ ...traffic }),
    async close() {
      follower.stop()
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

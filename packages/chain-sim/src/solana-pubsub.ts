// A Solana node's websocket pubsub in front of the simulator: accountSubscribe, logsSubscribe
// (mentions one address), signatureSubscribe, programSubscribe (the token program's accounts, by
// dataSize and memcmp filters: how a watcher hears of any token account of an owner) and their
// unsubscribes, with notifications in the node's shapes (docs/chains.md, "Solana by address: what
// the simulator answers"). Like a node it replays nothing: a client that was disconnected lists what
// it missed with getSignaturesForAddress. The simulator has no event for a new block, so open
// subscriptions look at the chain every `pollIntervalMs`, or when flush() asks. Each new slot is read
// once per commitment and handed to the subscriptions it concerns (by account, signature or token
// owner), so that thousands of subscriptions cost nothing while nothing concerns them (the
// call-budget benchmark holds tens of thousands over a simulated week).
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

/** a subscription with its connection, as the index of what concerns it holds it */
interface Listener {
  connection: Connection
  subscription: Subscription
}

/** the subscriptions of one network at one commitment, and the last slot they were shown */
interface Audience {
  network: string
  commitment: Commitment
  /** slots up to this one were looked at for every subscription of this audience */
  polled: number
  size: number
}

/** the largest message a node takes from a client */
const MAX_CLIENT_MESSAGE_BYTES = 4096
const CLOSE_HANDSHAKE_MS = 200
/** blocks read at once while a slot range is shown to the subscriptions */
const BLOCKS_PER_READ = 256
/** where an SPL token account holds its owner: a programSubscribe memcmp filter there names it */
const OWNER_OFFSET = 32
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
  let polling: Promise<void> | undefined
  /** by account, signature or `owner:<token owner>`: the subscriptions a slot touching it concerns */
  const index = new Map<string, Set<Listener>>()
  /** program subscriptions without a token owner filter: every slot with token accounts concerns them */
  const unindexed = new Set<Listener>()
  const audiences = new Map<string, Audience>()
  /** subscriptions made below their audience's polled slot (a signature already in a block) */
  const behind = new Set<Listener>()
  const listeners = new Map<Subscription, Listener>()
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
    ensurePolling()
    socket.on('message', (data) => {
      traffic.received += 1
      void onMessage(connection, String(data)).catch(() => socket.terminate())
    })
    socket.on('close', () => forget(connection))
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
        remove(connection, subscription)
        return reply({ result: true })
      }
      const subscription = await subscribe(connection.network, method, list)
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

  /** the index keys under which a slot concerns the subscription; none: every slot may */
  function keysOf(subscription: Subscription): string[] {
    if (subscription.kind !== 'program') return [subscription.target]
    const owner = subscription.filters.find(
      (filter) =>
        'memcmp' in filter && filter.memcmp.offset === OWNER_OFFSET && filter.memcmp.bytes.length === 32,
    )
    return owner === undefined || !('memcmp' in owner) ? [] : [`owner:${base58.encode(owner.memcmp.bytes)}`]
  }

  function add(connection: Connection, subscription: Subscription): void {
    connection.subscriptions.set(subscription.id, subscription)
    const listener: Listener = { connection, subscription }
    listeners.set(subscription, listener)
    const keys = keysOf(subscription)
    if (keys.length === 0) unindexed.add(listener)
    for (const key of keys) {
      const set = index.get(key) ?? new Set<Listener>()
      set.add(listener)
      index.set(key, set)
    }
    const name = audienceKey(connection.network, subscription.commitment)
    const audience = audiences.get(name)
    if (audience === undefined) {
      audiences.set(name, {
        network: connection.network,
        commitment: subscription.commitment,
        polled: subscription.seen,
        size: 1,
      })
    } else {
      audience.size += 1
      if (subscription.seen < audience.polled) behind.add(listener)
    }
    traffic.subscribed += 1
    traffic.peakSubscriptions = Math.max(traffic.peakSubscriptions, listeners.size)
  }

  function remove(connection: Connection, subscription: Subscription): void {
    if (!connection.subscriptions.delete(subscription.id)) return
    const listener = listeners.get(subscription)
    listeners.delete(subscription)
    if (listener === undefined) return
    unindexed.delete(listener)
    behind.delete(listener)
    for (const key of keysOf(subscription)) {
      const set = index.get(key)
      set?.delete(listener)
      if (set?.size === 0) index.delete(key)
    }
    const name = audienceKey(connection.network, subscription.commitment)
    const audience = audiences.get(name)
    if (audience !== undefined && --audience.size === 0) audiences.delete(name)
  }

  function forget(connection: Connection): void {
    if (!connections.delete(connection)) return
    for (const subscription of [...connection.subscriptions.values()]) remove(connection, subscription)
    if (connections.size === 0) stopPolling()
  }

  function ensurePolling(): void {
    if (timer !== undefined) return
    timer = setInterval(() => {
      if (polling !== undefined) return
      void pollOnce()
    }, pollIntervalMs)
    timer.unref()
  }

  function stopPolling(): void {
    clearInterval(timer)
    timer = undefined
  }

  function pollOnce(): Promise<void> {
    polling ??= poll()
      .catch(() => {})
      .finally(() => {
        polling = undefined
      })
    return polling
  }

  async function poll(): Promise<void> {
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
    // one by one, the few made below what their audience was shown: up to it
    for (const listener of [...behind]) {
      behind.delete(listener)
      const { connection, subscription } = listener
      const audience = audiences.get(audienceKey(connection.network, subscription.commitment))
      const through = audience?.polled ?? subscription.seen
      while (subscription.seen < through && connection.subscriptions.has(subscription.id)) {
        subscription.seen += 1
        const found = await read(connection.network, subscription.seen)
        if (found) notify(connection, subscription, found.block.height, found.transactions)
      }
    }
    for (const audience of [...audiences.values()]) {
      const highest = await slotAt(audience.network, audience.commitment)
      for (let first = audience.polled + 1; first <= highest; first += BLOCKS_PER_READ) {
        const last = Math.min(highest, first + BLOCKS_PER_READ - 1)
        for (const block of await simulator.blockDetails(audience.network, first, last)) {
          if (block.transactions.length > 0) show(audience, block, simulatedSolanaTransactions(block))
        }
        audience.polled = last
      }
    }
  }

  /** a slot to the subscriptions of the audience it concerns, each once */
  function show(audience: Audience, block: SimulatedBlock, transactions: SolanaTransaction[]): void {
    const concerned = new Set<Listener>(unindexed)
    const consider = (key: string) => {
      for (const listener of index.get(key) ?? []) concerned.add(listener)
    }
    for (const transaction of transactions) {
      consider(transaction.signature)
      for (const { pubkey } of transaction.keys) consider(pubkey)
      for (const balance of transaction.postTokenBalances) consider(`owner:${String(balance.owner)}`)
    }
    for (const { connection, subscription } of concerned) {
      if (connection.network !== audience.network || subscription.commitment !== audience.commitment) continue
      if (subscription.seen >= block.height || !connection.subscriptions.has(subscription.id)) continue
      notify(connection, subscription, block.height, transactions)
    }
  }

  function notify(
    connection: Connection,
    subscription: Subscription,
    slot: number,
    transactions: SolanaTransaction[],
  ): void {
    const context = { slot }
    const message = (method: string, value: unknown) => {
      traffic.notifications += 1
      send(connection, {
        jsonrpc: '2.0',
        method,
        params: { result: { context, value }, subscription: subscription.id },
      })
    }
    if (subscription.kind === 'signature') {
      const transaction = transactions.find((candidate) => candidate.signature === subscription.target)
      if (transaction === undefined) return
      // one notification, then the subscription ends on its own
      remove(connection, subscription)
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
    if (connection.socket.readyState !== connection.socket.OPEN) return
    traffic.sent += 1
    const sent = new Promise<void>((resolve) => connection.socket.send(nodeJson(body), () => resolve()))
    sending.add(sent)
    void sent.then(() => sending.delete(sent))
  }

  return {
    handleUpgrade(request, socket, head, network) {
      server.handleUpgrade(request, socket, head, (ws) => server.emit('connection', ws, request, network))
    },
    dropConnections() {
      const dropped = connections.size
      for (const connection of [...connections]) {
        connection.socket.terminate()
        // gone now, not when the socket's close event comes
        forget(connection)
      }
      stopPolling()
      return dropped
    },
    subscriptionCount: () => listeners.size,
    async flush() {
      await polling
      await pollOnce()
      while (sending.size > 0) await Promise.all([...sending])
    },
    traffic: () => ({ ...traffic }),
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

function audienceKey(network: string, commitment: Commitment): string {
  return `${network}/${commitment}`
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

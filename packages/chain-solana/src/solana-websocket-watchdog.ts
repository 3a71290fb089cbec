// web3.js 1.99 sends a `ping` notification over its websocket every 5 s and never looks for an
// answer: a socket whose peer has gone silent (half-open: the TCP connection still up and nothing
// coming back; a provider that dropped it without closing it) stays "open" for good, subscriptions
// deliver nothing, the address reader says it is connected, and the watcher's 15 s listings never
// start (docs/chains.md, "Solana by address: the watcher"). Decisions 19 asks for such a socket to
// be found within 30 s.
//
// The watchdog pings at the websocket level (a ping frame, which every RFC 6455 server answers with
// a pong; agave's pubsub, over soketto, answers it before anything else) every `pingIntervalMs`, and
// terminates a socket that has not answered the previous ping by the next one: found within two
// intervals (20 s by default). web3.js sees the socket close, connects again a second later and
// makes its subscriptions again; the 'open' event it raises is what the address reader's onConnect
// listeners hear, so the watcher reconciles. A handshake that does not complete within the interval
// is abandoned the same way. And after a connection that failed or went silent, the next one goes to
// the next endpoint's websocket (`wsUrls`, the network's endpoints in order): a node whose websocket
// is down does not keep the watcher on its slower listings while another node's answers.
import type { Connection } from '@solana/web3.js'

export interface SolanaWebsocketWatchdogOptions {
  /** the network's websockets, in the order of its endpoints: the first is web3.js's own */
  wsUrls: readonly string[]
  /** how often an open socket is pinged, and how long a handshake may take; default 10 s */
  pingIntervalMs?: number | undefined
}

export const DEFAULT_WEBSOCKET_PING_INTERVAL_MS = 10_000

const CONNECTING = 0
const OPEN = 1

/** the part of the `ws` WebSocket that rpc-websockets (web3.js's websocket client) creates */
interface NodeWebSocket {
  readonly readyState: number
  ping(): void
  terminate(): void
  on(event: 'pong', listener: () => void): void
  once(event: 'open' | 'close', listener: () => void): void
}

/** the part of web3.js's private rpc-websockets client the watchdog uses */
interface WebsocketClient {
  /** the current socket, while there is one */
  socket?: NodeWebSocket | undefined
  on(event: 'open', listener: () => void): void
  /** makes each socket; rpc-websockets calls it with the address it was made with, at every (re)connect */
  webSocketFactory: (address: string, options: unknown) => NodeWebSocket
}

export function startSolanaWebsocketWatchdog(
  connection: Connection,
  options: SolanaWebsocketWatchdogOptions,
): void {
  const client = (connection as unknown as { _rpcWebSocket: WebsocketClient })._rpcWebSocket
  const intervalMs = options.pingIntervalMs ?? DEFAULT_WEBSOCKET_PING_INTERVAL_MS
  const { wsUrls } = options
  let current = 0
  /** the latest socket never opened, or went silent: the next one goes to the next endpoint */
  let failed = false

  const create = client.webSocketFactory
  client.webSocketFactory = (address, socketOptions) => {
    if (failed) current = (current + 1) % wsUrls.length
    failed = true
    const socket = create(wsUrls[current] ?? address, socketOptions)
    const handshake = setTimeout(
      () => afterPendingInput(() => socket.readyState === CONNECTING && socket.terminate()),
      intervalMs,
    )
    handshake.unref()
    socket.once('open', () => {
      failed = false
      clearTimeout(handshake)
    })
    socket.once('close', () => clearTimeout(handshake))
    return socket
  }

  client.on('open', () => {
    const socket = client.socket
    if (socket === undefined) return
    let answered = true
    socket.on('pong', () => {
      answered = true
    })
    const pings = setInterval(() => {
      if (socket.readyState !== OPEN) return
      if (!answered) {
        afterPendingInput(() => {
          if (answered || socket.readyState !== OPEN) return
          failed = true
          socket.terminate()
        })
        return
      }
      answered = false
      socket.ping()
    }, intervalMs)
    pings.unref()
    socket.once('close', () => clearInterval(pings))
  })
}

/**
 * `decide` once what has arrived is read: a timer runs before the input of the same turn of the event
 * loop, so after a turn that took long (a busy process) a pong, or the handshake's answer, may be
 * waiting unread while the timer says it is late
 */
function afterPendingInput(decide: () => void): void {
  setImmediate(decide)
}

/**
 * The websocket web3.js derives from an RPC URL: the ws scheme for http, wss for https, and the
 * port + 1 where the URL names one (where a validator listens for it)
 */
export function defaultWebsocketUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  if (url.port !== '') url.port = String(Number(url.port) + 1)
  return url.toString()
}

// What a Solana watcher that follows the accounts of open payments reads from a node, instead of
// whole blocks (docs/chains.md, "Solana by address"): the signatures of an account since the last
// one seen (getSignaturesForAddress), a transaction's transfers with the owner of each receiving
// account (getTransaction), statuses in batches (getSignatureStatuses), an owner's token accounts
// (getTokenAccountsByOwner), and websocket subscriptions that say when an account was touched
// (logsSubscribe) or when any token account of an owner changed (programSubscribe of the token
// program, filtered on the owner): the only way to hear of an SPL payment to a token account of
// the owner other than the associated one (decisions 16). The watcher that decides what to read
// when is @chainpay/chain-indexer's solana-address-watcher.ts.
import type { AssetRegistry } from '@chainpay/domain'
import type { ChainTransfer } from '@chainpay/ports'
import { type Connection, PublicKey } from '@solana/web3.js'
import { interruptSolanaCalls } from './solana-connection.js'
import { endpointOrigin, redactorFor, toChainRpcError } from './solana-rpc-errors.js'
import {
  type SolanaTransactionWithMeta,
  solanaTransferFilter,
  solanaTransfersOf,
} from './solana-transfers.js'

export interface SolanaAddressReaderOptions {
  network: string
  registry: AssetRegistry
  /** the caller's Connection, with its `wsEndpoint` where the node's websocket is not at port + 1 */
  connection: Connection
}

/** a transaction that holds the account, as getSignaturesForAddress lists it */
export interface AddressActivity {
  signature: string
  slot: number
  failed: boolean
}

/** a transfer of a transaction, with the owner of its receiving account */
export interface OwnedTransfer extends ChainTransfer {
  /** SOL: the receiving account itself; SPL: the token account's owner (any token account of it) */
  owner: string
}

export interface AddressTransaction {
  txHash: string
  slot: number
  blockTime: string
  transfers: OwnedTransfer[]
}

export interface SignatureState {
  slot: number
  finalized: boolean
  failed: boolean
}

/** the newest confirmed slot and its block time: how far the chain has come */
export interface SolanaChainTime {
  slot: number
  blockTime: string
}

export interface SolanaAddressReader {
  /** getSlot and getBlockTime at confirmed: what a watcher that listed every account after it has seen */
  chainTime(): Promise<SolanaChainTime>
  /**
   * the node's first available block and its time (getFirstAvailableBlock, getBlockTime): a node
   * started from a snapshot lists nothing older
   */
  firstAvailable(): Promise<SolanaChainTime>
  /**
   * the transactions holding `address` after `until` (exclusive; null: all the node has), oldest
   * first, at confirmed: one getSignaturesForAddress per 1,000
   */
  activitySince(address: string, until: string | null): Promise<AddressActivity[]>
  /** one getTransaction: the transfers it makes; null while the node does not hold it (confirmed) */
  transaction(signature: string): Promise<AddressTransaction | null>
  /** getSignatureStatuses in batches of 256, history included; null: the node does not know it */
  statuses(signatures: readonly string[]): Promise<Map<string, SignatureState | null>>
  /**
   * calls `listener` with the signature of each transaction that mentions `address` (logsSubscribe,
   * confirmed); the function it returns ends the subscription. Nothing is replayed after a
   * reconnect: the watcher lists what it missed with activitySince.
   */
  onActivity(address: string, listener: (signature: string) => void): () => Promise<void>
  /**
   * calls `listener` once, when the transaction is finalized (signatureSubscribe, finalized), with
   * whether it failed; the function it returns ends the subscription before then
   */
  onFinalized(signature: string, listener: (failed: boolean) => void): () => Promise<void>
  /**
   * calls `listener` each time the websocket (re)opens: notifications sent while it was closed are
   * lost (the node replays nothing), so the watcher lists every followed account again
   */
  onConnect(listener: () => void): () => void
  /** whether the websocket is open: while it is not, notifications are lost */
  connected(): boolean
  /**
   * at stop, once every subscription was ended: where the websocket is down, web3.js would retry
   * it forever (and keep the process alive) for unsubscriptions nobody needs any more; it stops
   * retrying. A later subscription opens the websocket again.
   */
  release(): void
  /**
   * at stop: the HTTP calls in flight, and those made until the function it returns is called, fail
   * at once rather than wait for a node that does not answer (interruptSolanaCalls)
   */
  interruptCalls(): () => void

  /** the token accounts of `owner` for `mint` (getTokenAccountsByOwner), the associated one among them */
  tokenAccountsOf(owner: string, mint: string): Promise<string[]>
  /**
   * calls `listener` with each token account of `owner` for `mint` that changed (programSubscribe,
   * confirmed); the function it returns ends the subscription
   */
  onTokenAccountChange(
    owner: string,
    mint: string,
    listener: (tokenAccount: string) => void,
  ): () => Promise<void>
}

/** the part of web3.js's private websocket client that onConnect uses */
interface WebsocketEvents {
  on(event: 'open', listener: () => void): void
  on(event: 'close', listener: (code: number) => void): void
  off(event: 'open', listener: () => void): void
  /** the underlying socket while there is one */
  socket?: { readyState: number }
  setAutoReconnect(reconnect: boolean): void
  /** closes the socket, also one still connecting (its handshake is abandoned) */
  close(code?: number): void
  /** the reconnection rpc-websockets has scheduled, if any */
  reconnect_timer_id?: ReturnType<typeof setTimeout>
  /** one JSON-RPC call over the socket: what web3.js subscribes and unsubscribes with */
  call(method: string, params?: unknown): Promise<unknown>
}

const WEBSOCKET_OPEN = 1
const NORMAL_CLOSURE = 1000
/** how long a failed websocket call waits before web3.js hears of it (pauseFailedCalls) */
const FAILED_CALL_PAUSE_MS = 250
/** the sockets whose calls pauseFailedCalls wrapped already */
const pausedSockets = new WeakSet<WebsocketEvents>()

/**
 * web3.js 1.99 tries a subscription again as soon as its call fails, in a chain of promises that
 * never yields to the event loop, until the socket's close event says the connection is gone: a
 * call refused by a socket that is closing (web3.js closes an idle one itself, a node may close it)
 * or an error answer from the node repeats without end, and memory grows until the process dies.
 * A failed call is reported a little later here, once the event loop has turned: the close event
 * ends the retries, and a node that refuses a subscription is asked again four times a second, not
 * without pause.
 */
function pauseFailedCalls(socket: WebsocketEvents): void {
  if (pausedSockets.has(socket)) return
  pausedSockets.add(socket)
  const call = socket.call.bind(socket)
  socket.call = async (method, params) => {
    try {
      return await call(method, params)
    } catch (error) {
      await new Promise((resume) => setTimeout(resume, FAILED_CALL_PAUSE_MS))
      throw error
    }
  }
}

function websocketOf(connection: Connection): WebsocketEvents {
  return (connection as unknown as { _rpcWebSocket: WebsocketEvents })._rpcWebSocket
}

/** the part of web3.js's private Connection state that keepSubscriptionsAfterNormalClosure resets */
interface Web3Subscriptions {
  _subscriptionsByHash: Record<string, { state: string }>
  _subscriptionCallbacksByServerSubscriptionId: Record<string, unknown>
  _setSubscription(hash: string, next: { state: string }): void
}

/**
 * After a normal closure (code 1000: a node that closes it, web3.js's own idle close), web3.js 1.99
 * opens the socket again but keeps the subscriptions as they were, "subscribed" on a connection
 * that is gone: none is made again, and no notification comes any more. Every other close has them
 * made again on the next connection; this makes a normal closure do the same.
 */
function keepSubscriptionsAfterNormalClosure(connection: Connection, socket: WebsocketEvents): void {
  socket.on('close', (code) => {
    if (code !== NORMAL_CLOSURE) return
    // web3.js's own close handler ran first (it was registered when the connection was made)
    const web3 = connection as unknown as Web3Subscriptions
    web3._subscriptionCallbacksByServerSubscriptionId = {}
    for (const [hash, subscription] of Object.entries(web3._subscriptionsByHash)) {
      web3._setSubscription(hash, { ...subscription, state: 'pending' })
    }
  })
}

const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
/** an SPL token account's size, and where its mint and owner sit in it */
const TOKEN_ACCOUNT_SIZE = 165
const MINT_OFFSET = 0
const OWNER_OFFSET = 32

/** what one getSignaturesForAddress call lists at most */
const SIGNATURES_PER_PAGE = 1000
/** what one getSignatureStatuses call takes at most */
const STATUSES_PER_CALL = 256

export function createSolanaAddressReader(options: SolanaAddressReaderOptions): SolanaAddressReader {
  const { network, connection } = options
  const filter = solanaTransferFilter(options.registry, network)
  const redact = redactorFor(connection.rpcEndpoint)
  const where = `${network} at ${endpointOrigin(connection.rpcEndpoint)}`

  async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw toChainRpcError(error, `Solana ${method} on ${where}`, redact)
    }
  }

  /**
   * Unsubscriptions wait for an open websocket: web3.js 1.99 retries an unsubscription that fails on
   * a closed socket at once, in a loop that never yields to the close event that would end it.
   * Deferred ones run on the next (re)open, when web3.js has the subscriptions again.
   */
  const deferred: Array<() => Promise<void>> = []
  const socket = websocketOf(connection)
  pauseFailedCalls(socket)
  keepSubscriptionsAfterNormalClosure(connection, socket)
  socket.on('open', () => {
    socket.setAutoReconnect(true)
    for (const remove of deferred.splice(0)) remove().catch(() => {})
  })
  const whenOpen = (remove: () => Promise<void>) => async () => {
    if (socket.socket?.readyState === WEBSOCKET_OPEN) return remove()
    deferred.push(remove)
  }

  async function blockTimeOf(slot: number): Promise<string> {
    const time = await call('getBlockTime', () => connection.getBlockTime(slot))
    if (time === null)
      throw toChainRpcError(
        new Error(`no block time for slot ${slot}`),
        `Solana getBlockTime on ${where}`,
        redact,
      )
    return new Date(time * 1000).toISOString()
  }

  return {
    async chainTime() {
      const slot = await call('getSlot', () => connection.getSlot('confirmed'))
      return { slot, blockTime: await blockTimeOf(slot) }
    },

    async firstAvailable() {
      const slot = await call('getFirstAvailableBlock', () => connection.getFirstAvailableBlock())
      return { slot, blockTime: await blockTimeOf(slot) }
    },

    async activitySince(address, until) {
      const account = new PublicKey(address)
      const found: AddressActivity[] = []
      let before: string | undefined
      for (;;) {
        const page = await call('getSignaturesForAddress', () =>
          connection.getSignaturesForAddress(
            account,
            { limit: SIGNATURES_PER_PAGE, ...(before ? { before } : {}), ...(until ? { until } : {}) },
            'confirmed',
          ),
        )
        found.push(
          ...page.map((item) => ({ signature: item.signature, slot: item.slot, failed: item.err !== null })),
        )
        if (page.length < SIGNATURES_PER_PAGE) break
        before = page.at(-1)?.signature
      }
      return found.reverse()
    },

    async transaction(signature) {
      const read = await call('getTransaction', () =>
        connection.getParsedTransaction(signature, {
          commitment: 'confirmed',
          maxSupportedTransactionVersion: 0,
        }),
      )
      if (read === null) return null
      const keys = read.transaction.message.accountKeys.map((key) => key.pubkey.toBase58())
      const owners = new Map<string, string>()
      for (const balance of [
        ...(read.meta?.preTokenBalances ?? []),
        ...(read.meta?.postTokenBalances ?? []),
      ]) {
        const key = keys[balance.accountIndex]
        if (key !== undefined && balance.owner !== undefined) owners.set(key, balance.owner)
      }
      let transfers: ChainTransfer[]
      try {
        transfers = solanaTransfersOf(read as unknown as SolanaTransactionWithMeta, filter)
      } catch (error) {
        throw toChainRpcError(error, `Solana transaction ${signature} on ${where}`, redact)
      }
      return {
        txHash: signature,
        slot: read.slot,
        blockTime: new Date((read.blockTime ?? 0) * 1000).toISOString(),
        transfers: transfers.map((transfer) => ({
          ...transfer,
          owner: transfer.asset.kind === 'native' ? transfer.to : (owners.get(transfer.to) ?? transfer.to),
        })),
      }
    },

    async statuses(signatures) {
      const states = new Map<string, SignatureState | null>()
      for (let first = 0; first < signatures.length; first += STATUSES_PER_CALL) {
        const batch = signatures.slice(first, first + STATUSES_PER_CALL)
        const { value } = await call('getSignatureStatuses', () =>
          connection.getSignatureStatuses([...batch], { searchTransactionHistory: true }),
        )
        for (const [position, signature] of batch.entries()) {
          const status = value[position]
          states.set(
            signature,
            status === null || status === undefined
              ? null
              : {
                  slot: status.slot,
                  finalized: status.confirmationStatus === 'finalized',
                  failed: status.err !== null,
                },
          )
        }
      }
      return states
    },

    onActivity(address, listener) {
      const id = connection.onLogs(new PublicKey(address), (logs) => listener(logs.signature), 'confirmed')
      return whenOpen(() => connection.removeOnLogsListener(id))
    },

    onFinalized(signature, listener) {
      const id = connection.onSignature(signature, (result) => listener(result.err !== null), 'finalized')
      return whenOpen(() => connection.removeSignatureListener(id))
    },

    onConnect(listener) {
      // web3.js resubscribes by itself after a reconnect but says nothing of it; its websocket
      // client (rpc-websockets) emits 'open' on every (re)connection
      socket.on('open', listener)
      return () => {
        socket.off('open', listener)
      }
    },

    connected() {
      return socket.socket?.readyState === WEBSOCKET_OPEN
    },

    interruptCalls: () => interruptSolanaCalls(connection),

    release() {
      if (socket.socket?.readyState === WEBSOCKET_OPEN) return
      deferred.length = 0
      socket.setAutoReconnect(false)
      clearTimeout(socket.reconnect_timer_id)
      // a handshake that never completes (an endpoint that accepts the connection and says nothing)
      // would keep the process alive: abandon it
      if (socket.socket !== undefined) socket.close()
    },

    async tokenAccountsOf(owner, mint) {
      const { value } = await call('getTokenAccountsByOwner', () =>
        connection.getTokenAccountsByOwner(new PublicKey(owner), { mint: new PublicKey(mint) }, 'confirmed'),
      )
      return value.map(({ pubkey }) => pubkey.toBase58())
    },

    onTokenAccountChange(owner, mint, listener) {
      const id = connection.onProgramAccountChange(
        TOKEN_PROGRAM_ID,
        ({ accountId }) => listener(accountId.toBase58()),
        {
          commitment: 'confirmed',
          filters: [
            { dataSize: TOKEN_ACCOUNT_SIZE },
            { memcmp: { offset: MINT_OFFSET, bytes: mint } },
            { memcmp: { offset: OWNER_OFFSET, bytes: owner } },
          ],
        },
      )
      return whenOpen(() => connection.removeProgramAccountChangeListener(id))
    },
  }
}

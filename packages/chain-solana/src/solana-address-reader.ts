// The Solana address reader (packages/ports, solana-address-reader.ts) through @solana/web3.js:
// what the watcher that follows the accounts of payments reads from a node instead of whole blocks
// (docs/chains.md, "Solana by address"): signatures of an account since the last one seen
// (getSignaturesForAddress), a transaction's transfers with the owner of each receiving account
// (getTransaction), statuses in batches (getSignatureStatuses), accounts in batches
// (getMultipleAccounts), and websocket subscriptions that say when an account was touched
// (logsSubscribe) or when any token account of an owner changed (programSubscribe of the token
// program, filtered on the owner): the only way to hear of a payment to a token account of the owner
// other than the associated one (decisions 16). The watcher that decides what to read when is
// @chainpay/chain-indexer's solana-address-watcher.ts.
import type { AssetRegistry } from '@chainpay/domain'
import {
  type AccountState,
  type AddressActivity,
  type ChainTransfer,
  type SignatureState,
  type SolanaAddressReader,
  type SolanaTransactionWithMeta,
  solanaTransferFilter,
  solanaTransfersOf,
} from '@chainpay/ports'
import { type Connection, PublicKey } from '@solana/web3.js'
import { interruptSolanaCalls } from './solana-connection.js'
import { endpointOrigin, redactorFor, toChainRpcError } from './solana-rpc-errors.js'

export interface SolanaAddressReaderOptions {
  network: string
  registry: AssetRegistry
  /** the caller's Connection, with its `wsEndpoint` where the node's websocket is not at port + 1 */
  connection: Connection
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
/** an SPL token account's size, and where its mint, owner and amount sit in it */
const TOKEN_ACCOUNT_SIZE = 165
const MINT_OFFSET = 0
const OWNER_OFFSET = 32
const AMOUNT_OFFSET = 64

/** what one getSignaturesForAddress call lists at most */
const SIGNATURES_PER_PAGE = 1000
/** what one getSignatureStatuses call takes at most */
const STATUSES_PER_CALL = 256
/** what one getMultipleAccounts call takes at most */
const ACCOUNTS_PER_CALL = 100

/** what getMultipleAccounts shows of an account: a token account's mint and amount when it is one */
function accountStateOf(info: { lamports: number; owner: PublicKey; data: Buffer }): AccountState {
  const isToken = info.owner.equals(TOKEN_PROGRAM_ID) && info.data.length === TOKEN_ACCOUNT_SIZE
  return {
    lamports: BigInt(info.lamports),
    program: info.owner.toBase58(),
    token: isToken
      ? {
          mint: new PublicKey(info.data.subarray(MINT_OFFSET, MINT_OFFSET + 32)).toBase58(),
          amount: info.data.readBigUInt64LE(AMOUNT_OFFSET),
        }
      : null,
  }
}

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
    network,

    async chainTime() {
      const slot = await call('getSlot', () => connection.getSlot('confirmed'))
      return { slot, blockTime: await blockTimeOf(slot) }
    },

    async firstAvailable() {
      const slot = await call('getFirstAvailableBlock', () => connection.getFirstAvailableBlock())
      return { slot, blockTime: await blockTimeOf(slot) }
    },

    async activitySince(address, until, options = {}) {
      const account = new PublicKey(address)
      const found: AddressActivity[] = []
      let before: string | undefined
      for (;;) {
        const page = await call('getSignaturesForAddress', () =>
          connection.getSignaturesForAddress(
            account,
            {
              limit: SIGNATURES_PER_PAGE,
              ...(before ? { before } : {}),
              ...(until ? { until } : {}),
              ...(options.minContextSlot === undefined ? {} : { minContextSlot: options.minContextSlot }),
            },
            'confirmed',
          ),
        )
        found.push(
          ...page.map((item) => ({
            signature: item.signature,
            slot: item.slot,
            blockTime:
              item.blockTime === null || item.blockTime === undefined
                ? null
                : new Date(item.blockTime * 1000).toISOString(),
            failed: item.err !== null,
          })),
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
        transfers,
      }
    },

    async statuses(signatures) {
      const states = new Map<string, SignatureState | null>()
      let contextSlot = Number.POSITIVE_INFINITY
      for (let first = 0; first < signatures.length; first += STATUSES_PER_CALL) {
        const batch = signatures.slice(first, first + STATUSES_PER_CALL)
        const { context, value } = await call('getSignatureStatuses', () =>
          connection.getSignatureStatuses([...batch], { searchTransactionHistory: true }),
        )
        // the lowest slot any batch was answered at: what the whole answer can speak for
        contextSlot = Math.min(contextSlot, context.slot)
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
      return { contextSlot: Number.isFinite(contextSlot) ? contextSlot : 0, states }
    },

    async accounts(addresses, options = {}) {
      const states = new Map<string, AccountState | null>()
      let contextSlot = Number.POSITIVE_INFINITY
      for (let first = 0; first < addresses.length; first += ACCOUNTS_PER_CALL) {
        const batch = addresses.slice(first, first + ACCOUNTS_PER_CALL)
        const { context, value } = await call('getMultipleAccounts', () =>
          connection.getMultipleAccountsInfoAndContext(
            batch.map((address) => new PublicKey(address)),
            {
              commitment: 'confirmed',
              ...(options.minContextSlot === undefined ? {} : { minContextSlot: options.minContextSlot }),
            },
          ),
        )
        contextSlot = Math.min(contextSlot, context.slot)
        for (const [position, address] of batch.entries()) {
          const info = value[position]
          states.set(address, info === null || info === undefined ? null : accountStateOf(info))
        }
      }
      return { contextSlot: Number.isFinite(contextSlot) ? contextSlot : 0, states }
    },

    async tokenAccountsOf(owner) {
      const { value } = await call('getTokenAccountsByOwner', () =>
        connection.getTokenAccountsByOwner(
          new PublicKey(owner),
          { programId: TOKEN_PROGRAM_ID },
          'confirmed',
        ),
      )
      return value.map(({ pubkey }) => pubkey.toBase58())
    },

    onActivity(address, listener) {
      const id = connection.onLogs(
        new PublicKey(address),
        (logs, context) => listener(logs.signature, context.slot),
        'confirmed',
      )
      return whenOpen(() => connection.removeOnLogsListener(id))
    },

    onFinalized(signature, listener) {
      const id = connection.onSignature(
        signature,
        (result, context) => listener({ failed: result.err !== null, slot: context.slot }),
        'finalized',
      )
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

    onTokenAccountChange(owner, listener) {
      const id = connection.onProgramAccountChange(
        TOKEN_PROGRAM_ID,
        ({ accountId, accountInfo }, context) => {
          const mint = new PublicKey(accountInfo.data.subarray(MINT_OFFSET, MINT_OFFSET + 32)).toBase58()
          listener(accountId.toBase58(), mint, context.slot)
        },
        {
          commitment: 'confirmed',
          filters: [{ dataSize: TOKEN_ACCOUNT_SIZE }, { memcmp: { offset: OWNER_OFFSET, bytes: owner } }],
        },
      )
      return whenOpen(() => connection.removeProgramAccountChangeListener(id))
    },
  }
}

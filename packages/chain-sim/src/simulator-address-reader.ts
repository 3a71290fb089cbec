// The Solana address reader (packages/ports, solana-address-reader.ts) over the chain simulator in
// process: no HTTP, no websocket, for a watcher or a benchmark next to a simulator. It reads what
// the simulated node knows as its JSON-RPC routes answer it (solana-node.ts), a transaction's
// transfers from the node's jsonParsed rendering of it with the ports' solanaTransfersOf, and its
// subscriptions follow new blocks as the node's pubsub does (solana-block-subscriptions.ts): what it
// reports is what @solana/web3.js reports against the simulator node, which the port's contract
// suite proves for both.
import type { AssetRegistry } from '@chainpay/domain'
import {
  type AccountState,
  ChainRpcError,
  type ChainRpcFailure,
  type SignatureState,
  type SolanaAddressReader,
  type SolanaTransactionWithMeta,
  solanaTransferFilter,
  solanaTransfersOf,
} from '@chainpay/ports'
import { base58 } from '@scure/base'
import type { ChainSimulator } from './simulator.js'
import { TOKEN_ACCOUNT_SPACE, tokenHoldingAfter } from './solana-accounts.js'
import {
  type AccountFilter,
  type BlockNews,
  type BlockSubscription,
  createBlockFollower,
  type SubscriptionKind,
} from './solana-block-subscriptions.js'
import {
  accountExists,
  blockTimeAt,
  type Commitment,
  contextSlotAt,
  type SolanaNode,
  signatureStatuses,
  signaturesForAddress,
  slotAt,
  transactionAt,
} from './solana-node.js'
import {
  renderSolanaTransaction,
  SolanaRpcError,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from './solana-rpc-blocks.js'

export interface SimulatorAddressReaderOptions {
  simulator: ChainSimulator
  /** a simulated Solana network */
  network: string
  registry: AssetRegistry
  /** how often its subscriptions look for new blocks; default 25 ms, as the node's pubsub */
  pollIntervalMs?: number
}

export interface SimulatorAddressReader extends SolanaAddressReader {
  /** the subscriptions following blocks now, as SolanaPubsub.subscriptionCount counts a node's */
  subscriptionCount(): number
}

/** where a token account's owner sits in its data: what programSubscribe filters on */
const OWNER_OFFSET = 32
/** a node's answers that mean "not now": block not available, node behind */
const UNAVAILABLE_CODES = new Set([-32004, -32005])

export function createSimulatorAddressReader(options: SimulatorAddressReaderOptions): SimulatorAddressReader {
  const { simulator, registry } = options
  const network = solanaNetworkOf(simulator, options.network)
  const node: SolanaNode = { simulator, network }
  const filter = solanaTransferFilter(registry, network)
  const follower = createBlockFollower(simulator, options.pollIntervalMs ?? 25)
  const connectListeners = new Set<() => void>()
  let connected = false
  let interrupted = false

  async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
    const interruption = () =>
      new ChainRpcError('unavailable', `Solana ${what} on simulated ${network}: interrupted`)
    if (interrupted) throw interruption()
    let result: T
    try {
      result = await run()
    } catch (error) {
      throw chainRpcErrorOf(error, `Solana ${what} on simulated ${network}`)
    }
    if (interrupted) throw interruption()
    return result
  }

  async function chainTimeAt(slot: number) {
    return { slot, blockTime: isoTime(await blockTimeAt(node, slot)) }
  }

  /** follows blocks for a subscription from now; the function it returns ends it */
  function follow(
    kind: SubscriptionKind,
    target: string,
    commitment: Commitment,
    filters: AccountFilter[],
    deliver: (slot: number, news: BlockNews[], end: () => void) => void,
  ): () => Promise<void> {
    let open = true
    const end = () => {
      open = false
      follower.remove(subscription)
      if (follower.size === 0) follower.stop()
    }
    const subscription: BlockSubscription = {
      network,
      kind,
      target,
      commitment,
      filters,
      // set once it starts, at the chain's slot then
      seen: Number.POSITIVE_INFINITY,
      isOpen: () => open,
      deliver: (slot, news) => deliver(slot, news, end),
    }
    const started = slotAt(node, commitment)
      .then((seen) => {
        if (!open) return
        subscription.seen = seen
        follower.add(subscription)
        follower.start()
        if (connected) return
        // the first subscription "connects", as web3.js opens its websocket for the first one
        connected = true
        for (const listener of connectListeners) listener()
      })
      // a simulator that no longer answers (closed) starts nothing
      .catch(end)
    return async () => {
      end()
      await started
    }
  }

  return {
    network,

    subscriptionCount: () => follower.size,

    chainTime: () => call('getSlot', async () => chainTimeAt(await slotAt(node, 'confirmed'))),

    firstAvailable: () =>
      call('getFirstAvailableBlock', () => chainTimeAt(simulator.firstAvailableHeight(network))),

    activitySince: (address, until, { minContextSlot } = {}) =>
      call('getSignaturesForAddress', async () => {
        const listed = await signaturesForAddress(node, address, {
          commitment: 'confirmed',
          minContextSlot,
          until: until ?? undefined,
          limit: Number.POSITIVE_INFINITY,
        })
        return listed.reverse().map((item) => ({
          signature: item.signature,
          slot: item.slot,
          blockTime: isoTime(item.blockTime),
          failed: item.err !== null,
        }))
      }),

    transaction: (signature) =>
      call('getTransaction', async () => {
        const found = await transactionAt(node, signature, 'confirmed')
        if (found === undefined) return null
        const { block, transaction } = found
        const rendered = renderSolanaTransaction(block, transaction, {
          encoding: 'jsonParsed',
          maxSupportedTransactionVersion: 0,
        })
        return {
          txHash: signature,
          slot: block.height,
          blockTime: isoTime(rendered.blockTime as number),
          transfers: solanaTransfersOf(rendered as unknown as SolanaTransactionWithMeta, filter),
        }
      }),

    statuses: (signatures) =>
      call('getSignatureStatuses', async () => {
        const { contextSlot, value } = await signatureStatuses(node, signatures)
        const states = new Map<string, SignatureState | null>()
        for (const [position, signature] of signatures.entries()) {
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
        return { contextSlot, states }
      }),

    accounts: (addresses, { minContextSlot } = {}) =>
      call('getMultipleAccounts', async () => {
        const contextSlot = await contextSlotAt(node, 'confirmed', minContextSlot)
        const states = new Map<string, AccountState | null>()
        for (const address of addresses) {
          const state = await simulator.solanaAccount(network, address)
          const { token, mint } = state
          states.set(
            address,
            accountExists(state)
              ? {
                  lamports: state.lamports,
                  program: mint?.program ?? (token === undefined ? SYSTEM_PROGRAM_ID : TOKEN_PROGRAM_ID),
                  token: token === undefined ? null : { mint: token.mint, amount: token.amount },
                }
              : null,
          )
        }
        return { contextSlot, states }
      }),

    tokenAccountsOf: (owner) =>
      call('getTokenAccountsByOwner', async () =>
        (await simulator.tokenAccountsOf(network, owner)).map((account) => account.address),
      ),

    onActivity: (address, listener) =>
      follow('logs', address, 'confirmed', [], (slot, news) => {
        for (const { transaction } of news) listener(transaction.signature, slot)
      }),

    onTokenAccountChange: (owner, listener) =>
      follow(
        'program',
        TOKEN_PROGRAM_ID,
        'confirmed',
        [
          { dataSize: TOKEN_ACCOUNT_SPACE },
          { memcmp: { offset: OWNER_OFFSET, bytes: base58.decode(owner) } },
        ],
        (slot, news) => {
          for (const item of news) {
            if (item.kind !== 'program') continue
            const holding = tokenHoldingAfter(item.transaction, item.pubkey)
            if (holding !== undefined) listener(item.pubkey, holding.mint, slot)
          }
        },
      ),

    onFinalized: (signature, listener) =>
      follow('signature', signature, 'finalized', [], (slot, [news], end) => {
        end()
        if (news !== undefined) listener({ failed: news.transaction.err !== null, slot })
      }),

    onConnect(listener) {
      connectListeners.add(listener)
      return () => {
        connectListeners.delete(listener)
      }
    },

    connected: () => connected,

    release() {
      follower.stop()
      follower.clear()
      connected = false
    },

    interruptCalls() {
      interrupted = true
      return () => {
        interrupted = false
      }
    },
  }
}

function solanaNetworkOf(simulator: ChainSimulator, name: string): string {
  const network = simulator.networkNamed(name)
  if (network === undefined || simulator.chainOf(network) !== 'SOLANA') {
    throw new Error(`the chain simulator runs no Solana network ${name}`)
  }
  return network
}

function isoTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString()
}

/** the node's error as the port's: a node below minContextSlot is 'behind' */
function chainRpcErrorOf(error: unknown, context: string): ChainRpcError {
  if (error instanceof ChainRpcError) return error
  let failure: ChainRpcFailure = 'bad-response'
  if (error instanceof SolanaRpcError) {
    if (error.code === -32016) failure = 'behind'
    else if (UNAVAILABLE_CODES.has(error.code)) failure = 'unavailable'
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ChainRpcError(failure, `${context}: ${message}`, { cause: error })
}

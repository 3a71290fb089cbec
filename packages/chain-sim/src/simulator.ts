// A TRON and Solana stand-in behind the chain port: blocks on a timer, a durable mempool, failed
// transactions, counterfeit tokens and rollbacks before finality, all in the given SQLite file.
import type { DatabaseSync } from 'node:sqlite'
import {
  type AssetRegistry,
  type Chain,
  DomainError,
  findAssetByContract,
  findNetwork,
  type NetworkDefinition,
  resolveAsset,
  toUnits,
} from '@chainpay/domain'
import { type Logger, moduleLogger } from '@chainpay/platform'
import type { ChainClient, ChainHead } from '@chainpay/ports'
import { base58 } from '@scure/base'
import { PublicKey } from '@solana/web3.js'
import { type ChainFormat, chainFormat, type SimulatedFailure } from './chain-format.js'
import {
  createSimulatorStore,
  type StoredBlock,
  type StoredTokenAccount,
  type StoredTransfer,
} from './simulator-store.js'
import {
  executeSolanaTransaction,
  feeForMessage,
  type SendOptions,
  type SimulationOptions,
  simulateSolanaTransaction,
} from './solana-execution.js'
import { associatedTokenAddress } from './solana-instructions.js'
import type { SolanaLedgerView } from './solana-ledger.js'
import {
  MINT_LAMPORTS,
  solanaRecordText,
  standInTokenOwner,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_ACCOUNT_LAMPORTS,
  TOKEN_PROGRAM_ID,
} from './solana-rpc-blocks.js'
import { energyOfStake, executeTronTransaction, type TronLedgerView } from './tron-execution.js'
import { decodeSignedTronTransaction } from './tron-transaction.js'

export interface SimulatedTransfer {
  /**
   * receiving address; for SPL tokens the receiving token account, or with `asWallet` the owner
   * too (the tokens land in its associated token account)
   */
  to: string
  /** decimal amount in whole units of the currency, e.g. "12.5" */
  amount: string
  currency: string
  /** a token contract or mint other than the registry's: a counterfeit token of that currency */
  contract?: string | undefined
  /** sender; a random address of the chain when absent */
  from?: string | undefined
  /** included in a block but failed (TRON REVERT, Solana meta.err) */
  fail?: boolean | undefined
}

/** one payment inside a simulated transaction */
export interface SimulatedPayment {
  to: string
  amount: string
  currency: string
  contract?: string | undefined
  /** TRON: TRX that the called contract sends on (an internal transaction in the receipt) */
  internal?: boolean | undefined
}

/**
 * a transaction with one or more transfers from one sender: on TRON several transfers are TRC20
 * transfers made by one multisend contract call (a TRX transfer is a transaction of its own); on
 * Solana several instructions, native and SPL mixed
 */
export interface SimulatedTransaction {
  from?: string | undefined
  transfers: SimulatedPayment[]
  /** included in a block but failed */
  failure?: SimulatedFailure | undefined
}

/**
 * `asWallet`: the transfer is sent as a wallet sends it (the dev routes; docs/api.md, "Development
 * endpoints"). On Solana an SPL token sent to an owner's address lands in the owner's associated
 * token account, which the transaction opens if it is not open yet, its rent paid by the sender;
 * what no wallet sends is refused: to an address that is not a Solana key, to a mint, to a token
 * account of another mint, or of a mint that is not a Solana key. Without it, an SPL transfer's
 * `to` is always the receiving token account (how tests make a stranger's token account).
 */
export interface SubmitOptions {
  asWallet?: boolean | undefined
}

export type SimulatedBlock = StoredBlock
export type SimulatedTokenAccount = StoredTokenAccount

export interface TokenAccountRequest {
  owner: string
  /** an SPL currency of the registry: the account holds its mint */
  currency: string
  /** the account's address, e.g. the owner's associated token account; a new address when absent */
  address?: string | undefined
}

/** a Solana account as the ledger holds it after every accepted transaction */
export interface SolanaAccountState {
  lamports: bigint
  /** an open SPL token account */
  token?: { mint: string; owner: string; amount: bigint; decimals: number } | undefined
  /** a durable nonce account (its nonce undefined until initialized) */
  nonce?: { authority: string; nonce: string | undefined } | undefined
  /** a mint of the registry: the token program that owns it, and its decimals */
  mint?: { program: string; decimals: number } | undefined
}

/** a TRON account as the ledger holds it after every accepted transaction, the mempool's included */
export interface TronAccountState {
  balance: bigint
  /** TRX staked for energy by the account itself */
  frozen: bigint
  delegatedOut: bigint
  delegatedIn: bigint
  freeNetUsed: number
  energyUsed: number
  energyLimit: bigint
}

export interface SimulatedNetwork {
  network: string
  blockIntervalMs: number
}

export interface ChainSimulator {
  /** how the service runner's log lines name it */
  readonly name: string
  /** canonical names of the simulated networks */
  readonly networks: readonly string[]
  /** the canonical name of a simulated network, matched ignoring case; undefined if not simulated */
  networkNamed(network: string): string | undefined
  /** the chain of a simulated network, matched ignoring case; undefined if not simulated */
  chainOf(network: string): Chain | undefined
  /** produces blocks on each network's timer; idempotent */
  start(): Promise<void>
  /** stops the timers; idempotent */
  stop(): Promise<void>
  /** resolves once the transfer is durably in the mempool */
  submitTransfer(
    network: string,
    transfer: SimulatedTransfer,
    options?: SubmitOptions,
  ): Promise<{ txHash: string }>
  /**
   * a Solana token account of `owner` for the currency's mint: SPL transfers to it name that owner
   * in the transaction's token balances, as a real node's do; idempotent for the same owner and mint
   */
  openTokenAccount(network: string, request: TokenAccountRequest): Promise<SimulatedTokenAccount>
  /**
   * the token accounts of `owner`, with their mint's decimals: those opened with it, and its
   * associated accounts seen paid (getTokenAccountsByOwner lists both)
   */
  tokenAccountsOf(
    network: string,
    owner: string,
  ): Promise<Array<SimulatedTokenAccount & { decimals: number }>>
  /** resolves once the transaction, with all its transfers, is durably in the mempool */
  submitTransaction(
    network: string,
    transaction: SimulatedTransaction,
    options?: SubmitOptions,
  ): Promise<{ txHash: string }>
  /**
   * Solana: runs a signed wire transaction as a validator does (solana-execution.ts; docs/chains.md,
   * "The simulator as a node for sweeping") and puts it in the mempool; a refusal throws the node's
   * SolanaRpcError and changes nothing. With skipPreflight, one whose instructions fail goes in,
   * failed, its fee charged.
   */
  sendSolanaTransaction(
    network: string,
    wire: Uint8Array,
    options?: SendOptions,
  ): Promise<{ signature: string }>
  /** Solana: simulateTransaction's value for a wire transaction; changes nothing */
  simulateSolanaTransaction(
    network: string,
    wire: Uint8Array,
    options: SimulationOptions,
  ): Promise<Record<string, unknown>>
  /** Solana: getFeeForMessage's value for a base64 message (null for a blockhash no longer valid) */
  solanaFeeForMessage(network: string, messageBase64: string): Promise<bigint | null>
  /** Solana: an account after every accepted transaction, the mempool's included */
  solanaAccount(network: string, address: string): Promise<SolanaAccountState>
  /**
   * TRON: runs a signed transaction (broadcasttransaction's body) as java-tron does
   * (tron-execution.ts; docs/chains.md, "The simulator as a node for sweeping") and puts it in the
   * mempool; a refusal throws the node's TronRefusal and changes nothing
   */
  sendTronTransaction(network: string, body: Record<string, unknown>): Promise<{ txID: string }>
  /** TRON: an account after every accepted transaction; undefined if it does not exist */
  tronAccount(network: string, address: string): Promise<TronAccountState | undefined>
  /**
   * what an address holds of an asset (contract null: TRX or SOL, net of the fees it paid and the
   * TRX it staked; a Solana token: `address` is the token account) after every accepted
   * transaction, the mempool's included: what the node routes answer
   */
  balanceOf(network: string, address: string, contract: string | null): Promise<bigint>
  /** TRON: the decimals of a TRC20 contract the chain knows; undefined for any other contract */
  tronTokenDecimals(network: string, contract: string): number | undefined
  /** the height of the block with this hash; undefined if the chain has none */
  blockHeightOfHash(network: string, hash: string): Promise<number | undefined>
  /** blocks with their transactions as submitted: what node-shaped routes render */
  blockDetails(network: string, fromHeight: number, toHeight: number): Promise<SimulatedBlock[]>
  /** the highest block the simulated chain treats as final (TRON solidified, Solana finalized) */
  finalizedHeight(network: string): Promise<number>
  mineBlocks(network: string, count: number): Promise<ChainHead>
  /**
   * a fork switch: the block holding the transaction and every later one get new hashes, without
   * it; with `requeue` it goes back to the mempool and the next block includes it again (java-tron
   * re-queues popped transactions), else it is gone for good; with `requeue` and `fail` it fails
   * where it is included again (its new fork spent what it moved). False if the tx is unknown.
   */
  dropTransaction(
    network: string,
    txHash: string,
    options?: { requeue?: boolean; fail?: boolean },
  ): Promise<boolean>
  /** the block height holding a transaction, null in the mempool, undefined if unknown */
  transactionHeight(network: string, txHash: string): Promise<number | null | undefined>
  /**
   * a node started from a snapshot: from now on its node routes answer no block below `height`
   * (TRON `{}`), as a java-tron lite full node does
   */
  forgetHistoryBelow(network: string, height: number): void
  /** the lowest height the node routes answer blocks for (1 unless forgetHistoryBelow moved it) */
  firstAvailableHeight(network: string): number
  head(network: string): Promise<ChainHead>
  /**
   * makes the simulated node lack these blocks, as a node that jumped to a recent snapshot or
   * lost them from long-term storage does, while the chain keeps them: Solana's getBlock answers
   * -32009 and getBlocks leaves them out (docs/chains.md, "When a node lacks a block"); an empty list
   * gives them back
   */
  lackBlocks(network: string, heights: readonly number[]): void
  /** whether the simulated node lacks the block at `height` (see lackBlocks) */
  lacksBlock(network: string, height: number): boolean
  /**
   * the chain port over a simulated network; with `reportFinalized` its head carries the simulated
   * finalized height, as the TRON and Solana RPC clients' heads do
   */
  client(network: string, options?: { reportFinalized?: boolean }): ChainClient
}

export interface ChainSimulatorOptions {
  db: DatabaseSync
  registry: AssetRegistry
  networks: SimulatedNetwork[]
  clock?: () => Date
  logger: Logger
  /**
   * mints the simulated Solana chains keep under the Token-2022 program rather than the classic one
   * (PYUSD's kind): how tests show what chainpay makes of such a mint in its registry
   */
  token2022Mints?: readonly string[]
}

const MAX_ADDRESS_LENGTH = 128
const SOL_DECIMALS = 9
const MAX_TRANSFERS_PER_TRANSACTION = 20

interface RunningNetwork {
  definition: NetworkDefinition
  format: ChainFormat
  blockIntervalMs: number
  timer?: NodeJS.Timeout | undefined
  /** the node routes answer no block below it */
  firstAvailableHeight: number
}

export function createChainSimulator(options: ChainSimulatorOptions): ChainSimulator {
  const { registry } = options
  const clock = options.clock ?? (() => new Date())
  const logger = moduleLogger(options.logger, 'chain-sim')
  const store = createSimulatorStore(options.db)
  const running = new Map<string, RunningNetwork>()
  for (const { network, blockIntervalMs } of options.networks) {
    const definition = findNetworkIgnoringCase(registry, network)
    if (!definition) throw new Error(`chain simulator: network ${network} is not in the asset registry`)
    if (!Number.isSafeInteger(blockIntervalMs) || blockIntervalMs < 1) {
      throw new Error(`chain simulator: blockIntervalMs of ${network} must be a positive integer`)
    }
    running.set(definition.network, {
      definition,
      format: chainFormat(definition.chain),
      blockIntervalMs,
      firstAvailableHeight: 1,
    })
  }
  let started = false
  /** by network: the blocks the simulated node lacks (a node fault, not the chain's) */
  const lacking = new Map<string, Set<number>>()

  function simulated(network: string): RunningNetwork {
    const definition = findNetworkIgnoringCase(registry, network)
    const entry = definition && running.get(definition.network)
    if (!entry) throw new DomainError('NOT_FOUND', `the chain simulator does not run network ${network}`)
    return entry
  }

  // A chain always has a head: its first block is produced when the simulator first meets it.
  function headOf(entry: RunningNetwork): ChainHead {
    const name = entry.definition.network
    const head = store.head(name)
    if (head) return head
    return store.inTransaction(() => store.head(name) ?? produceBlock(entry))
  }

  // Runs inside a write transaction.
  function produceBlock(entry: RunningNetwork): ChainHead {
    const name = entry.definition.network
    const parent = store.head(name)
    const height = (parent?.height ?? 0) + 1
    const now = clock().toISOString()
    // block times never go backwards, even if a test clock does
    const time = parent && parent.time > now ? parent.time : now
    const hash = entry.format.newBlockHash(height)
    store.insertBlock(name, {
      height,
      hash,
      parentHash: parent?.hash ?? entry.format.genesisParentHash,
      time,
    })
    const included = store.includeMempool(name, height)
    logger.debug({ network: name, height, transfers: included }, 'block produced')
    return { height, hash, time }
  }

  function scheduleNext(entry: RunningNetwork): void {
    entry.timer = setTimeout(() => {
      try {
        store.inTransaction(() => produceBlock(entry))
      } catch (error) {
        logger.error({ err: error, network: entry.definition.network }, 'block production failed')
      }
      if (started) scheduleNext(entry)
    }, entry.blockIntervalMs)
    // a simulated chain never keeps the process alive on its own
    entry.timer.unref()
  }

  for (const entry of running.values()) headOf(entry)

  return {
    name: 'chain simulator',
    networks: [...running.keys()],

    networkNamed(network) {
      const definition = findNetworkIgnoringCase(registry, network)
      return definition && running.has(definition.network) ? definition.network : undefined
    },

    chainOf(network) {
      const definition = findNetworkIgnoringCase(registry, network)
      return definition && running.has(definition.network) ? definition.chain : undefined
    },

    async start() {
      if (started) return
      started = true
      for (const entry of running.values()) scheduleNext(entry)
      logger.info(
        { networks: [...running.values()].map((entry) => [entry.definition.network, entry.blockIntervalMs]) },
        'chain simulator producing blocks',
      )
    },

    async stop() {
      started = false
      for (const entry of running.values()) {
        clearTimeout(entry.timer)
        entry.timer = undefined
      }
    },

    async submitTransfer(network, transfer, submitOptions = {}) {
      const { to, amount, currency, contract, from, fail } = transfer
      const failure = fail === true ? simulated(network).format.defaultFailure : undefined
      const transaction = { from, transfers: [{ to, amount, currency, contract }], failure }
      return submit(network, transaction, 'single', submitOptions)
    },

    async submitTransaction(network, transaction, submitOptions = {}) {
      return submit(network, transaction, 'list', submitOptions)
    },

    async tokenAccountsOf(network, owner) {
      const name = simulated(network).definition.network
      const opened = store.tokenAccountsOf(name, owner)
      return [...opened, ...associatedHoldings(name, owner, opened)]
        .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
        .map((account) => ({
          ...account,
          decimals: findAssetByContract(registry, name, account.mint)?.decimals ?? 0,
        }))
    },

    async openTokenAccount(network, request) {
      const entry = simulated(network)
      const name = entry.definition.network
      const asset = resolveAsset(registry, { network: name, currency: request.currency })
      if (entry.definition.chain !== 'SOLANA' || asset.contract === null) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'currency: token accounts hold an SPL token of a Solana network',
        )
      }
      const wanted: StoredTokenAccount = {
        address:
          request.address === undefined ? entry.format.newAddress() : address('address', request.address),
        owner: address('owner', request.owner),
        mint: asset.contract,
      }
      return store.inTransaction(() => {
        if (store.insertTokenAccount(name, wanted)) return wanted
        const held = store.tokenAccount(name, wanted.address) as StoredTokenAccount
        if (held.owner !== wanted.owner || held.mint !== wanted.mint) {
          throw new DomainError(
            'VALIDATION_ERROR',
            `address: ${wanted.address} is a token account of another owner or mint`,
          )
        }
        return held
      })
    },

    async sendSolanaTransaction(network, wire, sendOptions = {}) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain !== 'SOLANA') {
        throw new DomainError('VALIDATION_ERROR', `${name} is no Solana network`)
      }
      headOf(entry)
      return store.inTransaction(() => {
        const executed = executeSolanaTransaction(wire, solanaLedger(name), sendOptions)
        const { signature, payer, fee, transfers } = executed
        store.insertTransaction(
          name,
          {
            txHash: signature,
            from: payer,
            failure: executed.rendered.err === null ? null : 'INSTRUCTION_ERROR',
            transfers: transfers.map(({ from, to, contract, amountUnits, decimals }) => ({
              from,
              to,
              contract,
              amountUnits: amountUnits.toString(),
              decimals,
            })),
          },
          clock().toISOString(),
        )
        store.insertSolanaRecord(name, {
          signature,
          payer,
          feeUnits: fee,
          record: solanaRecordText(executed.rendered),
        })
        for (const account of executed.adopted) store.insertTokenAccount(name, account)
        for (const account of executed.opened) store.openFundedTokenAccount(name, account)
        for (const address of executed.closed) store.closeTokenAccount(name, address)
        for (const nonce of executed.nonces) store.putNonceAccount(name, nonce)
        logger.debug({ network: name, signature, fee }, 'signed transaction accepted')
        return { signature }
      })
    },

    async sendTronTransaction(network, body) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain !== 'TRON') {
        throw new DomainError('VALIDATION_ERROR', `${name} is no TRON network`)
      }
      headOf(entry)
      const decoded = decodeSignedTronTransaction(body)
      return store.inTransaction(() => {
        const executed = executeTronTransaction(decoded, tronLedger(name))
        const { owner, transfer, failure, fee, info } = executed
        const submittedAt = clock()
        // a stake or a delegation moves nothing: one row of 0 TRX to itself keeps it in its block
        const moved = transfer ?? { to: owner, contract: null, amountUnits: 0n, decimals: 6 }
        store.insertTransaction(
          name,
          {
            txHash: decoded.txID,
            from: owner,
            failure,
            transfers: [{ ...moved, amountUnits: moved.amountUnits.toString() }],
          },
          submittedAt.toISOString(),
        )
        const { raw_data, raw_data_hex, signature } = body
        store.insertTronRecord(name, {
          txId: decoded.txID,
          owner,
          feeUnits: fee,
          freeBytes: executed.freeBytes,
          stakedEnergy: executed.stakedEnergy,
          frozenUnits: executed.frozenUnits,
          delegation: executed.delegation,
          submittedMs: submittedAt.getTime(),
          record: JSON.stringify({
            transaction: { txID: decoded.txID, raw_data, raw_data_hex, signature },
            info,
          }),
        })
        logger.debug({ network: name, txID: decoded.txID, fee, failure }, 'signed transaction accepted')
        return { txID: decoded.txID }
      })
    },

    async tronAccount(network, address) {
      const name = simulated(network).definition.network
      const ledger = tronLedger(name)
      if (!ledger.exists(address)) return undefined
      const stake = ledger.stake(address)
      const usage = ledger.usage(address)
      return {
        balance: ledger.balance(address),
        ...stake,
        freeNetUsed: usage.freeBytes,
        energyUsed: usage.stakedEnergy,
        energyLimit: energyOfStake(stake.frozen - stake.delegatedOut + stake.delegatedIn),
      }
    },

    async balanceOf(network, address, contract) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain === 'SOLANA') {
        return contract === null
          ? store.solanaLamports(name, address)
          : store.solanaTokenAmount(name, address, contract)
      }
      return contract === null
        ? tronLedger(name).balance(address)
        : store.netReceived(name, address, contract)
    },

    tronTokenDecimals(network, contract) {
      return findAssetByContract(registry, simulated(network).definition.network, contract)?.decimals
    },

    async simulateSolanaTransaction(network, wire, simulationOptions) {
      const entry = simulated(network)
      headOf(entry)
      return simulateSolanaTransaction(wire, solanaLedger(entry.definition.network), simulationOptions)
    },

    async solanaFeeForMessage(network, messageBase64) {
      const entry = simulated(network)
      headOf(entry)
      return feeForMessage(messageBase64, solanaLedger(entry.definition.network))
    },

    async solanaAccount(network, address) {
      const name = simulated(network).definition.network
      const mint = registry.assets.find(
        (asset) => asset.network === name && asset.tokenStandard === 'SPL' && asset.contract === address,
      )
      if (mint !== undefined) {
        const program = options.token2022Mints?.includes(address) ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID
        return { lamports: MINT_LAMPORTS, mint: { program, decimals: mint.decimals } }
      }
      const ledger = solanaLedger(name)
      const nonce = ledger.nonceAccount(address)
      const unopened = ledger.unopenedTokenHolding(address)
      // a token account the simulator only saw paid: its owner is the stand-in blocks show
      const token =
        ledger.tokenAccount(address) ?? (unopened && { ...unopened, owner: standInTokenOwner(address) })
      return {
        lamports: ledger.lamports(address) + (unopened === undefined ? 0n : TOKEN_ACCOUNT_LAMPORTS),
        ...(token === undefined
          ? {}
          : { token: { ...token, decimals: ledger.mintDecimals(token.mint) ?? 0 } }),
        ...(nonce === undefined ? {} : { nonce }),
      }
    },

    async blockHeightOfHash(network, hash) {
      const entry = simulated(network)
      headOf(entry)
      return heightOfHash(entry, hash)
    },

    async blockDetails(network, fromHeight, toHeight) {
      const entry = simulated(network)
      headOf(entry)
      assertHeights(fromHeight, toHeight)
      return store.blockDetails(entry.definition.network, fromHeight, toHeight)
    },

    async finalizedHeight(network) {
      const entry = simulated(network)
      return finalizedHeightOf(entry, headOf(entry))
    },

    async mineBlocks(network, count) {
      const entry = simulated(network)
      if (!Number.isSafeInteger(count) || count < 0) {
        throw new DomainError('VALIDATION_ERROR', `count must be a non-negative integer, got ${count}`)
      }
      const head = headOf(entry)
      return store.inTransaction(() => {
        let latest = head
        for (let mined = 0; mined < count; mined += 1) latest = produceBlock(entry)
        return latest
      })
    },

    async dropTransaction(network, txHash, dropOptions = {}) {
      const entry = simulated(network)
      const name = entry.definition.network
      return store.inTransaction(() => {
        const height = store.transactionHeight(name, txHash)
        if (height === undefined) return false
        if (dropOptions.requeue === true) {
          store.requeueTransaction(
            name,
            txHash,
            dropOptions.fail === true ? entry.format.defaultFailure : undefined,
          )
        } else store.deleteTransaction(name, txHash)
        if (height !== null) replaceBlocksFrom(entry, height)
        logger.info(
          { network: name, txHash, height, requeued: dropOptions.requeue === true },
          'transaction dropped',
        )
        return true
      })
    },

    async transactionHeight(network, txHash) {
      return store.transactionHeight(simulated(network).definition.network, txHash)
    },

    forgetHistoryBelow(network, height) {
      const entry = simulated(network)
      if (!Number.isSafeInteger(height) || height < 1) {
        throw new DomainError('VALIDATION_ERROR', `height must be a positive integer, got ${height}`)
      }
      entry.firstAvailableHeight = height
    },

    firstAvailableHeight(network) {
      return simulated(network).firstAvailableHeight
    },

    async head(network) {
      return headOf(simulated(network))
    },

    lackBlocks(network, heights) {
      const name = simulated(network).definition.network
      for (const height of heights) assertHeights(height, height)
      if (heights.length === 0) lacking.delete(name)
      else lacking.set(name, new Set(heights))
    },

    lacksBlock(network, height) {
      return lacking.get(simulated(network).definition.network)?.has(height) ?? false
    },

    client(network, options = {}) {
      const entry = simulated(network)
      const name = entry.definition.network
      return {
        network: name,
        getHead: async () => {
          const head = headOf(entry)
          if (!options.reportFinalized) return head
          return { ...head, finalizedHeight: finalizedHeightOf(entry, head) }
        },
        getBlocks: async (fromHeight, toHeight) => {
          assertHeights(fromHeight, toHeight)
          const blocks = store.blocks(name, fromHeight, toHeight)
          if (entry.definition.chain !== 'SOLANA') return blocks
          // as the node's balances name them: SOL's owner is the account, a token account's its owner;
          // the lamports a token account gets (its rent, when a payer creates it) are nobody's SOL
          return blocks.map((block) => ({
            ...block,
            transfers: block.transfers.flatMap((transfer) => {
              if (transfer.asset.kind === 'native') {
                return store.tokenAccount(name, transfer.to) === undefined
                  ? [{ ...transfer, owner: transfer.to }]
                  : []
              }
              return [{ ...transfer, owner: transfer.owner ?? standInTokenOwner(transfer.to) }]
            }),
          }))
        },
      }
    },
  }

  // the parent of block 1 is slot 0's hash: what getLatestBlockhash gives before anything is final
  function heightOfHash(entry: RunningNetwork, hash: string): number | undefined {
    if (hash === entry.format.genesisParentHash) return 0
    return store.blockHeightOfHash(entry.definition.network, hash)
  }

  /**
   * The owner's associated token accounts the simulator only saw paid (a wallet paying an SPL
   * payment creates the account in the paying transaction): a real node lists them under the
   * owner, so getTokenAccountsByOwner does too
   */
  function associatedHoldings(
    name: string,
    owner: string,
    opened: readonly StoredTokenAccount[],
  ): StoredTokenAccount[] {
    if (!isSolanaKey(owner)) return []
    const ledger = solanaLedger(name)
    return registry.assets.flatMap((asset) => {
      if (asset.network !== name || asset.contract === null) return []
      const address = associatedTokenAddress(owner, asset.contract)
      if (opened.some((account) => account.address === address)) return []
      return ledger.unopenedTokenHolding(address)?.mint === asset.contract
        ? [{ address, owner, mint: asset.contract }]
        : []
    })
  }

  function solanaLedger(name: string): SolanaLedgerView {
    const head = store.head(name)
    return {
      headHeight: head?.height ?? 0,
      headHash: head?.hash ?? chainFormat('SOLANA').genesisParentHash,
      nonceAccount(address) {
        const account = store.nonceAccount(name, address)
        return account && { authority: account.authority, nonce: account.nonce }
      },
      blockhashHeight: (hash) => heightOfHash(running.get(name) as RunningNetwork, hash),
      processed: (signature) => store.transactionHeight(name, signature) !== undefined,
      lamports: (address) => store.solanaLamports(name, address),
      tokenAccount(address) {
        const account = store.tokenAccount(name, address)
        return account && { ...account, amount: store.solanaTokenAmount(name, address, account.mint) }
      },
      mintDecimals: (mint) => findAssetByContract(registry, name, mint)?.decimals,
      unopenedTokenHolding(address) {
        if (store.tokenAccount(name, address) !== undefined) return undefined
        for (const mint of store.contractsReceived(name, address)) {
          if (findAssetByContract(registry, name, mint) === undefined) continue
          const amount = store.solanaTokenAmount(name, address, mint)
          if (amount > 0n) return { mint, amount }
        }
        return undefined
      },
    }
  }

  function tronLedger(name: string): TronLedgerView {
    const head = store.head(name)
    const nowMs = clock().getTime()
    const since = nowMs - 24 * 60 * 60 * 1000
    return {
      head: { height: head?.height ?? 0, timeMs: head ? Date.parse(head.time) : nowMs },
      blockHash: (height) => store.blockDetails(name, height, height)[0]?.hash,
      processed: (txId) => store.transactionHeight(name, txId) !== undefined,
      exists: (address) => store.receivedNative(name, address),
      balance(address) {
        const { feesPaid, frozen } = store.tronResources(name, address, since)
        return store.netReceived(name, address, null) - feesPaid - frozen
      },
      usage(address) {
        const resources = store.tronResources(name, address, since)
        return { freeBytes: resources.freeBytesSince, stakedEnergy: resources.stakedEnergySince }
      },
      stake(address) {
        const { frozen, delegatedOut, delegatedIn } = store.tronResources(name, address, since)
        return { frozen, delegatedOut, delegatedIn }
      },
      delegated: (owner, receiver) => store.tronDelegated(name, owner, receiver),
      tokenDecimals: (contract) => findAssetByContract(registry, name, contract)?.decimals,
      tokenBalance: (contract, address) => store.netReceived(name, address, contract),
    }
  }

  async function submit(
    network: string,
    transaction: SimulatedTransaction,
    /** how errors name a transfer's fields: as the single-transfer body does, or by position */
    naming: 'single' | 'list',
    submitOptions: SubmitOptions,
  ): Promise<{ txHash: string }> {
    const entry = simulated(network)
    const name = entry.definition.network
    const { transfers } = transaction
    if (
      !Array.isArray(transfers) ||
      transfers.length < 1 ||
      transfers.length > MAX_TRANSFERS_PER_TRANSACTION
    ) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `transfers: a transaction carries 1 to ${MAX_TRANSFERS_PER_TRANSACTION} transfers`,
      )
    }
    const stored = transfers.map((payment, position): StoredTransfer => {
      const asset = resolveAsset(registry, { network: name, currency: payment.currency })
      const field = (name: string) => (naming === 'single' ? name : `transfers[${position}].${name}`)
      return {
        to: address(field('to'), payment.to),
        contract:
          payment.contract === undefined ? asset.contract : address(field('contract'), payment.contract),
        amountUnits: unitsOf(payment.amount, asset.decimals).toString(),
        decimals: asset.decimals,
        ...(payment.internal === true ? { internal: true } : {}),
      }
    })
    if (stored.some((transfer) => transfer.internal === true)) {
      const allTrx = stored.every((transfer) => transfer.internal === true && transfer.contract === null)
      if (entry.definition.chain !== 'TRON' || !allTrx) {
        throw new DomainError(
          'VALIDATION_ERROR',
          "transfers: internal transfers are TRX a TRON contract sends; all of a transaction's transfers must be such",
        )
      }
    }
    if (
      entry.definition.chain === 'TRON' &&
      stored.length > 1 &&
      stored.some((t) => t.contract === null && t.internal !== true)
    ) {
      throw new DomainError(
        'VALIDATION_ERROR',
        'transfers: a TRON transaction pays TRX to one address; several transfers must all be TRC20',
      )
    }
    const failure = transaction.failure ?? null
    if (failure !== null && !entry.format.failures.includes(failure)) {
      const allowed = entry.format.failures.join(', ')
      throw new DomainError('VALIDATION_ERROR', `failure: ${name} transactions fail with ${allowed}`)
    }
    const from =
      transaction.from === undefined ? entry.format.newAddress() : address('from', transaction.from)
    const txHash = entry.format.newTxHash()
    store.inTransaction(() => {
      const sent =
        submitOptions.asWallet === true && entry.definition.chain === 'SOLANA'
          ? asSolanaWalletSends(
              name,
              stored,
              (position, field) => (naming === 'single' ? field : `transfers[${position}].${field}`),
              // a failed transaction opens nothing: its instructions are undone
              failure === null,
            )
          : { transfers: stored, opened: [] }
      store.insertTransaction(
        name,
        { txHash, from, failure, transfers: sent.transfers },
        clock().toISOString(),
      )
      for (const account of sent.opened) store.openFundedTokenAccount(name, account)
    })
    return { txHash }
  }

  /**
   * The transfers as a wallet makes them (SubmitOptions.asWallet): an SPL token sent to an owner
   * goes to its associated token account, opened in the same transaction with rent from the
   * sender (a createAssociatedTokenAccountIdempotent instruction); the rest is refused as a wallet
   * refuses it. Runs inside the write transaction.
   */
  function asSolanaWalletSends(
    name: string,
    transfers: readonly StoredTransfer[],
    fieldOf: (position: number, field: string) => string,
    opens: boolean,
  ): { transfers: StoredTransfer[]; opened: StoredTokenAccount[] } {
    const sent: StoredTransfer[] = []
    const opened: StoredTokenAccount[] = []
    transfers.forEach((transfer, position) => {
      const to = fieldOf(position, 'to')
      if (!isSolanaKey(transfer.to)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${to}: ${transfer.to} is no Solana address (32 bytes in base58)`,
        )
      }
      const mint = transfer.contract
      if (mint === null) {
        sent.push(transfer)
        return
      }
      if (!isSolanaKey(mint)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${fieldOf(position, 'contract')}: ${mint} is no Solana mint address (32 bytes in base58)`,
        )
      }
      if (registry.assets.some((asset) => asset.network === name && asset.contract === transfer.to)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `${to}: ${transfer.to} is a token mint, which holds no tokens; send to the recipient's wallet address`,
        )
      }
      // a token account: opened, or seen paid a token (counterfeits included)
      const held =
        store.tokenAccount(name, transfer.to)?.mint ?? store.contractsReceived(name, transfer.to)[0]
      if (held !== undefined) {
        if (held !== mint) {
          throw new DomainError(
            'VALIDATION_ERROR',
            `${to}: ${transfer.to} is a token account of mint ${held}, not of ${mint}; send to the recipient's wallet address`,
          )
        }
        sent.push(transfer)
        return
      }
      // an address off the ed25519 curve belongs to no wallet: a token account (e.g. a payment's
      // generatedTokenAccount) the transfer opens, as before
      if (!PublicKey.isOnCurve(base58.decode(transfer.to))) {
        sent.push(transfer)
        return
      }
      const associated = associatedTokenAddress(transfer.to, mint)
      const opening =
        opens &&
        store.tokenAccount(name, associated) === undefined &&
        !opened.some((account) => account.address === associated)
      if (opening) {
        sent.push({
          to: associated,
          contract: null,
          amountUnits: TOKEN_ACCOUNT_LAMPORTS.toString(),
          decimals: SOL_DECIMALS,
        })
        opened.push({ address: associated, owner: transfer.to, mint })
      }
      sent.push({ ...transfer, to: associated })
    })
    return { transfers: sent, opened }
  }

  // A rollback: the fork keeps heights and times but every block from `height` on gets a new
  // hash, each linked to the new hash before it.
  function replaceBlocksFrom(entry: RunningNetwork, height: number): void {
    const name = entry.definition.network
    const head = store.head(name)
    if (!head) return
    let parentHash = store.blocks(name, height - 1, height - 1)[0]?.hash ?? entry.format.genesisParentHash
    for (let replaced = height; replaced <= head.height; replaced += 1) {
      const hash = entry.format.newBlockHash(replaced)
      store.rehashBlock(name, replaced, hash, parentHash)
      parentHash = hash
    }
  }
}

function findNetworkIgnoringCase(registry: AssetRegistry, network: string): NetworkDefinition | undefined {
  return (
    findNetwork(registry, network) ??
    registry.networks.find((candidate) => candidate.network.toLowerCase() === network.toLowerCase())
  )
}

function finalizedHeightOf(entry: { format: ChainFormat }, head: ChainHead): number {
  return Math.max(0, head.height - entry.format.finalityDepth)
}

function assertHeights(fromHeight: number, toHeight: number): void {
  if (!Number.isSafeInteger(fromHeight) || !Number.isSafeInteger(toHeight)) {
    throw new RangeError(`block heights must be integers, got ${fromHeight}..${toHeight}`)
  }
}

function unitsOf(amount: string, decimals: number): bigint {
  try {
    return toUnits(amount, decimals)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new DomainError('VALIDATION_ERROR', `amount: ${reason}`)
  }
}

function address(field: string, value: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ADDRESS_LENGTH) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `${field} must be a non-empty address of at most 128 characters`,
    )
  }
  return value
}

function isSolanaKey(address: string): boolean {
  try {
    return base58.decode(address).length === 32
  } catch {
    return false
  }
}

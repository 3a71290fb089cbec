// A TRON and Solana stand-in behind the chain port: blocks on a timer, a durable mempool, failed
// transactions, counterfeit tokens and rollbacks before finality, all in the given SQLite file. Each
// chain's own part is simulator-solana.ts and simulator-tron.ts; the types are simulator-core.ts.
import {
  type AssetRegistry,
  DomainError,
  findAssetByContract,
  findNetwork,
  type NetworkDefinition,
  resolveAsset,
  toUnits,
} from '@chainpay/domain'
import { moduleLogger } from '@chainpay/platform'
import type { ChainHead } from '@chainpay/ports'
import { base58 } from '@scure/base'
import { type ChainFormat, chainFormat } from './chain-format.js'
import {
  address,
  type ChainSimulator,
  type ChainSimulatorOptions,
  landsAheadKey,
  MAX_TRANSFERS_PER_TRANSACTION,
  type RunningNetwork,
  type SimulatedTransaction,
  type SimulatorCore,
  type SubmitOptions,
} from './simulator-core.js'
import { createSolanaSimulation } from './simulator-solana.js'
import { createSimulatorStore, type StoredTransfer } from './simulator-store.js'
import { createTronSimulation } from './simulator-tron.js'
import { standInTokenOwner } from './solana-rpc-blocks.js'

export type {
  ChainSimulator,
  ChainSimulatorOptions,
  SimulatedBlock,
  SimulatedNetwork,
  SimulatedPayment,
  SimulatedTokenAccount,
  SimulatedTransaction,
  SimulatedTransfer,
  SolanaAccountState,
  SubmitOptions,
  TokenAccountRequest,
  TronAccountState,
} from './simulator-core.js'

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

  const core: SimulatorCore = {
    store,
    registry,
    clock,
    logger,
    running,
    token2022Mints: options.token2022Mints,
    simulated,
    headOf,
    heightOfHash,
    landsAhead: new Map(),
  }
  const solana = createSolanaSimulation(core)
  const tron = createTronSimulation(core)

  return {
    ...solana.methods,
    ...tron.methods,
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

    async balanceOf(network, address, contract) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain === 'SOLANA') {
        return contract === null
          ? store.solanaLamports(name, address)
          : store.solanaTokenAmount(name, address, contract)
      }
      return contract === null
        ? tron.tronLedger(name).balance(address)
        : store.netReceived(name, address, contract)
    },

    tronTokenDecimals(network, contract) {
      return findAssetByContract(registry, simulated(network).definition.network, contract)?.decimals
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
    const write = () => {
      const sent =
        submitOptions.asWallet === true && entry.definition.chain === 'SOLANA'
          ? solana.asSolanaWalletSends(
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
    }
    const ahead = submitOptions.landsAheadOf
    if (ahead === undefined) store.inTransaction(write)
    else {
      if (entry.definition.chain !== 'SOLANA' || !isSolanaSignature(ahead)) {
        throw new DomainError(
          'VALIDATION_ERROR',
          'landsAheadOf: the signature (64 bytes in base58) of a signed transaction of a Solana network',
        )
      }
      // refused now if a wallet would refuse it (asWallet): written once, undone, written again later
      try {
        store.inTransaction(() => {
          write()
          throw HELD
        })
      } catch (error) {
        if (error !== HELD) throw error
      }
      const key = landsAheadKey(name, ahead)
      core.landsAhead.set(key, [...(core.landsAhead.get(key) ?? []), write])
      logger.info({ network: name, txHash, landsAheadOf: ahead }, 'transaction held to land ahead')
    }
    return { txHash }
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

/** thrown to undo a held transaction's trial write (submit, landsAheadOf) */
const HELD = Symbol('held ahead')

function isSolanaSignature(text: string): boolean {
  try {
    return base58.decode(text).length === 64
  } catch {
    return false
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

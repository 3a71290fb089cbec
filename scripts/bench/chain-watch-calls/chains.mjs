// The chains of the call-budget benchmark: each watch mode's simulated network on mainnet rates,
// the indexer production builds for it (the one place the benchmark meets the watcher's
// interfaces: watcherFor), the filler transactions of mainnet-shaped blocks, and customers who pay
// as real wallets and exchanges do.

import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { chainAccess } from '../../../packages/chain-access/dist/index.js'
import {
  createChainIndexer,
  createSolanaAddressIndexer,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_SOLANA_CHECK_INTERVAL_MS,
} from '../../../packages/chain-indexer/dist/index.js'
import { encodeTronAddress } from '../../../packages/chain-sim/dist/index.js'
import { resolveAsset } from '../../../packages/domain/dist/index.js'
import { associatedTokenAccount } from '../../../packages/wallet/dist/index.js'

const requireFromTreasury = createRequire(new URL('../../../packages/treasury/package.json', import.meta.url))
const web3 = requireFromTreasury('@solana/web3.js')
const splToken = requireFromTreasury('@solana/spl-token')

/**
 * The watch modes measured. Rates are mainnet's: a TRON block every 3 s; a Solana slot every
 * 400 ms, of which SKIPPED_SLOT_SHARE produce no block. Poll intervals are production's defaults
 * (chain-indexer config: DEFAULT_POLL_INTERVAL_MS, and SOLANA_CHECK_INTERVAL_MS for the address
 * watcher's batched check of every followed account).
 */
export const MODES = {
  TRON: {
    key: 'TRON',
    network: 'TRON',
    chain: 'TRON',
    title: 'TRON (blocks)',
    slotMs: 3_000,
    pollMs: DEFAULT_POLL_INTERVAL_MS.TRON,
  },
  SOLANA: {
    key: 'SOLANA',
    network: 'SOLANA',
    chain: 'SOLANA',
    title: 'Solana by address (SOLANA_WATCH_MODE=address, the default)',
    slotMs: 400,
    pollMs: DEFAULT_POLL_INTERVAL_MS.SOLANA,
    checkIntervalMs: DEFAULT_SOLANA_CHECK_INTERVAL_MS,
    byAddress: true,
  },
  SOLANA_BLOCKS: {
    key: 'SOLANA_BLOCKS',
    network: 'SOLANA',
    chain: 'SOLANA',
    title: 'Solana blocks (SOLANA_WATCH_MODE=blocks)',
    slotMs: 400,
    pollMs: DEFAULT_POLL_INTERVAL_MS.SOLANA,
  },
}

/** a slot without a block: mainnet's skip rate moves around a few percent (an assumption) */
export const SKIPPED_SLOT_SHARE = 0.05

/** the chain-indexer's default CHAIN_RPC_TIMEOUT_MS */
const RPC_TIMEOUT_MS = 10_000
/** iterations of the address watcher in one simulated instant, at most */
const MAX_ROUNDS_AT_ONCE = 10

/**
 * The chain indexer of a mode as the chain-indexer service builds it over RPC (context.ts,
 * rpcChains): its clients from @chainpay/chain-access (the one place that picks them: block
 * scanning behind retries and the breaker, the address reader over web3.js), reading the simulator's
 * node-shaped routes through the counting proxy; the websocket goes to the simulator. The one place
 * the benchmark meets the watcher's interfaces: what it drives is one iteration of the indexer's
 * loop, a payment event as its consumer (group chain-indexer.<network>) hands it on (every one:
 * PaymentCreated opens the watch, the terminal ones close it), a deposit address event as its
 * deposit consumer (group chain-indexer-deposits.<network>) hands it on, and the stop.
 */
export async function watcherFor(mode, { rpcUrl, wsUrl, store, bus, registry, clock, logger }) {
  const common = { network: mode.network, store, bus, registry, clock, logger, pollIntervalMs: mode.pollMs }
  const endpoints =
    mode.chain === 'TRON'
      ? { network: mode.network, chain: 'TRON', nodes: [{ rpcUrl, solidityRpcUrl: rpcUrl, apiKey: null }] }
      : { network: mode.network, chain: 'SOLANA', nodes: [{ rpcUrl, wsUrl }] }
  const access = chainAccess(endpoints, { registry, timeoutMs: RPC_TIMEOUT_MS, logger })
  const indexer = mode.byAddress
    ? createSolanaAddressIndexer({
        ...common,
        reader: await access.addressReader(),
        checkIntervalMs: mode.checkIntervalMs,
      })
    : createChainIndexer({ ...common, client: await access.blockScanningClient() })
  return {
    paymentEventsGroupId: `chain-indexer.${mode.network}`,
    async iterate() {
      // as its work loop does, the address watcher iterates again at once while something is due
      // (solana-address-indexer.ts); a bound, since the simulated clock stands still meanwhile
      for (let round = 0; round < MAX_ROUNDS_AT_ONCE; round++) {
        await indexer.scanOnce()
        // its loop's 'more': something due, or deposit addresses' checks left of a round
        if (!indexer.watcher?.due && !(indexer.watcher?.depositChecksPending > 0)) return
      }
    },
    handlePaymentEvent: (message) => indexer.handlePaymentEvent(message),
    depositEventsGroupId: `chain-indexer-deposits.${mode.network}`,
    /** a deposit address event as its deposit consumer hands it on; undefined where the watcher has none */
    handleDepositEvent:
      typeof indexer.handleDepositEvent === 'function'
        ? (message) => indexer.handleDepositEvent(message)
        : undefined,
    stop: () => indexer.stop(),
  }
}

/** a stable, well-formed address per name: fillers and customers are the same accounts all run long */
function tronAddressOf(name) {
  return encodeTronAddress(createHash('sha256').update(name).digest().subarray(0, 20))
}

function solanaAddressOf(name) {
  return new web3.PublicKey(createHash('sha256').update(name).digest()).toBase58()
}

/**
 * Filler transactions: what fills a mainnet block around the shop's payments, to addresses nobody
 * watches. TRON: USDT transfers (most of mainnet's transactions), TRX transfers, and other contract
 * calls (a multisend of USDT), every one with a receipt the indexer reads. Solana (blocks mode):
 * SOL and USDC transfers.
 */
export function createFillers(mode, sim, random) {
  const pool = Array.from({ length: 512 }, (_, index) =>
    mode.chain === 'TRON' ? tronAddressOf(`filler ${index}`) : solanaAddressOf(`filler ${index}`),
  )
  const anyone = () => pool[Math.floor(random.next() * pool.length)]
  const amount = () => String(1 + Math.floor(random.next() * 500))
  return async function fill(count) {
    for (let index = 0; index < count; index++) {
      // every mainnet block calls USDT: the first filler of each is a USDT transfer
      const roll = index === 0 ? 0 : random.next()
      if (mode.chain === 'TRON') {
        if (roll < 0.6) {
          await sim.submitTransaction(mode.network, {
            from: anyone(),
            transfers: [{ to: anyone(), amount: amount(), currency: 'USDT' }],
          })
        } else if (roll < 0.85) {
          await sim.submitTransaction(mode.network, {
            from: anyone(),
            transfers: [{ to: anyone(), amount: amount(), currency: 'TRX' }],
          })
        } else {
          const transfers = Array.from({ length: 3 }, () => ({
            to: anyone(),
            amount: amount(),
            currency: 'USDT',
          }))
          await sim.submitTransaction(mode.network, { from: anyone(), transfers })
        }
      } else {
        const currency = roll < 0.7 ? 'SOL' : 'USDC'
        await sim.submitTransaction(mode.network, {
          from: anyone(),
          transfers: [{ to: anyone(), amount: currency === 'SOL' ? '0.01' : amount(), currency }],
        })
      }
    }
  }
}

/**
 * Customers. TRON: a TRX transfer or a TRC20 transfer call to the payment's address, from a wallet
 * or an exchange. Solana: SOL to the payment's address (the owner); an SPL token the way Phantom and
 * Solflare send it to an owner: to the owner's associated token account of the mint, created in the
 * paying transaction when it does not exist yet (createAssociatedTokenAccountIdempotent, then
 * transferChecked), signed by the customer and run by the simulator as a validator runs it.
 */
export async function createCustomers(mode, sim, registry, random) {
  const network = mode.network
  if (mode.chain === 'TRON') {
    const wallets = Array.from({ length: 256 }, (_, index) => tronAddressOf(`customer ${index}`))
    return {
      async pay(payment, { currency, amount }) {
        const from = wallets[Math.floor(random.next() * wallets.length)]
        const { txHash } = await sim.submitTransaction(network, {
          from,
          transfers: [{ to: payment.created.address, amount, currency }],
        })
        return txHash
      },
    }
  }
  const mints = Object.fromEntries(
    registry.assets
      .filter((asset) => asset.network === network && asset.contract !== null)
      .map((asset) => [asset.currency, { mint: asset.contract, decimals: asset.decimals }]),
  )
  // SPL payers, each with SOL for fees and rent, and token accounts holding every registry mint
  const payers = Array.from({ length: 64 }, (_, index) =>
    web3.Keypair.fromSeed(createHash('sha256').update(`customer ${index}`).digest()),
  )
  for (const payer of payers) {
    const owner = payer.publicKey.toBase58()
    await sim.submitTransfer(network, { to: owner, amount: '1000', currency: 'SOL' })
    for (const currency of Object.keys(mints)) {
      const address = associatedTokenAccount(owner, mints[currency].mint)
      await sim.openTokenAccount(network, { owner, currency, address })
      await sim.submitTransfer(network, { to: address, amount: '100000000', currency })
    }
  }
  await sim.mineBlocks(network, 1)
  const native = resolveAsset(registry, { network, currency: 'SOL' })
  return {
    async pay(payment, { currency, amount }) {
      const owner = payment.created.address
      if (currency === native.currency) {
        const { txHash } = await sim.submitTransfer(network, { to: owner, amount, currency })
        return txHash
      }
      const { mint, decimals } = mints[currency]
      const payer = payers[Math.floor(random.next() * payers.length)]
      const mintKey = new web3.PublicKey(mint)
      const ownerKey = new web3.PublicKey(owner)
      const destination = new web3.PublicKey(associatedTokenAccount(owner, mint))
      const source = new web3.PublicKey(associatedTokenAccount(payer.publicKey.toBase58(), mint))
      const instructions = []
      if ((await sim.solanaAccount(network, destination.toBase58())).token === undefined) {
        instructions.push(
          splToken.createAssociatedTokenAccountIdempotentInstruction(
            payer.publicKey,
            destination,
            ownerKey,
            mintKey,
          ),
        )
      }
      instructions.push(
        splToken.createTransferCheckedInstruction(
          source,
          mintKey,
          destination,
          payer.publicKey,
          unitsOf(amount, decimals),
          decimals,
        ),
      )
      const transaction = new web3.Transaction({
        feePayer: payer.publicKey,
        recentBlockhash: (await sim.head(network)).hash,
      }).add(...instructions)
      transaction.sign(payer)
      const { signature } = await sim.sendSolanaTransaction(network, transaction.serialize())
      return signature
    },
  }
}

function unitsOf(amount, decimals) {
  const [whole, fraction = ''] = amount.split('.')
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

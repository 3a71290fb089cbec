// A wallet that pays on a simulated Solana network the way real wallets pay: a funded keypair that
// builds its transactions with @solana/web3.js and @solana/spl-token, signs them and sends them to
// the simulator node over HTTP, as Phantom, Solflare or an exchange sends them to a validator's RPC.
// SOL goes to the owner (SystemProgram.transfer); a token goes to the owner's associated token
// account, made in the same transaction if need be (createAssociatedTokenAccountIdempotent: the
// payer pays its rent) and paid with TransferChecked, or to another token account of the owner.
// Several payments make one transaction (an exchange's batched payouts).
import { defaultAssetRegistry, resolveAsset, toUnits } from '@chainpay/domain'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import type { ChainSimulator } from '../simulator.js'

export interface SolanaPayment {
  /** the owner paid: SOL goes to it, a token to its associated token account */
  to: string
  /** decimal amount in whole units of the currency, e.g. "12.5" */
  amount: string
  /** SOL or an SPL currency of the registry (USDC, USDT) */
  currency: string
  /** a token account of `to` to pay instead of its associated one (which is then left alone) */
  tokenAccount?: string | undefined
}

export interface SolanaPayOptions {
  /**
   * sent without preflight, as exchanges and bots send: a transaction whose instructions fail (a
   * payment beyond what the wallet holds) goes on chain and fails there, its fee charged
   */
  skipPreflight?: boolean
}

export interface SolanaWalletPaid {
  txHash: string
  /** lamports the wallet paid in fees (signature and priority fee), rent not included */
  fee: bigint
}

export interface SolanaWallet {
  readonly network: string
  /** the paying account: fee payer, signer, and owner of the token accounts paid from */
  readonly address: string
  /** one signed transaction with each payment's instructions, sent and accepted (not yet in a block) */
  pay(
    payments: SolanaPayment | readonly SolanaPayment[],
    options?: SolanaPayOptions,
  ): Promise<SolanaWalletPaid>
  /** the associated token account of `owner` for an SPL currency */
  associatedTokenAccount(owner: string, currency: string): string
}

export interface SolanaWalletOptions {
  /** what the wallet holds, in whole units by currency; default 1,000 SOL and 1,000,000 of each SPL token */
  funds?: Record<string, string>
  /** the compute budget a wallet sets, as Phantom does; null: none. Default 100,000 units at 50,000 micro-lamports */
  computeBudget?: { units: number; microLamports: number } | null
}

const DEFAULT_SOL = '1000'
const DEFAULT_TOKENS = '1000000'
const DEFAULT_COMPUTE_BUDGET = { units: 100_000, microLamports: 50_000 }

/** where a wallet sends its transactions, and how the test funds it: a simulator node, or a running chainpay's dev routes */
export interface SolanaWalletNode {
  solanaUrl(network: string): string
  simulator: Pick<ChainSimulator, 'submitTransfer' | 'openTokenAccount' | 'mineBlocks'>
}

/**
 * a node over the simulator routes of a running chainpay (standalone, or the chain-indexer of a
 * cluster): JSON-RPC at `/chains/<network>`, funding through `/dev/chains/<network>/...`
 */
export function devRoutesNode(baseUrl: string, simulatorToken?: string): SolanaWalletNode {
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(simulatorToken === undefined ? {} : { 'x-simulator-token': simulatorToken }),
      },
      body: JSON.stringify(body),
    })
    const answer = (await response.json()) as Record<string, unknown>
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }
  return {
    solanaUrl: (network) => `${baseUrl}/chains/${network}`,
    simulator: {
      submitTransfer: async (network, transfer) =>
        (await post(`/dev/chains/${network}/transfers`, transfer)) as { txHash: string },
      openTokenAccount: async (network, request) =>
        (await post(`/dev/chains/${network}/token-accounts`, request)) as never,
      mineBlocks: async (network, count) => (await post(`/dev/chains/${network}/blocks`, { count })) as never,
    },
  }
}

/**
 * a new keypair on `network` of the node, funded by simulated transfers (SOL to it, each token into
 * its associated token account, opened as its own) confirmed in a new block
 */
export async function solanaWallet(
  node: SolanaWalletNode,
  network: string,
  options: SolanaWalletOptions = {},
): Promise<SolanaWallet> {
  const { simulator } = node
  const keypair = Keypair.generate()
  const address = keypair.publicKey.toBase58()
  const connection = new Connection(node.solanaUrl(network), { commitment: 'confirmed', httpAgent: false })
  const computeBudget = options.computeBudget === undefined ? DEFAULT_COMPUTE_BUDGET : options.computeBudget
  const assetOf = (currency: string) => resolveAsset(defaultAssetRegistry, { network, currency })
  const associatedTokenAccount = (owner: string, currency: string) => {
    const mint = assetOf(currency).contract
    if (mint === null) throw new Error(`${currency} is no SPL token of ${network}`)
    return getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true).toBase58()
  }

  const funds =
    options.funds ??
    Object.fromEntries(
      defaultAssetRegistry.assets
        .filter((asset) => asset.network === network)
        .map((asset) => [asset.currency, asset.contract === null ? DEFAULT_SOL : DEFAULT_TOKENS]),
    )
  for (const [currency, amount] of Object.entries(funds)) {
    if (assetOf(currency).contract === null) {
      await simulator.submitTransfer(network, { to: address, amount, currency })
      continue
    }
    const account = associatedTokenAccount(address, currency)
    await simulator.openTokenAccount(network, { owner: address, currency, address: account })
    await simulator.submitTransfer(network, { to: account, amount, currency })
  }
  await simulator.mineBlocks(network, 1)

  function instructionsOf(payment: SolanaPayment): TransactionInstruction[] {
    const asset = assetOf(payment.currency)
    const units = toUnits(payment.amount, asset.decimals)
    const owner = new PublicKey(payment.to)
    if (asset.contract === null) {
      return [SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: owner, lamports: units })]
    }
    const mint = new PublicKey(asset.contract)
    const source = new PublicKey(associatedTokenAccount(address, payment.currency))
    const transfer = (destination: PublicKey) =>
      createTransferCheckedInstruction(source, mint, destination, keypair.publicKey, units, asset.decimals)
    if (payment.tokenAccount !== undefined) return [transfer(new PublicKey(payment.tokenAccount))]
    const destination = new PublicKey(associatedTokenAccount(payment.to, payment.currency))
    return [
      createAssociatedTokenAccountIdempotentInstruction(keypair.publicKey, destination, owner, mint),
      transfer(destination),
    ]
  }

  return {
    network,
    address,
    associatedTokenAccount,

    async pay(payments, payOptions = {}) {
      const list: readonly SolanaPayment[] = Array.isArray(payments) ? payments : [payments as SolanaPayment]
      const budget =
        computeBudget === null
          ? []
          : [
              ComputeBudgetProgram.setComputeUnitLimit({ units: computeBudget.units }),
              ComputeBudgetProgram.setComputeUnitPrice({ microLamports: computeBudget.microLamports }),
            ]
      const { blockhash } = await connection.getLatestBlockhash('confirmed')
      const message = new TransactionMessage({
        payerKey: keypair.publicKey,
        recentBlockhash: blockhash,
        instructions: [...budget, ...list.flatMap(instructionsOf)],
      }).compileToV0Message()
      const fee = (await connection.getFeeForMessage(message, 'confirmed')).value
      const transaction = new VersionedTransaction(message)
      transaction.sign([keypair])
      const txHash = await connection.sendRawTransaction(transaction.serialize(), {
        skipPreflight: payOptions.skipPreflight === true,
        preflightCommitment: 'confirmed',
      })
      return { txHash, fee: BigInt(fee ?? 0) }
    },
  }
}

// The transfers a Solana transaction makes, read the way an exchange reads deposits: from the
// balance changes the node reports (they include transfers made by other programs), never from the
// instructions alone. SOL is a positive lamport delta of a system account; an SPL token is a
// positive token balance delta of a token account, for the registry's mints only, with the token
// account's owner. The lamports a token account gets are not SOL anybody was paid: the rent of a
// token account the transaction creates (0.00203928 SOL, docs/chains.md), or wrapped SOL. A failed
// transaction moves nothing but its fee, so it is reported through the transfers its instructions
// ask for. Both Solana address readers (the web3.js adapter and the simulator's own) and the block
// client read transfers here, so that they report the same for the same transaction.
import { type AssetRegistry, findAssetByContract } from '@chainpay/domain'
import { ChainRpcError, type ChainTransfer, type TransferAsset } from './chain.js'

/** an account key: a web3.js PublicKey, or the base58 text of a raw JSON answer */
type Key = string | { toBase58(): string }

export interface SolanaTokenBalance {
  accountIndex: number
  mint: string
  /** the token account's owner; every node since 1.8 names it */
  owner?: string | undefined
  uiTokenAmount: { amount: string }
}

export interface SolanaTransactionMeta {
  err: unknown
  preBalances: ReadonlyArray<number | bigint>
  postBalances: ReadonlyArray<number | bigint>
  preTokenBalances?: readonly SolanaTokenBalance[] | null | undefined
  postTokenBalances?: readonly SolanaTokenBalance[] | null | undefined
  /** with `json` encoding: the lookup table keys, which accountKeys does not list */
  loadedAddresses?: { writable: readonly Key[]; readonly: readonly Key[] } | undefined
}

/** jsonParsed: `program` and `parsed` for the programs the node knows; json: raw, left unread */
export interface SolanaInstruction {
  program?: string
  programId?: Key
  parsed?: unknown
}

/** a transaction of a getBlock (or getTransaction) answer with its message, `jsonParsed` or `json` */
export interface SolanaFullTransaction {
  transaction: {
    signatures: readonly string[]
    message: {
      /** jsonParsed: annotated keys, lookup table keys included; json: the static keys only */
      accountKeys: ReadonlyArray<Key | { pubkey: Key }>
      instructions: readonly SolanaInstruction[]
    }
  }
  meta: SolanaTransactionMeta | null
}

/** a transaction of a getBlock answer with `transactionDetails: "accounts"`: every key, no instructions */
export interface SolanaAccountsTransaction {
  transaction: {
    signatures: readonly string[]
    accountKeys: ReadonlyArray<{ pubkey: Key }>
  }
  meta: SolanaTransactionMeta | null
}

export type SolanaTransactionWithMeta = SolanaFullTransaction | SolanaAccountsTransaction

/** which transfers count: the network's native coin and its registered SPL mints */
export interface SolanaTransferFilter {
  native: boolean
  mints: ReadonlySet<string>
}

export function solanaTransferFilter(registry: AssetRegistry, network: string): SolanaTransferFilter {
  const mints = registry.assets
    .filter((asset) => asset.network === network && asset.tokenStandard === 'SPL' && asset.contract !== null)
    .map((asset) => asset.contract as string)
  return { native: findAssetByContract(registry, network, null) !== undefined, mints: new Set(mints) }
}

interface Credit {
  accountIndex: number
  asset: TransferAsset
  amount: bigint
  /** the token account's owner, where the node names it */
  owner?: string | undefined
}

/**
 * The transfers of one transaction, ordered by the receiving account's index (native before token
 * for the same account), `index` numbering them 0, 1, 2... so that it is the same every time the
 * transaction is read. Throws ChainRpcError 'bad-response' for a transaction it cannot read.
 */
export function solanaTransfersOf(
  transaction: SolanaTransactionWithMeta,
  filter: SolanaTransferFilter,
): ChainTransfer[] {
  const txHash = transaction.transaction.signatures[0]
  const { meta } = transaction
  if (txHash === undefined) throw shapeError('a transaction without a signature')
  if (meta === null) throw shapeError(`transaction ${txHash} without status metadata`)
  const keys = accountKeysOf(transaction)
  const success = meta.err === null
  const credits = success ? balanceCredits(keys, meta, filter) : instructionCredits(keys, transaction, filter)
  credits.sort(
    (left, right) => left.accountIndex - right.accountIndex || rank(left.asset) - rank(right.asset),
  )
  return credits.map((credit, index) => {
    const to = keys[credit.accountIndex] as string
    return {
      txHash,
      index,
      // the fee payer: the first signer, the first account key
      from: keys[0] ?? null,
      to,
      owner: credit.asset.kind === 'native' ? to : (credit.owner ?? to),
      asset: credit.asset,
      amountUnits: credit.amount.toString(),
      success,
    }
  })
}

function rank(asset: TransferAsset): number {
  return asset.kind === 'native' ? 0 : 1
}

/** every key the balance arrays refer to, in their order */
function accountKeysOf(transaction: SolanaTransactionWithMeta): string[] {
  const listed =
    'message' in transaction.transaction
      ? transaction.transaction.message.accountKeys
      : transaction.transaction.accountKeys
  const annotated = listed.some((key) => typeof key === 'object' && 'pubkey' in key)
  const keys = listed.map((key) => keyText(typeof key === 'object' && 'pubkey' in key ? key.pubkey : key))
  const loaded = transaction.meta?.loadedAddresses
  // jsonParsed lists lookup table keys itself; json leaves them to loadedAddresses
  if (!annotated && loaded) keys.push(...loaded.writable.map(keyText), ...loaded.readonly.map(keyText))
  return keys
}

function keyText(key: Key): string {
  return typeof key === 'string' ? key : key.toBase58()
}

function balanceCredits(keys: string[], meta: SolanaTransactionMeta, filter: SolanaTransferFilter): Credit[] {
  const credits: Credit[] = []
  if (meta.preBalances.length !== keys.length || meta.postBalances.length !== keys.length) {
    throw shapeError(
      `${keys.length} account keys but ${meta.preBalances.length}/${meta.postBalances.length} balances`,
    )
  }
  // an account created in this transaction has no entry before: its balance was 0
  const before = tokenAmounts(meta.preTokenBalances, keys)
  const after = tokenAmounts(meta.postTokenBalances, keys)
  if (filter.native) {
    for (const accountIndex of keys.keys()) {
      // a token account's lamports are its rent (or wrapped SOL), never SOL paid to an address
      if (before.has(accountIndex) || after.has(accountIndex)) continue
      const amount = lamports(meta.postBalances[accountIndex]) - lamports(meta.preBalances[accountIndex])
      if (amount > 0n) credits.push({ accountIndex, asset: { kind: 'native' }, amount })
    }
  }
  for (const [accountIndex, { mint, owner, amount: held }] of after) {
    if (!filter.mints.has(mint)) continue
    const previous = before.get(accountIndex)
    const amount = held - (previous?.mint === mint ? previous.amount : 0n)
    if (amount > 0n) credits.push({ accountIndex, asset: { kind: 'token', contract: mint }, amount, owner })
  }
  return credits
}

function tokenAmounts(
  balances: readonly SolanaTokenBalance[] | null | undefined,
  keys: string[],
): Map<number, { mint: string; owner: string | undefined; amount: bigint }> {
  const amounts = new Map<number, { mint: string; owner: string | undefined; amount: bigint }>()
  for (const balance of balances ?? []) {
    const { accountIndex, mint, owner } = balance
    if (!Number.isSafeInteger(accountIndex) || accountIndex < 0 || accountIndex >= keys.length) {
      throw shapeError(`token balance of account index ${accountIndex}, outside the ${keys.length} keys`)
    }
    amounts.set(accountIndex, { mint, owner, amount: tokenUnits(balance.uiTokenAmount?.amount) })
  }
  return amounts
}

/** what a failed transaction's system and token transfer instructions would have paid */
function instructionCredits(
  keys: string[],
  transaction: SolanaTransactionWithMeta,
  filter: SolanaTransferFilter,
): Credit[] {
  const meta = transaction.meta as SolanaTransactionMeta
  const mintOfAccount = new Map<string, string>()
  const ownerOfAccount = new Map<string, string>()
  for (const balance of [...(meta.preTokenBalances ?? []), ...(meta.postTokenBalances ?? [])]) {
    const key = keys[balance.accountIndex]
    if (key !== undefined) mintOfAccount.set(key, balance.mint)
    if (key !== undefined && balance.owner !== undefined) ownerOfAccount.set(key, balance.owner)
  }
  const byAccountAndAsset = new Map<string, Credit>()
  // accounts-only blocks carry no instructions: a failed transaction there reports nothing, and a
  // followed transfer that a fork made fail is settled by its signature status instead
  const instructions =
    'message' in transaction.transaction ? transaction.transaction.message.instructions : []
  for (const instruction of instructions) {
    const transfer = requestedTransfer(instruction, mintOfAccount)
    if (transfer === undefined) continue
    const allowed =
      transfer.asset.kind === 'native' ? filter.native : filter.mints.has(transfer.asset.contract)
    const accountIndex = keys.indexOf(transfer.destination)
    if (!allowed || accountIndex < 0 || transfer.amount <= 0n) continue
    const key = `${accountIndex}:${transfer.asset.kind === 'native' ? '' : transfer.asset.contract}`
    const credit = byAccountAndAsset.get(key)
    if (credit) credit.amount += transfer.amount
    else {
      const owner = ownerOfAccount.get(transfer.destination)
      byAccountAndAsset.set(key, { accountIndex, asset: transfer.asset, amount: transfer.amount, owner })
    }
  }
  return [...byAccountAndAsset.values()]
}

interface RequestedTransfer {
  destination: string
  asset: TransferAsset
  amount: bigint
}

const TOKEN_PROGRAMS = new Set(['spl-token', 'spl-token-2022'])

function requestedTransfer(
  instruction: SolanaInstruction,
  mintOfAccount: Map<string, string>,
): RequestedTransfer | undefined {
  const { program, parsed } = instruction
  if (typeof parsed !== 'object' || parsed === null) return undefined
  const { type, info } = parsed as { type?: unknown; info?: Record<string, unknown> }
  if (typeof info !== 'object' || info === null || typeof info.destination !== 'string') return undefined
  const destination = info.destination
  if (program === 'system' && type === 'transfer') {
    return { destination, asset: { kind: 'native' }, amount: lamports(info.lamports) }
  }
  if (program === undefined || !TOKEN_PROGRAMS.has(program)) return undefined
  if (type === 'transferChecked') {
    const { mint, tokenAmount } = info as { mint?: unknown; tokenAmount?: { amount?: unknown } }
    if (typeof mint !== 'string') return undefined
    return { destination, asset: { kind: 'token', contract: mint }, amount: tokenUnits(tokenAmount?.amount) }
  }
  if (type === 'transfer') {
    // a plain transfer does not name its mint: the token accounts' balance entries do
    const source = typeof info.source === 'string' ? info.source : undefined
    const mint = mintOfAccount.get(destination) ?? (source && mintOfAccount.get(source))
    if (!mint) return undefined
    return { destination, asset: { kind: 'token', contract: mint }, amount: tokenUnits(info.amount) }
  }
  return undefined
}

/**
 * Lamports as the node writes them, JSON numbers. A balance above 2^53 has already lost precision
 * in JSON.parse; it is still read, because such accounts (stake pools, exchanges) share blocks
 * with the ones watched.
 */
function lamports(value: unknown): bigint {
  if (typeof value === 'bigint' && value >= 0n) return value
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return BigInt(value)
  throw shapeError(`lamports that are not a non-negative integer: ${JSON.stringify(String(value))}`)
}

/** a token amount as the node writes it: a decimal string of base units */
function tokenUnits(value: unknown): bigint {
  if (typeof value === 'string' && /^\d{1,30}$/.test(value)) return BigInt(value)
  throw shapeError(`a token amount that is not a decimal integer: ${JSON.stringify(String(value))}`)
}

function shapeError(detail: string): ChainRpcError {
  return new ChainRpcError('bad-response', `unreadable Solana transaction: ${detail}`)
}

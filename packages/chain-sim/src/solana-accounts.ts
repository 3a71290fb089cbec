// Accounts as getAccountInfo, getTokenAccountsByOwner and the pubsub notifications render them:
// a system account with no data, an SPL token account's 165 bytes, a nonce account's 80 (or their
// jsonParsed forms). getTokenAccountsByOwner and the notifications show an account as the last
// transaction that touched it left it; getAccountInfo reads the ledger of signed transactions.
import { base58, base64 } from '@scure/base'
import { LAMPORTS_PER_SIGNATURE, NONCE_ACCOUNT_SPACE } from './solana-ledger.js'
import { type SolanaTransaction, SYSTEM_PROGRAM_ID, TOKEN_PROGRAM_ID } from './solana-rpc-blocks.js'

type Json = Record<string, unknown>

/** `binary`: a node's legacy default, a bare base58 string */
export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'jsonParsed'

/** rentEpoch of a rent-exempt account: u64::MAX */
const RENT_EXEMPT_EPOCH = 18_446_744_073_709_551_615n
export const TOKEN_ACCOUNT_SPACE = 165

/** what a token account holds: its post token balance in a transaction */
export interface TokenHolding {
  mint: string
  owner: string
  uiTokenAmount: { amount: string } & Json
}

/** the token account's holding after the transaction; undefined if the key is no token account of it */
export function tokenHoldingAfter(transaction: SolanaTransaction, address: string): TokenHolding | undefined {
  const index = transaction.keys.findIndex((key) => key.pubkey === address)
  return transaction.postTokenBalances.find((balance) => balance.accountIndex === index) as
    | TokenHolding
    | undefined
}

/** an account's state after a transaction, as getAccountInfo and accountNotification give it */
export function accountStateAfter(
  transaction: SolanaTransaction,
  address: string,
  encoding: AccountEncoding,
): Json {
  const index = transaction.keys.findIndex((key) => key.pubkey === address)
  return renderAccount(
    transaction.postBalances[index] ?? 0n,
    tokenHoldingAfter(transaction, address),
    encoding,
  )
}

/** a system account (no holding) or a token account, in the node's account shape */
export function renderAccount(
  lamports: bigint,
  token: TokenHolding | undefined,
  encoding: AccountEncoding,
): Json {
  const state = { executable: false, lamports, rentEpoch: RENT_EXEMPT_EPOCH }
  if (token === undefined) {
    return { ...state, data: encoded(new Uint8Array(0), encoding), owner: SYSTEM_PROGRAM_ID, space: 0 }
  }
  const data =
    encoding === 'jsonParsed'
      ? {
          parsed: {
            info: {
              isNative: false,
              mint: token.mint,
              owner: token.owner,
              state: 'initialized',
              tokenAmount: token.uiTokenAmount,
            },
            type: 'account',
          },
          program: 'spl-token',
          space: TOKEN_ACCOUNT_SPACE,
        }
      : encoded(tokenAccountData(token.mint, token.owner, BigInt(token.uiTokenAmount.amount)), encoding)
  return { ...state, data, owner: TOKEN_PROGRAM_ID, space: TOKEN_ACCOUNT_SPACE }
}

/** an SPL mint's 82 bytes: no mint authority, supply 0, its decimals, initialized, no freeze authority */
const MINT_ACCOUNT_SPACE = 82

/** a mint as a node shows it, owned by its token program (the classic one, or Token-2022) */
export function renderMintAccount(
  lamports: bigint,
  mint: { program: string; decimals: number },
  encoding: AccountEncoding,
): Json {
  const state = { executable: false, lamports, rentEpoch: RENT_EXEMPT_EPOCH }
  const bytes = new Uint8Array(MINT_ACCOUNT_SPACE)
  // mint_authority COption (4 + 32), supply u64 (8), then decimals and is_initialized
  bytes[44] = mint.decimals
  bytes[45] = 1
  const data =
    encoding === 'jsonParsed'
      ? {
          parsed: {
            info: {
              decimals: mint.decimals,
              freezeAuthority: null,
              isInitialized: true,
              mintAuthority: null,
              supply: '0',
            },
            type: 'mint',
          },
          program: mint.program === TOKEN_PROGRAM_ID ? 'spl-token' : 'spl-token-2022',
          space: MINT_ACCOUNT_SPACE,
        }
      : encoded(bytes, encoding)
  return { ...state, data, owner: mint.program, space: MINT_ACCOUNT_SPACE }
}

/**
 * a durable nonce account: 80 bytes of version (1, current), state (0 uninitialized, 1 initialized),
 * authority, nonce and the fee calculator's lamports per signature, as web3.js's NonceAccount reads them
 */
export function renderNonceAccount(
  lamports: bigint,
  nonce: { authority: string; nonce: string | undefined },
  encoding: AccountEncoding,
): Json {
  const state = { executable: false, lamports, rentEpoch: RENT_EXEMPT_EPOCH }
  const data = new Uint8Array(NONCE_ACCOUNT_SPACE)
  const view = new DataView(data.buffer)
  view.setUint32(0, 1, true)
  if (nonce.nonce !== undefined) {
    view.setUint32(4, 1, true)
    data.set(base58.decode(nonce.authority), 8)
    data.set(base58.decode(nonce.nonce), 40)
    view.setBigUint64(72, LAMPORTS_PER_SIGNATURE, true)
  }
  const rendered =
    encoding === 'jsonParsed'
      ? {
          parsed:
            nonce.nonce === undefined
              ? { type: 'uninitialized' }
              : {
                  info: {
                    authority: nonce.authority,
                    blockhash: nonce.nonce,
                    feeCalculator: { lamportsPerSignature: LAMPORTS_PER_SIGNATURE.toString() },
                  },
                  type: 'initialized',
                },
          program: 'nonce',
          space: NONCE_ACCOUNT_SPACE,
        }
      : encoded(data, encoding)
  return { ...state, data: rendered, owner: SYSTEM_PROGRAM_ID, space: NONCE_ACCOUNT_SPACE }
}

/** an SPL token account's 165 bytes: mint, owner, amount, no delegate, initialized, not native */
export function tokenAccountData(mint: string, owner: string, amount: bigint): Uint8Array {
  const data = new Uint8Array(TOKEN_ACCOUNT_SPACE)
  data.set(base58.decode(mint), 0)
  data.set(base58.decode(owner), 32)
  new DataView(data.buffer).setBigUint64(64, amount, true)
  data[108] = 1 // AccountState::Initialized, after the 36 bytes of the delegate option
  return data
}

function encoded(data: Uint8Array, encoding: AccountEncoding): unknown {
  if (encoding === 'binary') return base58.encode(data)
  if (encoding === 'base58') return [base58.encode(data), 'base58']
  // jsonParsed falls back to base64 for what it cannot parse
  return [base64.encode(data), 'base64']
}

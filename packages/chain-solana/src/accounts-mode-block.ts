// getBlock with `transactionDetails: "accounts"`: each transaction's signatures, every account key
// it touched (lookup table keys included) and its balance changes, without instructions; a tenth
// of a full block's bytes. Sent through web3.js's own JSON-RPC transport, but checked here by a
// compiled schema of just the fields the block scanner reads: web3.js's validation of this answer
// (superstruct, a PublicKey per account key) took half the CPU of following a 1,000-transfer block
// and kept the scanner near the slot rate (docs/benchmarks.md, "Solana blocks with accounts only").
import { ChainRpcError } from '@chainpay/ports'
import { type Connection, SolanaJSONRPCError } from '@solana/web3.js'
import Type, { type Static } from 'typebox'
import { Compile } from 'typebox/compile'

const Lamports = Type.Array(Type.Number())
const TokenBalances = Type.Union([
  Type.Null(),
  Type.Array(
    Type.Object({
      accountIndex: Type.Number(),
      mint: Type.String(),
      uiTokenAmount: Type.Object({ amount: Type.String() }),
    }),
  ),
])

const AccountsModeBlockSchema = Type.Object({
  blockhash: Type.String(),
  previousBlockhash: Type.String(),
  parentSlot: Type.Number(),
  blockTime: Type.Union([Type.Number(), Type.Null()]),
  transactions: Type.Array(
    Type.Object({
      transaction: Type.Object({
        signatures: Type.Array(Type.String()),
        accountKeys: Type.Array(Type.Object({ pubkey: Type.String() })),
      }),
      meta: Type.Union([
        Type.Null(),
        Type.Object({
          err: Type.Unknown(),
          preBalances: Lamports,
          postBalances: Lamports,
          preTokenBalances: Type.Optional(TokenBalances),
          postTokenBalances: Type.Optional(TokenBalances),
        }),
      ]),
    }),
  ),
})

export type AccountsModeBlock = Static<typeof AccountsModeBlockSchema>

const blockValidator = Compile(AccountsModeBlockSchema)

/** the part of web3.js's Connection every one of its methods sends through: the raw JSON-RPC answer */
interface JsonRpcTransport {
  _rpcRequest(method: string, args: unknown[]): Promise<unknown>
}

/**
 * The block at `slot` at `confirmed`, null when the node answers null. A JSON-RPC error is thrown
 * as web3.js throws it (SolanaJSONRPCError, with the node's code); an answer of another shape is a
 * ChainRpcError 'bad-response'.
 */
export async function getAccountsModeBlock(
  connection: Connection,
  slot: number,
): Promise<AccountsModeBlock | null> {
  const config = {
    commitment: 'confirmed',
    maxSupportedTransactionVersion: 0,
    transactionDetails: 'accounts',
    rewards: false,
  }
  const answer = await (connection as unknown as JsonRpcTransport)._rpcRequest('getBlock', [slot, config])
  if (typeof answer !== 'object' || answer === null) throw badResponse('not a JSON-RPC answer')
  if ('error' in answer && answer.error !== undefined) {
    const error = answer.error as { code: unknown; message: string; data?: unknown }
    throw new SolanaJSONRPCError(error, 'failed to get confirmed block')
  }
  const result = 'result' in answer ? answer.result : undefined
  if (result === null) return null
  if (!blockValidator.Check(result)) {
    const [problem] = blockValidator.Errors(result)
    throw badResponse(problem ? `${problem.instancePath || '(root)'}: ${problem.message}` : 'no result')
  }
  return result
}

function badResponse(detail: string): ChainRpcError {
  return new ChainRpcError('bad-response', `unreadable Solana block: ${detail}`)
}

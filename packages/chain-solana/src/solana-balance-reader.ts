// What a Solana address holds now (docs/api.md, "Balances and sweeps"), at `confirmed`: SOL from
// getBalance; an SPL token from every token account of the owner for the mint
// (getTokenAccountsByOwner, jsonParsed): none holds 0.

import type { BalanceHolder, ChainBalanceReader } from '@chainpay/ports'
import { ChainRpcError } from '@chainpay/ports'
import { PublicKey } from '@solana/web3.js'
import { createSolanaConnection, type SolanaConnectionOptions } from './solana-connection.js'
import { toChainRpcError, whereAndRedactor } from './solana-rpc-errors.js'

export interface SolanaBalanceReaderOptions
  extends Pick<SolanaConnectionOptions, 'rpcUrl' | 'fallbacks' | 'timeoutMs' | 'headers' | 'logger'> {
  network: string
}

export function createSolanaBalanceReader(options: SolanaBalanceReaderOptions): ChainBalanceReader {
  const { network } = options
  const { where, redact } = whereAndRedactor(network, [
    options.rpcUrl,
    ...(options.fallbacks ?? []).map((node) => node.rpcUrl),
  ])
  const connection = createSolanaConnection(options)

  async function call<T>(method: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      throw toChainRpcError(error, `Solana ${method} on ${where}`, redact)
    }
  }

  const tokenAccountAmount = (data: unknown, mint: string): bigint => {
    const info = (data as { parsed?: { info?: { mint?: unknown; tokenAmount?: { amount?: unknown } } } })
      ?.parsed?.info
    const amount = info?.tokenAmount?.amount
    if (info?.mint !== mint || typeof amount !== 'string' || !/^[0-9]+$/.test(amount)) {
      throw new ChainRpcError(
        'bad-response',
        `Solana getTokenAccountsByOwner on ${where}: not a token account of ${mint}`,
      )
    }
    return BigInt(amount)
  }

  return {
    network,
    async balanceOf({ address, contract }: BalanceHolder) {
      const owner = publicKey(address, where)
      if (contract === null) return BigInt(await call('getBalance', () => connection.getBalance(owner)))
      const accounts = await call('getTokenAccountsByOwner', () =>
        connection.getParsedTokenAccountsByOwner(owner, { mint: publicKey(contract, where) }),
      )
      return accounts.value.reduce(
        (total, { account }) => total + tokenAccountAmount(account.data, contract),
        0n,
      )
    },
  }
}

function publicKey(text: string, where: string): PublicKey {
  try {
    return new PublicKey(text)
  } catch {
    throw new ChainRpcError('bad-response', `${where}: ${text} is not a Solana address`)
  }
}

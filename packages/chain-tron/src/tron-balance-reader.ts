// What a TRON account holds now (docs/api.md, "Balances and sweeps"), through tronweb: TRX from
// wallet/getaccount (`balance` in sun; an account the chain has not activated answers `{}`), a TRC20
// token from a constant call of balanceOf(address) (wallet/triggerconstantcontract), both read by the
// full node.

import type { BalanceHolder, ChainBalanceReader } from '@chainpay/ports'
import { ChainRpcError } from '@chainpay/ports'
import { TronWeb } from 'tronweb'
import { toChainRpcError } from './tron-rpc-errors.js'
import { createTronWeb, type TronNodeOptions } from './tron-web.js'

export interface TronBalanceReaderOptions extends Omit<TronNodeOptions, 'timeoutMs'> {
  network: string
  /** per request; default 10 s */
  timeoutMs?: number | undefined
}

export function createTronBalanceReader(options: TronBalanceReaderOptions): ChainBalanceReader {
  const { network, apiKey } = options
  const tronWeb = createTronWeb({ ...options, timeoutMs: options.timeoutMs ?? 10_000 })

  async function call<T>(endpoint: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      throw toChainRpcError(error, `${network} ${endpoint}`, apiKey)
    }
  }

  const trxOf = async (address: string): Promise<bigint> => {
    const account = await call('wallet/getaccount', () => tronWeb.trx.getAccount(address))
    return units((account as { balance?: unknown }).balance ?? 0, `${network} wallet/getaccount balance`)
  }

  const trc20Of = async (address: string, contract: string): Promise<bigint> => {
    const endpoint = 'wallet/triggerconstantcontract'
    const answer = await call(endpoint, () =>
      tronWeb.transactionBuilder.triggerConstantContract(
        contract,
        'balanceOf(address)',
        {},
        [{ type: 'address', value: address }],
        address,
      ),
    )
    const [word] = answer.constant_result ?? []
    if (answer.result?.result !== true || typeof word !== 'string' || !/^[0-9a-fA-F]{64}$/.test(word)) {
      throw new ChainRpcError(
        'bad-response',
        `${network} ${endpoint}: balanceOf on ${contract} answered no amount`,
      )
    }
    return BigInt(`0x${word}`)
  }

  return {
    network,
    async balanceOf({ address, contract }: BalanceHolder) {
      if (!TronWeb.isAddress(address)) {
        throw new ChainRpcError('bad-response', `${network}: ${address} is not a TRON address`)
      }
      return contract === null ? trxOf(address) : trc20Of(address, contract)
    },
  }
}

/** sun as java-tron prints it: a JSON number, or its decimal text above 2^53 (exact-json.ts) */
function units(value: unknown, what: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value)
  if (typeof value === 'string' && /^[0-9]+$/.test(value)) return BigInt(value)
  throw new ChainRpcError('bad-response', `${what}: expected a non-negative integer`)
}

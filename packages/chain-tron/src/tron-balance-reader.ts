// What a TRON account holds now (docs/api.md, "Balances and sweeps"): TRX from wallet/getaccount
// (`balance` in sun; an account the chain has not activated answers `{}`), a TRC20 token from a
// constant call of balanceOf(address) (wallet/triggerconstantcontract), both read by the full node.

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

  const post = async (endpoint: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    let raw: unknown
    try {
      raw = await tronWeb.fullNode.request(endpoint, body, 'post')
    } catch (error) {
      throw toChainRpcError(error, `${network} ${endpoint}`, apiKey)
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ChainRpcError('bad-response', `${network} ${endpoint}: expected a JSON object`)
    }
    return raw as Record<string, unknown>
  }

  const trxOf = async (address: string): Promise<bigint> => {
    const account = await post('wallet/getaccount', { address, visible: true })
    return units(account.balance ?? 0, `${network} wallet/getaccount balance`)
  }

  const trc20Of = async (address: string, contract: string): Promise<bigint> => {
    const endpoint = 'wallet/triggerconstantcontract'
    const answer = await post(endpoint, {
      owner_address: address,
      contract_address: contract,
      function_selector: 'balanceOf(address)',
      parameter: TronWeb.address.toHex(address).slice(2).padStart(64, '0'),
      visible: true,
    })
    const result = answer.result as { result?: unknown; message?: unknown } | undefined
    const [word] = Array.isArray(answer.constant_result) ? answer.constant_result : []
    if (result?.result !== true || typeof word !== 'string' || !/^[0-9a-fA-F]{64}$/.test(word)) {
      const message = typeof result?.message === 'string' ? `: ${hexText(result.message)}` : ''
      throw new ChainRpcError(
        'bad-response',
        `${network} ${endpoint} balanceOf on ${contract} failed${message}`,
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

/** java-tron sends a contract's failure message hex-encoded */
function hexText(message: string): string {
  const text = /^[0-9a-fA-F]+$/.test(message) ? Buffer.from(message, 'hex').toString('utf8') : message
  return text.replace(/[^\x20-\x7e]/g, '').slice(0, 200)
}

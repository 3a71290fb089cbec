import { describe, expect, it } from 'vitest'
import type { BalanceRow } from './admin-api.js'
import { groupRowsByAddress, plannedSweepsOf } from './shared-address-sweeps.js'

const row = (paymentId: string, fields: Partial<BalanceRow> = {}): BalanceRow => ({
  merchantId: 'mer_1',
  walletId: 'operator',
  paymentId,
  depositId: null,
  network: 'TRON',
  address: 'TJx7ifdpUb8k2ykHrtAS94cf3YH6FSPGti',
  tokenAccount: null,
  derivationPath: "m/44'/195'/0'/2/0",
  currency: 'TRX',
  tokenStandard: 'NATIVE',
  contract: null,
  received: '7',
  swept: '0',
  onChain: '10',
  onChainError: null,
  ...fields,
})

describe('several payments on one address (a customer deposit address)', () => {
  it('plans one row per address and currency, with every payment of the pair by it', () => {
    const first = row('p1')
    const second = row('p2', { received: '3' })
    const usdt = row('p3', { currency: 'USDT', tokenStandard: 'TRC20' })
    const other = row('p4', { address: 'TOther' })
    const { representatives, sharersOf } = groupRowsByAddress([first, second, usdt, other])
    expect(representatives).toEqual([first, usdt, other])
    expect(sharersOf(first)).toEqual([first, second])
    expect(sharersOf(other)).toEqual([other])
  })

  it('records what the step moves against the payments in turn, each up to its unswept funds, the fee once', () => {
    const rows = [
      row('p1', { received: '7', swept: '2' }),
      row('p2', { received: '3' }),
      row('p3', { received: '4' }),
    ]
    const sweeps = plannedSweepsOf(
      rows,
      { units: 7_500_000n, decimals: 6 },
      { units: 100_000n, currency: 'TRX', decimals: 6 },
      'sweep:T:TRX',
    )
    expect(sweeps.map(({ paymentId, amount, fee }) => ({ paymentId, amount, fee }))).toEqual([
      { paymentId: 'p1', amount: '5', fee: '0.1' },
      { paymentId: 'p2', amount: '2.5', fee: '0' },
    ])
  })

  it("records a customer's confirmed deposit on the address after its payments, against the deposit", () => {
    const rows = [
      row('p1', { received: '7' }),
      { ...row('', { received: '5' }), paymentId: null, depositId: 'd1' },
    ]
    const sweeps = plannedSweepsOf(
      rows,
      { units: 12_000_000n, decimals: 6 },
      { units: 0n, currency: 'TRX', decimals: 6 },
      'sweep:T:TRX',
    )
    expect(sweeps.map(({ paymentId, depositId, amount }) => ({ paymentId, depositId, amount }))).toEqual([
      { paymentId: 'p1', amount: '7' },
      { paymentId: null, depositId: 'd1', amount: '5' },
    ])
  })
})

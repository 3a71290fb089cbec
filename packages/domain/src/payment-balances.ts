// What a payment's address received and what was swept from it, per currency (docs/api.md,
// "Balances and sweeps"). Received counts final funds only: counted transfers the chain made
// final, late funds and foreign funds (both recorded once final). Sweeping moves confirmed
// funds (docs/api.md), so what may still be taken back is never offered for a sweep.

import { activeTransfers, isFinalTransfer } from './payment-evolve.js'
import type { OpenPayment } from './payment-types.js'

export interface PaymentBalance {
  currency: string
  decimals: number
  receivedUnits: bigint
  /** the sum of the sweeps' amounts; their fees are apart (feeUnits of each sweep) */
  sweptUnits: bigint
}

/** one entry per currency the address received, the payment's own first, then in arrival order */
export function paymentBalances(payment: OpenPayment): PaymentBalance[] {
  const { created } = payment
  const balances = new Map<string, PaymentBalance>()
  const add = (currency: string, decimals: number, units: bigint) => {
    const balance = balances.get(currency) ?? { currency, decimals, receivedUnits: 0n, sweptUnits: 0n }
    balance.receivedUnits += units
    balances.set(currency, balance)
  }
  // a read model's document folded before TransferDetected's schema version 2 has no `final`
  const final = activeTransfers(payment.transfers).filter((transfer) => isFinalTransfer(transfer, created))
  for (const transfer of [...final, ...payment.lateTransfers])
    add(created.currency, created.decimals, BigInt(transfer.amountUnits))
  for (const funds of payment.foreignFunds) add(funds.currency, funds.decimals, BigInt(funds.amountUnits))
  for (const sweep of payment.sweeps) {
    const balance = balances.get(sweep.currency)
    // the decider records no sweep of a currency the address did not receive
    if (balance !== undefined) balance.sweptUnits += BigInt(sweep.amountUnits)
  }
  return [...balances.values()].filter((balance) => balance.receivedUnits > 0n)
}

/** whether the address received final funds of any currency: the payment has balance rows */
export function hasReceivedFunds(payment: OpenPayment): boolean {
  return paymentBalances(payment).length > 0
}

/** the wallet a payment's address derives from: the operator's unless its PaymentCreated names one */
export const OPERATOR_WALLET_ID = 'operator'

export function paymentWalletId(created: OpenPayment['created']): string {
  // PaymentCreated carries walletId from its schema version 3 (merchant wallets); read defensively
  // so that this holds before and after that version
  const { walletId } = created as { walletId?: unknown }
  return typeof walletId === 'string' && walletId !== '' ? walletId : OPERATOR_WALLET_ID
}

// Several payments on one address (a customer's deposit address, docs/api.md, "Payments on a
// customer's address"): the address is swept by one step per currency, whose amount is what the
// address holds, and that amount is recorded against the payments in turn, each up to what it has
// not had swept yet, the network fee against the first. Without this grouping each payment row would
// plan its own step sending the whole balance, and the plan would announce the address's funds once
// per payment.

import { toUnits } from '@chainpay/domain'
import type { BalanceRow } from './admin-api.js'
import { plannedSweep } from './plan-input.js'
import type { PlannedSweep } from './sweep-plan.js'

/** one row per (address, currency), the first of its rows, with every row of the pair by it */
export function groupRowsByAddress(rows: readonly BalanceRow[]): {
  representatives: BalanceRow[]
  sharersOf(row: BalanceRow): BalanceRow[]
} {
  const groups = new Map<string, BalanceRow[]>()
  for (const row of rows) {
    const key = `${row.address}\n${row.currency}`
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [row])
    else group.push(row)
  }
  return {
    representatives: [...groups.values()].map((group) => group[0] as BalanceRow),
    sharersOf: (row) => groups.get(`${row.address}\n${row.currency}`) ?? [row],
  }
}

/** the sweeps of one step that moved `moved` out of the address, shared among its payments' rows */
export function plannedSweepsOf(
  rows: readonly BalanceRow[],
  moved: { units: bigint; decimals: number },
  fee: { units: bigint; currency: string; decimals: number },
  stepId: string,
): PlannedSweep[] {
  const sweeps: PlannedSweep[] = []
  let remaining = moved.units
  for (const row of rows) {
    if (remaining <= 0n) break
    const record = plannedSweep(
      row,
      { units: remaining, decimals: moved.decimals },
      sweeps.length === 0 ? fee : { ...fee, units: 0n },
      stepId,
    )
    if (record === undefined) continue
    sweeps.push(record)
    remaining -= toUnits(record.amount, moved.decimals)
  }
  return sweeps
}

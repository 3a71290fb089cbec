// `chainpay-wallet plan` without its command line: the chain's planner (tron-planner.ts,
// solana-planner.ts) builds the steps from the balances rows and the chain; this writes them into
// the plan file's shape and says what the plan does in the lines `plan` prints (docs/treasury.md).

import { type Chain, formatUnits } from '@chainpay/domain'
import type { BalanceRow } from './admin-api.js'
import type { PlanInput } from './plan-input.js'
import { FORMAT_VERSION, PLAN_FORMAT, type SweepPlan } from './sweep-plan.js'

export async function planSweep(rows: BalanceRow[], input: PlanInput, chain: Chain): Promise<SweepPlan> {
  const planner =
    chain === 'TRON'
      ? (await import('./tron-planner.js')).planTron
      : (await import('./solana-planner.js')).planSolana
  const output = await planner(rows, input)
  return {
    format: PLAN_FORMAT,
    version: FORMAT_VERSION,
    createdAt: input.now.toISOString(),
    network: input.network,
    chain,
    treasury: { role: 'treasury', ...input.treasury },
    validUntil: output.validUntil.toISOString(),
    validity: output.validity,
    steps: output.steps,
    sweeps: output.sweeps,
    skipped: output.skipped,
    totals: {
      moved: Object.fromEntries(
        [...output.moved].map(([currency, units]) => [
          currency,
          formatUnits(units, input.decimals(currency)),
        ]),
      ),
      treasuryNativeChange: signedUnits(output.treasuryNativeChange, output.nativeDecimals),
      feeCurrency: output.nativeCurrency,
      ...(output.headroom === undefined ? {} : { headroom: output.headroom }),
    },
  }
}

/** what `plan` prints once the plan file is written */
export function planSummary(plan: SweepPlan, path: string): string[] {
  const { totals } = plan
  return [
    `plan ${path}: ${plan.sweeps.length} sweeps in ${plan.steps.length} transactions, ${plan.skipped.length} addresses left`,
    ...Object.entries(totals.moved).map(([currency, amount]) => `  moves ${amount} ${currency}`),
    `  treasury ${totals.feeCurrency} changes by ${totals.treasuryNativeChange}`,
    ...(totals.headroom === undefined ? [] : [`  ${totals.headroom}`]),
    `  ${plan.validity}`,
  ]
}

function signedUnits(units: bigint, decimals: number): string {
  return units < 0n ? `-${formatUnits(-units, decimals)}` : formatUnits(units, decimals)
}

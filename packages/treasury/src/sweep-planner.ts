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
    `plan ${path}: ${plan.sweeps.length} sweeps in ${plan.steps.length} transactions, ${addresses(plan.skipped.length)} left`,
    ...Object.entries(totals.moved).map(([currency, amount]) => `  moves ${amount} ${currency}`),
    `  treasury ${totals.feeCurrency} changes by ${totals.treasuryNativeChange}`,
    ...(totals.headroom === undefined ? [] : [`  ${totals.headroom}`]),
    ...leftAlone(plan),
    `  ${plan.validity}`,
  ]
}

/**
 * one line per reason and currency of the addresses the plan leaves alone, saying why and what to
 * do about it (docs/treasury.md, "Minimum amounts and dust"); each address is in the file's `skipped`
 */
function leftAlone(plan: SweepPlan): string[] {
  const groups = new Map<string, { reason: string; currency: string; count: number; first: string }>()
  for (const { reason, currency, address } of plan.skipped) {
    const key = `${reason} ${currency}`
    const group = groups.get(key) ?? { reason, currency, count: 0, first: address }
    group.count += 1
    groups.set(key, group)
  }
  return [...groups.values()].map(
    ({ reason, currency, count, first }) =>
      `  ${addresses(count)} left (${count === 1 ? first : `${first} and others`}): ${reason}, ${why(reason, currency, plan.totals.feeCurrency)}`,
  )
}

function why(reason: string, currency: string, feeCurrency: string): string {
  switch (reason) {
    case 'NO_RATE':
      return `no fee rate for ${currency}: its sweep's fees are paid in ${feeCurrency}, and without a rate the plan cannot tell whether they cost more than the ${currency} moved; plan again with --rate ${currency}=${feeCurrency}_PER_${currency} (how many ${feeCurrency} one ${currency} is worth)`
    case 'BELOW_MINIMUM':
      return `it holds less than the --min ${currency}=AMOUNT given: it stays there and is planned again next time`
    case 'FEES_EXCEED_AMOUNT':
      return `the fees of its sweep are worth more than the ${currency} it would move: it stays there until it holds more, or plan again with --allow-loss`
    case 'EMPTY':
      return `the chain shows no ${currency} there to move (already swept, or the funds never landed)`
    default:
      return 'see the plan file'
  }
}

const addresses = (count: number) => `${count} ${count === 1 ? 'address' : 'addresses'}`

function signedUnits(units: bigint, decimals: number): string {
  return units < 0n ? `-${formatUnits(-units, decimals)}` : formatUnits(units, decimals)
}

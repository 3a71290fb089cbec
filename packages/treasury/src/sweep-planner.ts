// `chainpay-wallet plan` without its command line: the chain's planner (tron-planner.ts,
// solana-planner.ts) builds the steps from the balances rows and the chain; this writes them into
// the plan file's shape and says what the plan does in the lines `plan` prints (docs/treasury.md).

import { type Chain, formatUnits } from '@chainpay/domain'
import type { BalanceRow } from './admin-api.js'
import type { OutgoingRow, SkippedOutgoing } from './outgoing-plan.js'
import { type OutgoingPlan, type OutgoingPlanOptions, planOutgoing } from './outgoing-planner.js'
import type { PlanInput } from './plan-input.js'
import {
  FORMAT_VERSION,
  OUTGOING_FORMAT_VERSION,
  PLAN_FORMAT,
  type SkippedAddress,
  type SweepPlan,
} from './sweep-plan.js'

/** the ready refunds and payouts a plan takes, and how it marks them (outgoing-planner.ts) */
export type OutgoingInput = Omit<OutgoingPlanOptions, 'sweepSpendUnits'> & { rows: OutgoingRow[] }

/**
 * The sweeps of the balances rows, then the refunds and payouts of `outgoing`: after the sweeps in
 * the file, paid from what the treasury holds less what the sweeps spend of it, never from what they
 * bring in (docs/treasury.md, "Refunds and payouts in a plan")
 */
export async function planSweep(
  rows: BalanceRow[],
  input: PlanInput,
  chain: Chain,
  outgoingInput?: OutgoingInput,
): Promise<SweepPlan> {
  const planner =
    chain === 'TRON'
      ? (await import('./tron-planner.js')).planTron
      : (await import('./solana-planner.js')).planSolana
  const output = await planner(rows, input)
  const outgoing: OutgoingPlan | undefined =
    outgoingInput === undefined || outgoingInput.rows.length === 0
      ? undefined
      : await planOutgoing(outgoingInput.rows, input, chain, {
          ...outgoingInput,
          sweepSpendUnits: output.treasurySpentUnits,
        })
  const pays = outgoing !== undefined && outgoing.outgoing.length > 0
  // the earlier deadline of the two: every transaction of the plan must land before it
  const outgoingFirst =
    pays &&
    outgoing.validUntil !== undefined &&
    (output.steps.length === 0 || outgoing.validUntil < output.validUntil)
  const nativeDecimals = output.nativeDecimals
  return {
    format: PLAN_FORMAT,
    version: pays ? OUTGOING_FORMAT_VERSION : FORMAT_VERSION,
    createdAt: input.now.toISOString(),
    ...(pays ? { planId: outgoingInput?.planId } : {}),
    network: input.network,
    chain,
    treasury: { role: 'treasury', ...input.treasury },
    validUntil: (outgoingFirst ? (outgoing.validUntil as Date) : output.validUntil).toISOString(),
    validity: outgoingFirst ? (outgoing.validity as string) : output.validity,
    steps: [...output.steps, ...(outgoing?.steps ?? [])],
    sweeps: output.sweeps,
    ...(pays ? { outgoing: outgoing.outgoing } : {}),
    skipped: [...output.skipped, ...(outgoing?.skipped ?? [])],
    totals: {
      moved: Object.fromEntries(
        [...output.moved].map(([currency, units]) => [
          currency,
          formatUnits(units, input.decimals(currency)),
        ]),
      ),
      ...(pays
        ? {
            paid: Object.fromEntries(
              [...outgoing.paid].map(([currency, units]) => [
                currency,
                formatUnits(
                  units,
                  currency === output.nativeCurrency ? nativeDecimals : input.decimals(currency),
                ),
              ]),
            ),
          }
        : {}),
      treasuryNativeChange: signedUnits(
        output.treasuryNativeChange - (outgoing?.nativeSpentUnits ?? 0n),
        nativeDecimals,
      ),
      feeCurrency: output.nativeCurrency,
      ...(output.headroom === undefined ? {} : { headroom: output.headroom }),
    },
  }
}

/** what `plan` prints once the plan file is written */
export function planSummary(plan: SweepPlan, path: string): string[] {
  const { totals } = plan
  const outgoing = plan.outgoing ?? []
  const leftOut = plan.skipped.filter((entry): entry is SkippedOutgoing => 'kind' in entry)
  const paying =
    outgoing.length === 0 && leftOut.length === 0
      ? ''
      : `; pays ${outgoing.length} refunds and payouts, ${leftOut.length} left out`
  return [
    `plan ${path}: ${plan.sweeps.length} sweeps in ${plan.steps.length} transactions, ${addresses(plan.skipped.length - leftOut.length)} left${paying}`,
    ...Object.entries(totals.moved).map(([currency, amount]) => `  moves ${amount} ${currency}`),
    ...Object.entries(totals.paid ?? {}).map(([currency, amount]) => `  pays out ${amount} ${currency}`),
    ...outgoing.map(
      (item) =>
        `  ${item.kind} ${item.id}: ${item.amount} ${item.currency} to ${item.address} (${item.costs})`,
    ),
    ...leftOut.map(
      (item) =>
        `  ${item.kind} ${item.id} left out (${item.amount} ${item.currency}): ${item.reason}, ${item.detail}`,
    ),
    ...(plan.planId === undefined || outgoing.length === 0
      ? []
      : [
          `  the admin API has them sending in plan ${plan.planId}: sign and broadcast it, or give them back with chainpay-wallet release --plan ${path}`,
        ]),
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
  for (const entry of plan.skipped) {
    if ('kind' in entry) continue
    const { reason, currency, address }: SkippedAddress = entry
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

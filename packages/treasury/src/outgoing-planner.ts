// `plan`'s refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"): the chain's planner
// (tron-outgoing-planner.ts, solana-outgoing-planner.ts) builds each item's transactions and prices
// them; this keeps what the treasury can pay after the plan's sweeps (outgoing-rules.ts), marks each
// kept item `sending` in the plan through the admin API, and leaves out, with why, what it refuses.

import { type Chain, formatUnits } from '@chainpay/domain'
import type { AdminRefusal } from './admin-api.js'
import type { OutgoingCandidate } from './outgoing-candidate.js'
import type { OutgoingRow, PlannedOutgoing, SkippedOutgoing } from './outgoing-plan.js'
import { fitOutgoing, type Shortfall } from './outgoing-rules.js'
import type { PlanInput } from './plan-input.js'
import type { PlanStep } from './sweep-plan.js'

export interface OutgoingPlan {
  steps: PlanStep[]
  outgoing: PlannedOutgoing[]
  skipped: SkippedOutgoing[]
  /** per currency, what the recipients receive */
  paid: Map<string, bigint>
  /** what the treasury's coin falls by at the estimates: fees, and the coin it pays out */
  nativeSpentUnits: bigint
  validUntil?: Date
  validity?: string
}

export interface OutgoingPlanOptions {
  planId: string
  /** the treasury's coin the plan's sweeps spend first (top-ups, fees, rent, with their headroom) */
  sweepSpendUnits: bigint
  /** POST .../plan; resolves with the admin API's refusal, undefined once marked */
  mark(row: OutgoingRow): Promise<AdminRefusal | undefined>
  /** POST .../release of an item marked before the plan failed */
  release(row: OutgoingRow): Promise<void>
}

export async function planOutgoing(
  rows: OutgoingRow[],
  input: PlanInput,
  chain: Chain,
  options: OutgoingPlanOptions,
): Promise<OutgoingPlan> {
  const skipped: SkippedOutgoing[] = []
  const known = new Set([chain === 'TRON' ? 'TRX' : 'SOL', ...input.tokens.map((token) => token.currency)])
  const payable = rows.filter((row) => {
    const leave = (reason: string, detail: string) => {
      skipped.push(skippedOf(row, reason, detail))
      return false
    }
    if (row.address === null)
      return leave('NO_ADDRESS', 'it has no address yet: the customer has not given one')
    if (!known.has(row.currency))
      return leave('UNKNOWN_ASSET', `${row.currency} is not an asset of ${input.network} that plan knows`)
    return true
  })
  if (payable.length === 0) return { steps: [], outgoing: [], skipped, paid: new Map(), nativeSpentUnits: 0n }
  const output =
    chain === 'TRON'
      ? await (await import('./tron-outgoing-planner.js')).planTronOutgoing(payable, input)
      : await (await import('./solana-outgoing-planner.js')).planSolanaOutgoing(payable, input)
  skipped.push(...(output.skipped ?? []))
  const { nativeCurrency, nativeDecimals } = output
  const reserve = (output.reserveUnits ?? 0n) + options.sweepSpendUnits
  const fit = fitOutgoing(
    output.candidates.map((candidate) => ({
      item: candidate,
      currency: candidate.row.currency,
      amountUnits: candidate.amountUnits,
      native: candidate.native,
      costUnits: candidate.costUnits,
    })),
    { ...output.funds, nativeUnits: output.funds.nativeUnits - reserve },
    nativeCurrency,
  )
  const decimalsOf = (currency: string) =>
    currency === nativeCurrency ? nativeDecimals : input.decimals(currency)
  for (const { priced, missing } of fit.short) {
    skipped.push(
      skippedOf(
        priced.item.row,
        'TREASURY_SHORT',
        `${shortfall(missing, decimalsOf, reserve, nativeCurrency, nativeDecimals)}: send the treasury ${input.treasury.address} what is missing, then plan again; it stays ready until then`,
      ),
    )
  }

  // marked one by one: what the admin API refuses (canceled since, in another plan) is left out
  const kept: OutgoingCandidate[] = []
  for (const { item } of fit.kept) {
    let refusal: AdminRefusal | undefined
    try {
      refusal = await options.mark(item.row)
    } catch (error) {
      // no plan file will name the ones already marked: give them back before failing
      for (const marked of kept) await options.release(marked.row).catch(() => undefined)
      throw error
    }
    if (refusal !== undefined) {
      skipped.push(
        skippedOf(
          item.row,
          'NOT_READY',
          `the admin API refused to put it in this plan (HTTP ${refusal.status} ${refusal.code}: ${refusal.detail}); canceled or in another plan since it was listed`,
        ),
      )
      continue
    }
    kept.push(item)
  }

  const paid = new Map<string, bigint>()
  let nativeSpentUnits = 0n
  const outgoing = kept.map((candidate): PlannedOutgoing => {
    const { row } = candidate
    paid.set(row.currency, (paid.get(row.currency) ?? 0n) + candidate.amountUnits)
    nativeSpentUnits += candidate.estimatedFeeUnits + (candidate.native ? candidate.amountUnits : 0n)
    const pay = candidate.steps.find((step) => step.outgoing?.role === 'pay')
    return {
      kind: row.kind,
      id: row.id,
      merchantId: row.merchantId,
      currency: row.currency,
      amount: row.amount,
      address: row.address as string,
      stepId: pay?.id ?? '',
      stepIds: candidate.steps.map((step) => step.id),
      estimatedFee: formatUnits(candidate.estimatedFeeUnits, nativeDecimals),
      feeCurrency: nativeCurrency,
      costs: candidate.costs,
    }
  })
  return {
    steps: kept.flatMap((candidate) => candidate.steps),
    outgoing,
    skipped,
    paid,
    nativeSpentUnits,
    validUntil: output.validUntil,
    validity: output.validity,
  }
}

function skippedOf(row: OutgoingRow, reason: string, detail: string): SkippedOutgoing {
  return {
    kind: row.kind,
    id: row.id,
    address: row.address,
    currency: row.currency,
    amount: row.amount,
    reason,
    detail,
  }
}

function shortfall(
  missing: Shortfall[],
  decimalsOf: (currency: string) => number,
  reserve: bigint,
  nativeCurrency: string,
  nativeDecimals: number,
): string {
  return missing
    .map(({ currency, needed, held }) => {
      const of = (units: bigint) => formatUnits(units, decimalsOf(currency))
      const kept =
        currency === nativeCurrency && reserve > 0n
          ? ` (after the ${formatUnits(reserve, nativeDecimals)} ${nativeCurrency} the plan's sweeps and the treasury's reserve take)`
          : ''
      return `it needs ${of(needed)} ${currency}, and the treasury has ${of(held)} ${currency} left for it${kept}`
    })
    .join('; ')
}

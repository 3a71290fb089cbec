// broadcast's refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"): before an item's step is
// sent, the admin API must still have it `sending` in this plan (a released or canceled one is never
// sent); its payment is recorded `sent` with its txHash (the signed transaction's id) before it is
// sent; once final, `completed` with what the treasury paid beyond the amount, or `failed` with why.
// An item whose transaction can no longer land (expired) is `failed` when it was recorded sent, and
// released (back to `ready`, for the next plan) when it never was. Every call is idempotent, and the
// state file keeps what was recorded, so a run started again records nothing twice.

import { formatUnits, toUnits } from '@chainpay/domain'
import { AdminRefusal, type OutgoingRef } from './admin-api.js'
import type { BroadcastOptions, BroadcastRun, ChainLink } from './chain-link.js'
import { outgoingKey, type PlannedOutgoing } from './outgoing-plan.js'
import { networkAssets } from './plan-input.js'
import type { SignedStep } from './sweep-plan.js'

const NATIVE = { TRON: { currency: 'TRX', decimals: 6 }, SOLANA: { currency: 'SOL', decimals: 9 } } as const

/** the item a step activates or pays, as the signed file names it */
export function outgoingOfStep(run: BroadcastRun, step: SignedStep): PlannedOutgoing | undefined {
  const ref = step.outgoing
  if (ref === undefined) return undefined
  return run.signed.outgoing?.find((item) => outgoingKey(item) === outgoingKey(ref))
}

const refOf = (item: PlannedOutgoing): OutgoingRef => ({ kind: item.kind, id: item.id })

/** where the admin API has the item now, as far as this plan is concerned */
async function standing(
  run: BroadcastRun,
  item: PlannedOutgoing,
  options: BroadcastOptions,
): Promise<'sending' | 'sent' | 'elsewhere'> {
  const row = await options.admin.outgoingItem(refOf(item))
  if (row.status === 'sending' && row.planId === run.signed.planId) return 'sending'
  const pay = run.signed.steps.find((step) => step.id === item.stepId)
  if (row.status === 'sent' && row.txHash === pay?.txId) return 'sent'
  return 'elsewhere'
}

/**
 * Right before a step of an item is sent: undefined when it may be sent (its payment then recorded
 * `sent`), else why it is not, and never will be by this plan.
 */
export async function clearToSend(
  run: BroadcastRun,
  step: SignedStep,
  item: PlannedOutgoing,
  options: BroadcastOptions,
): Promise<string | undefined> {
  const notSent = `${item.kind} ${item.id} is no longer sending in plan ${run.signed.planId} (released, canceled or planned again since): ${step.id} is not sent, nor anything else of it`
  const where = await standing(run, item, options)
  if (where === 'elsewhere' || (where === 'sent' && step.outgoing?.role !== 'pay')) {
    return where === 'elsewhere' ? notSent : undefined
  }
  if (step.outgoing?.role !== 'pay') return undefined
  try {
    await options.admin.markSent(refOf(item), run.signed.planId ?? '', step.txId)
  } catch (error) {
    if (error instanceof AdminRefusal) return `${notSent}; the admin API said: ${error.message}`
    throw error
  }
  options.log(`recorded ${item.kind} ${item.id}: sent ${step.txId}`)
  return undefined
}

/**
 * Each item once its payment is final (completed, with its network fee), failed on chain (failed),
 * or can no longer land (failed when recorded sent, else released); a run that ends before says so.
 */
export async function recordOutgoing(
  run: BroadcastRun,
  chain: ChainLink,
  options: BroadcastOptions,
  save: () => void,
  problems: string[],
): Promise<void> {
  const { signed, state } = run
  const native = NATIVE[signed.chain]
  const wait = () => new Promise((resolve) => setTimeout(resolve, options.pollMs))
  for (const item of signed.outgoing ?? []) {
    if (state.recorded[item.stepId]) continue
    const pay = signed.steps.find((step) => step.id === item.stepId)
    if (pay === undefined) continue
    const ref = refOf(item)
    const name = `${item.kind} ${item.id}`
    const status = state.confirmed[pay.id] ? undefined : await chain.status(pay)
    if (status?.state === 'expired') {
      const where = await standing(run, item, options)
      if (where === 'sent') {
        await options.admin.markFailed(ref, `expired: its transaction ${pay.txId} never landed`, pay.txId)
        options.log(
          `recorded ${name}: failed, its transaction expired before landing; it is refundable or available again`,
        )
      } else if (where === 'sending') {
        await options.admin.release(ref, signed.planId ?? '')
        options.log(`released ${name}: never sent, and this plan has expired; the next plan takes it`)
      }
      state.recorded[pay.id] = true
      save()
      continue
    }
    if (status !== undefined && status.state !== 'failed') continue
    // in a block (succeeded or failed): recorded once final, as a sweep
    let finality = await chain.finality(pay)
    for (let poll = 0; finality === 'pending' && poll < options.maxPolls; poll += 1) {
      await wait()
      finality = await chain.finality(pay)
    }
    if (finality === 'pending') {
      problems.push(
        `${name}: step ${pay.id} (${pay.txId}) is in a block but not final yet: run broadcast again to record it`,
      )
      continue
    }
    if (finality === 'failed') {
      const failed = await chain.status(pay)
      const reason = failed.state === 'failed' ? failed.reason : 'failed on chain'
      await options.admin.markFailed(ref, `failed on chain: ${reason}`, pay.txId)
      options.log(`recorded ${name}: failed on chain (${reason}); it is refundable or available again`)
    } else {
      let outflow = 0n
      for (const id of item.stepIds) {
        const step = signed.steps.find((candidate) => candidate.id === id)
        if (step !== undefined && state.confirmed[id]) outflow += await chain.treasuryOutflow(step)
      }
      const paidOut = item.currency === native.currency ? toUnits(item.amount, native.decimals) : 0n
      const fee = formatUnits(outflow - paidOut, native.decimals)
      await options.admin.markCompleted(ref, pay.txId, { currency: native.currency, amount: fee })
      const decimals =
        item.currency === native.currency
          ? native.decimals
          : networkAssets(signed.network).decimals(item.currency)
      options.log(
        `recorded ${name}: completed, ${formatUnits(toUnits(item.amount, decimals), decimals)} ${item.currency} to ${item.address}, network fee ${fee} ${native.currency}`,
      )
    }
    state.recorded[pay.id] = true
    save()
  }
}

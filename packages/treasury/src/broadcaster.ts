// `chainpay-wallet broadcast`: sends the signed steps in order, each after the ones it depends on
// are in a block, reading again just before each send what the step depends on (and stopping, with
// what changed, when the plan no longer holds); takes back delegated energy whatever happened to the
// steps between; records each sweep with the admin API once it is final. Safe to run again after
// any failure: the state file says what landed and what was recorded, and the chain is asked about
// every step before it is sent, so nothing is sent twice (docs/treasury.md, "Broadcast").

import { existsSync, readFileSync } from 'node:fs'
import type { BroadcastOptions, BroadcastRun, BroadcastState, ChainLink, StepStatus } from './chain-link.js'
import { NodeRefusal } from './chain-link.js'
import { CommandError } from './command-error.js'
import { clearToSend, outgoingOfStep, recordOutgoing } from './outgoing-broadcast.js'
import { outgoingKey } from './outgoing-plan.js'
import { type SignedStep, type SignedSweep, writeJsonFile } from './sweep-plan.js'

export type { BroadcastOptions, BroadcastRun, BroadcastState, ChainLink, StepStatus }
export { NodeRefusal }

export async function broadcastSigned(
  signed: SignedSweep,
  options: BroadcastOptions,
): Promise<BroadcastState> {
  const run: BroadcastRun = { signed, state: readState(options.statePath), landed: new Map() }
  const { state } = run
  const chain =
    signed.chain === 'TRON'
      ? (await import('./tron-chain-link.js')).tronChainLink(options)
      : (await import('./solana-chain-link.js')).solanaChainLink(options)
  const save = () => writeJsonFile(options.statePath, state)
  const wait = () => new Promise((resolve) => setTimeout(resolve, options.pollMs))
  /** why the run stops, in the order it happened */
  const problems: string[] = []
  /** steps that will not land in this run: failed, refused, expired, or never sent after a stop */
  const settled = new Set<string>()
  /** steps sent and not in a block after the polls: they may still land */
  const pending = new Set<string>()
  /**
   * what went wrong with refunds and payouts: each item stands alone (its own funds, checked before
   * it is sent), so one's problem, or a sweep's, holds back no other (docs/treasury.md)
   */
  const itemProblems: string[] = []
  /** items of which nothing more is sent in this run */
  const stopped = new Set<string>()

  /** sends the step unless the chain already has it, and waits for its block; else what went wrong */
  async function land(step: SignedStep): Promise<string | undefined> {
    let status = await chain.status(step)
    if (status.state === 'unknown') {
      // a refund or payout only while the admin API has it sending in this plan; its payment is
      // recorded `sent` (its txHash) once the chain is checked, right before it is sent
      const item = outgoingOfStep(run, step)
      const pays = step.outgoing?.role === 'pay'
      if (item !== undefined && !pays) {
        const refused = await clearToSend(run, step, item, options)
        if (refused !== undefined) return refused
      }
      // taking delegated energy back is always right; anything else must still hold
      const changed = step.undoes === undefined ? await chain.recheck(step, run) : undefined
      if (changed !== undefined) return `stopped before ${step.id}: ${changed}`
      if (item !== undefined && pays) {
        const refused = await clearToSend(run, step, item, options)
        if (refused !== undefined) return refused
      }
      options.log(`sending ${step.id}: ${step.description}`)
      try {
        await chain.send(step)
      } catch (error) {
        if (error instanceof NodeRefusal) return error.message
        throw error
      }
      status = await chain.status(step)
    }
    for (let poll = 0; status.state !== 'included'; poll += 1) {
      if (status.state === 'failed') {
        return `step ${step.id} (${step.txId}) failed on chain: ${status.reason}. Plan again, sign and broadcast the new plan: it sees what moved.`
      }
      if (status.state === 'expired')
        return `step ${step.id} (${step.txId}) expired before landing: plan, sign and broadcast again`
      if (poll >= options.maxPolls) {
        pending.add(step.id)
        return `step ${step.id} (${step.txId}) is not in a block yet: run broadcast again`
      }
      await wait()
      status = await chain.status(step)
    }
    state.confirmed[step.id] = true
    run.landed.set(step.id, status.feeUnits)
    save()
    return undefined
  }

  for (const step of signed.steps) {
    if (state.confirmed[step.id]) continue
    if (step.outgoing !== undefined) {
      const key = outgoingKey(step.outgoing)
      // an item whose outcome is recorded (failed, or given back) is done with
      const item = outgoingOfStep(run, step)
      if (item !== undefined && state.recorded[item.stepId]) continue
      const missing = step.after.filter((id) => !state.confirmed[id])
      if (stopped.has(key) || missing.length > 0) {
        settled.add(step.id)
        continue
      }
      const problem = await land(step)
      if (problem !== undefined) {
        itemProblems.push(problem)
        stopped.add(key)
        if (!pending.has(step.id)) settled.add(step.id)
        continue
      }
      options.log(`confirmed ${step.id} ${step.txId}`)
      continue
    }
    if (step.undoes !== undefined) {
      // nothing lent, nothing to take back
      if (!state.confirmed[step.undoes]) {
        settled.add(step.id)
        continue
      }
      // taken back once the steps between are in a block or will never be; not while one may land
      const open = step.after.filter((id) => !state.confirmed[id] && !settled.has(id))
      if (open.length > 0) {
        problems.push(`${step.id} waits for ${open.join(', ')}: run broadcast again`)
        continue
      }
    } else {
      const missing = step.after.filter((id) => !state.confirmed[id])
      if (problems.length > 0 || missing.length > 0) {
        // after a stop only delegations are taken back; a missing step was reported when it stopped
        if (problems.length === 0) problems.push(`step ${step.id} waits for ${missing.join(', ')}`)
        settled.add(step.id)
        continue
      }
    }
    const problem = await land(step)
    if (problem !== undefined) {
      // an undelegation that cannot land any more: the treasury's own wallet takes the energy back
      const lent = step.undoes !== undefined && !pending.has(step.id)
      problems.push(
        lent
          ? `${problem.replace(/\.$/, '')}. The energy of ${step.undoes} is still lent: take it back from the treasury's own wallet (UnDelegateResource, ENERGY; docs/treasury.md, "Broadcast")`
          : problem,
      )
      if (!pending.has(step.id)) settled.add(step.id)
      continue
    }
    options.log(`confirmed ${step.id} ${step.txId}`)
  }

  await recordFinalSweeps(run, chain, options, save, problems)
  await recordOutgoing(run, chain, options, save, itemProblems)
  for (const line of await chain.spent(run)) options.log(line)
  problems.push(...itemProblems)
  if (problems.length > 0) throw new CommandError(problems.join('\n'))
  return state
}

/** each sweep once its step is final, and only then (a block can still be forked out before) */
async function recordFinalSweeps(
  run: BroadcastRun,
  chain: ChainLink,
  options: BroadcastOptions,
  save: () => void,
  problems: string[],
): Promise<void> {
  const { signed, state } = run
  let waiting = true
  for (const step of signed.steps) {
    const sweeps = signed.sweeps.filter((sweep) => sweep.stepId === step.id)
    if (sweeps.length === 0 || !state.confirmed[step.id] || state.recorded[step.id]) continue
    let finality = await chain.finality(step)
    // finality comes in block order: once one is not final after the polls, the later ones are asked once
    for (let poll = 0; waiting && finality === 'pending' && poll < options.maxPolls; poll += 1) {
      await new Promise((resolve) => setTimeout(resolve, options.pollMs))
      finality = await chain.finality(step)
    }
    if (finality === 'pending') {
      waiting = false
      problems.push(
        `step ${step.id} (${step.txId}) is in a block but not final yet: run broadcast again to record it`,
      )
      continue
    }
    if (finality === 'failed') {
      problems.push(`step ${step.id} (${step.txId}) failed once final: nothing recorded; plan again`)
      continue
    }
    for (const sweep of sweeps) {
      await options.admin.recordSweep({
        // a deposit's funds on its deposit, a payment's on its payment
        ...(sweep.depositId === undefined
          ? { paymentId: sweep.paymentId ?? '' }
          : { depositId: sweep.depositId }),
        txHash: step.txId,
        currency: sweep.currency,
        amount: sweep.amount,
        fee: sweep.fee,
        feeCurrency: sweep.feeCurrency,
        treasury: signed.treasury,
      })
    }
    state.recorded[step.id] = true
    save()
    options.log(`recorded ${step.id}: final`)
  }
}

export function statePathOf(signedPath: string): string {
  return `${signedPath}.state.json`
}

function readState(path: string): BroadcastState {
  if (!existsSync(path)) return { confirmed: {}, recorded: {} }
  return JSON.parse(readFileSync(path, 'utf8')) as BroadcastState
}

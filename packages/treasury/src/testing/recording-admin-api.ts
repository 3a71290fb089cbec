// The admin API's calls as plan and broadcast make them, kept in memory, for the planner's and
// the broadcaster's tests against the simulated nodes (the end-to-end tests use the real admin API):
// balances answers the rows given; a sweep recorded twice for one payment (or deposit) with the same
// txHash and currency is recorded once, and with other figures refused, as POST /admin/v1/sweeps
// does (docs/api.md). The
// refunds and payouts move between their states as the admin routes move them (ready -> sending in a
// plan -> sent -> completed | failed; released back to ready; canceled while ready), refusing every
// other transition with 409, and answering a repeated one with what it did the first time.

import {
  type AdminApi,
  AdminRefusal,
  type BalanceRow,
  type OutgoingRef,
  type SweepRecord,
} from '../admin-api.js'
import { CommandError } from '../command-error.js'
import { type OutgoingRow, outgoingKey } from '../outgoing-plan.js'

export interface OutgoingRecord extends OutgoingRow {
  networkFee: { currency: string; amount: string } | null
  failureReason: string | null
}

export interface RecordingAdminApi extends AdminApi {
  /** the sweeps recorded, in order, each once */
  readonly recorded: SweepRecord[]
  /** every transition of a refund or payout, in order, each once: `refund:ID sent TXHASH`... */
  readonly transitions: string[]
  /** a refund or payout as the admin API holds it */
  item(kind: OutgoingRef['kind'], id: string): OutgoingRecord
  /** the merchant's cancel: only while ready (or awaiting an address) */
  cancel(kind: OutgoingRef['kind'], id: string): void
}

export function recordingAdminApi(
  rows: BalanceRow[] = [],
  outgoingRows: OutgoingRow[] = [],
): RecordingAdminApi {
  const recorded: SweepRecord[] = []
  const transitions: string[] = []
  const items = new Map<string, OutgoingRecord>(
    outgoingRows.map((row) => [outgoingKey(row), { ...row, networkFee: null, failureReason: null }]),
  )
  const itemOf = (ref: OutgoingRef, where: string): OutgoingRecord => {
    const item = items.get(outgoingKey(ref))
    if (item === undefined) throw new AdminRefusal(404, 'NOT_FOUND', `no ${ref.kind} ${ref.id}`, where)
    return item
  }
  const refuse = (item: OutgoingRecord, where: string, why: string): never => {
    throw new AdminRefusal(
      409,
      `${item.kind.toUpperCase()}_NOT_ALLOWED`,
      `${item.kind} ${item.id} is ${item.status}${item.planId === null ? '' : ` in plan ${item.planId}`}: ${why}`,
      where,
    )
  }
  const move = (item: OutgoingRecord, status: string, detail = '') => {
    item.status = status
    transitions.push(`${outgoingKey(item)} ${status}${detail === '' ? '' : ` ${detail}`}`)
  }
  return {
    recorded,
    transitions,
    item: (kind, id) => itemOf({ kind, id }, 'item'),
    cancel(kind, id) {
      const item = itemOf({ kind, id }, 'cancel')
      if (item.status !== 'ready' && item.status !== 'awaiting_address')
        refuse(item, 'cancel', 'not cancelable')
      move(item, 'canceled')
    },
    async balances({ network, walletId }) {
      return rows.filter(
        (row) => row.network === network && (walletId === undefined || row.walletId === walletId),
      )
    },
    async recordSweep(sweep) {
      // once per transaction and currency on each payment's (or deposit's) stream, as the admin API
      // keeps them: one transaction sweeping a customer's address records on each of its sources
      const same = recorded.find(
        (earlier) =>
          earlier.paymentId === sweep.paymentId &&
          earlier.depositId === sweep.depositId &&
          earlier.txHash === sweep.txHash &&
          earlier.currency === sweep.currency,
      )
      if (same === undefined) recorded.push(sweep)
      else if (JSON.stringify(same) !== JSON.stringify(sweep)) {
        throw new CommandError(`POST /sweeps: HTTP 409 SWEEP_TX_REUSED ${sweep.txHash} ${sweep.currency}`)
      }
    },
    async outgoing({ network, status, walletId }) {
      return [...items.values()]
        .filter(
          (item) =>
            item.network === network &&
            item.status === status &&
            (walletId === undefined ||
              (walletId === 'operator' ? item.walletId === null : item.walletId === walletId)),
        )
        .map(({ networkFee: _fee, failureReason: _reason, ...row }) => ({ ...row }))
    },
    async outgoingItem(ref) {
      const { networkFee: _fee, failureReason: _reason, ...row } = itemOf(ref, 'GET')
      return { ...row }
    },
    async markPlanned(ref, planId) {
      const item = itemOf(ref, 'plan')
      if (item.status === 'sending' && item.planId === planId) return
      if (item.status !== 'ready') refuse(item, 'plan', 'only a ready one can be planned')
      item.planId = planId
      move(item, 'sending', planId)
    },
    async release(ref, planId) {
      const item = itemOf(ref, 'release')
      if (item.status === 'ready' && item.planId === null) return
      if (item.status !== 'sending' || item.planId !== planId)
        refuse(item, 'release', 'only one sending in this plan')
      item.planId = null
      move(item, 'ready', 'released')
    },
    async markSent(ref, planId, txHash) {
      const item = itemOf(ref, 'sent')
      if ((item.status === 'sent' || item.status === 'completed') && item.txHash === txHash) return
      if (item.status !== 'sending' || item.planId !== planId)
        refuse(item, 'sent', 'only one sending in this plan')
      item.txHash = txHash
      move(item, 'sent', txHash)
    },
    async markCompleted(ref, txHash, networkFee) {
      const item = itemOf(ref, 'completed')
      if (item.status === 'completed' && item.txHash === txHash) return
      if (item.status !== 'sent' || item.txHash !== txHash)
        refuse(item, 'completed', `not sent with ${txHash}`)
      item.networkFee = networkFee
      move(item, 'completed', `${networkFee.amount} ${networkFee.currency}`)
    },
    async markFailed(ref, reason, txHash) {
      const item = itemOf(ref, 'failed')
      if (item.status === 'failed') return
      if (item.status !== 'sent' || (txHash !== undefined && item.txHash !== txHash))
        refuse(item, 'failed', `not sent with ${txHash}`)
      item.failureReason = reason
      move(item, 'failed', reason)
    },
  }
}

// What the online commands (plan, broadcast, release) ask of the admin API (docs/api.md, "Balances
// and sweeps", docs/treasury.md): through the admin client, with the operator's admin token as
// chainpay-admin uses it (CHAINPAY_ADMIN_URL, CHAINPAY_ADMIN_TOKEN); its failures become the
// wallet's CommandError, a refusal (4xx) an AdminRefusal. Only the online commands call it: sign,
// offline, never does (its guard refuses the network for the whole process).

import { AdminClientError, createAdminClient } from '@chainpay/admin-client'
import type { BalanceRow, RecordSweepBody } from '@chainpay/contracts'
import { CommandError } from './command-error.js'
import type { OutgoingKind, OutgoingRow } from './outgoing-plan.js'

export type { BalanceRow }

export type SweepRecord = RecordSweepBody

/** an item of GET /admin/v1/outgoing, addressed by kind and id */
export interface OutgoingRef {
  kind: OutgoingKind
  id: string
}

export interface AdminApi {
  balances(query: { network: string; walletId?: string }): Promise<BalanceRow[]>
  recordSweep(sweep: SweepRecord): Promise<void>
  /** GET /outgoing: every page; walletId `operator` for the operator's wallet */
  outgoing(query: { network: string; status: string; walletId?: string }): Promise<OutgoingRow[]>
  /** GET /outgoing/{kind}/{id}: one item as it stands now */
  outgoingItem(item: OutgoingRef): Promise<OutgoingRow>
  /** ready -> sending in the plan; throws AdminRefusal (409) when the item is not ready */
  markPlanned(item: OutgoingRef, planId: string): Promise<void>
  /** sending -> ready: the plan will never be broadcast; refused once sent */
  release(item: OutgoingRef, planId: string): Promise<void>
  /** sending -> sent, before the transaction is sent; idempotent for the same txHash */
  markSent(item: OutgoingRef, planId: string, txHash: string): Promise<void>
  /** final on chain; idempotent */
  markCompleted(
    item: OutgoingRef,
    txHash: string,
    networkFee: { currency: string; amount: string },
  ): Promise<void>
  /** failed or expired on chain: the amount is refundable or available again; idempotent */
  markFailed(item: OutgoingRef, reason: string, txHash?: string): Promise<void>
}

/** the admin API answered 4xx: what it refused and why, in its own words */
export class AdminRefusal extends CommandError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    where: string,
  ) {
    super(`${where}: HTTP ${status} ${code} ${detail}`.trim())
  }
}

export function createAdminApi(url: string, token: string): AdminApi {
  const client = createAdminClient({ url, token })
  /** the client's failure as the wallet says it */
  async function call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      if (!(error instanceof AdminClientError)) throw error
      const { kind, method, path, status, code, message, text, cause } = error.failure
      if (kind === 'unreachable') throw new CommandError(`cannot reach the admin API at ${url}: ${cause}`)
      if (kind === 'refused')
        throw new AdminRefusal(
          status ?? 0,
          code ?? 'ERROR',
          message ?? text.slice(0, 300),
          `${method} ${path.split('?')[0]}`,
        )
      throw new CommandError(`${method} ${path}: HTTP ${status} ${text.slice(0, 300)}`)
    }
  }
  return {
    balances: (query) => call(() => client.balances.all(query)),
    async recordSweep(sweep) {
      await call(() => client.balances.recordSweep(sweep))
    },
    outgoing: (query) => call(() => client.outgoing.all(query)),
    outgoingItem: (item) => call(() => client.outgoing.get(item)),
    async markPlanned(item, planId) {
      await call(() => client.outgoing.plan(item, { planId }))
    },
    async release(item, planId) {
      await call(() => client.outgoing.release(item, { planId }))
    },
    async markSent(item, planId, txHash) {
      await call(() => client.outgoing.sent(item, { planId, txHash }))
    },
    async markCompleted(item, txHash, networkFee) {
      await call(() => client.outgoing.completed(item, { txHash, networkFee }))
    },
    async markFailed(item, reason, txHash) {
      await call(() => client.outgoing.failed(item, { reason, ...(txHash === undefined ? {} : { txHash }) }))
    },
  }
}

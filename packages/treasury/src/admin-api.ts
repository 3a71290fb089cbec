// The two admin API calls of a sweep (docs/api.md, "Balances and sweeps"), with the operator's
// admin token as chainpay-admin uses it (CHAINPAY_ADMIN_URL, CHAINPAY_ADMIN_TOKEN).

import { CommandError } from './command-error.js'
import type { OutgoingKind, OutgoingRow } from './outgoing-plan.js'

/** a row of GET /admin/v1/balances */
export interface BalanceRow {
  merchantId: string
  walletId: string
  paymentId: string
  network: string
  address: string
  tokenAccount: string | null
  derivationPath: string
  currency: string
  tokenStandard: 'NATIVE' | 'TRC20' | 'SPL'
  contract: string | null
  received: string
  swept: string
  onChain: string | null
}

export interface SweepRecord {
  paymentId: string
  txHash: string
  currency: string
  amount: string
  fee: string
  feeCurrency: string
  treasury: string
}

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
  const base = `${url.replace(/\/+$/, '')}/admin/v1`
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
    } catch (error) {
      throw new CommandError(`cannot reach the admin API at ${url}: ${(error as Error).message}`)
    }
    const text = await response.text()
    if (response.status >= 400 && response.status < 500) {
      const error = parseError(text)
      throw new AdminRefusal(response.status, error.code, error.message, `${method} ${path.split('?')[0]}`)
    }
    if (!response.ok)
      throw new CommandError(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`)
    return (text === '' ? undefined : JSON.parse(text)) as T
  }
  return {
    async balances({ network, walletId }) {
      const rows: BalanceRow[] = []
      let cursor: string | null = null
      do {
        const query = new URLSearchParams({ network, limit: '100' })
        if (walletId !== undefined) query.set('walletId', walletId)
        if (cursor !== null) query.set('cursor', cursor)
        const page: { data: BalanceRow[]; nextCursor: string | null } = await call(
          'GET',
          `/balances?${query}`,
        )
        rows.push(...page.data)
        cursor = page.nextCursor
      } while (cursor !== null)
      return rows
    },
    async recordSweep(sweep) {
      await call('POST', '/sweeps', sweep)
    },
    async outgoing({ network, status, walletId }) {
      const rows: OutgoingRow[] = []
      let cursor: string | null = null
      do {
        const query = new URLSearchParams({ network, status, limit: '100' })
        if (walletId !== undefined) query.set('walletId', walletId)
        if (cursor !== null) query.set('cursor', cursor)
        const page: { data: OutgoingRow[]; nextCursor: string | null } = await call(
          'GET',
          `/outgoing?${query}`,
        )
        rows.push(...page.data)
        cursor = page.nextCursor
      } while (cursor !== null)
      return rows
    },
    async outgoingItem(item) {
      return await call('GET', itemPath(item))
    },
    async markPlanned(item, planId) {
      await call('POST', `${itemPath(item)}/plan`, { planId })
    },
    async release(item, planId) {
      await call('POST', `${itemPath(item)}/release`, { planId })
    },
    async markSent(item, planId, txHash) {
      await call('POST', `${itemPath(item)}/sent`, { planId, txHash })
    },
    async markCompleted(item, txHash, networkFee) {
      await call('POST', `${itemPath(item)}/completed`, { txHash, networkFee })
    },
    async markFailed(item, reason, txHash) {
      await call('POST', `${itemPath(item)}/failed`, { reason, ...(txHash === undefined ? {} : { txHash }) })
    },
  }
}

const itemPath = ({ kind, id }: OutgoingRef) =>
  `/outgoing/${encodeURIComponent(kind)}/${encodeURIComponent(id)}`

/** the admin API's error body, {"error":{"code","message"}} (docs/api.md, "Errors") */
function parseError(text: string): { code: string; message: string } {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
    return { code: String(body.error?.code ?? 'ERROR'), message: String(body.error?.message ?? '') }
  } catch {
    return { code: 'ERROR', message: text.slice(0, 300) }
  }
}

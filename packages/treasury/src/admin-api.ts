// The two admin API calls of a sweep (docs/api.md, "Balances and sweeps"), with the operator's
// admin token as chainpay-admin uses it (CHAINPAY_ADMIN_URL, CHAINPAY_ADMIN_TOKEN).

import { CommandError } from './command-error.js'

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

export interface AdminApi {
  balances(query: { network: string; walletId?: string }): Promise<BalanceRow[]>
  recordSweep(sweep: SweepRecord): Promise<void>
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
    if (!response.ok)
      throw new CommandError(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`)
    return JSON.parse(text) as T
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
  }
}

// The admin API's client (docs/operations.md, "The admin API"): one method per route under
// /admin/v1, its bodies and answers typed from the schemas the routes use (@chainpay/contracts), the
// operator's token as a bearer token. chainpay-admin and chainpay-wallet's online commands (plan,
// broadcast, release) call the admin API through it; a failure is an AdminClientError.

import type {
  ApiKeyView,
  BalanceQuery,
  BalanceRow,
  BalanceTotal,
  BalanceTotalsQuery,
  CreatedMerchant,
  CreateMerchantBody,
  DisplayNameBody,
  FeePolicyBody,
  IssuedApiKeyView,
  LogoUrlBody,
  MerchantView,
  MerchantWalletView,
  OutgoingCompletedBody,
  OutgoingFailedBody,
  OutgoingListQuery,
  OutgoingPlanBody,
  OutgoingRow,
  OutgoingSentBody,
  RecordSweepBody,
  ResealReport,
  RollApiKeyBody,
  RolledApiKeyView,
  SweepView,
  UnderpaymentToleranceBody,
  WebhookUrlBody,
} from '@chainpay/contracts'
import { AdminClientError } from './admin-client-error.js'

export const ADMIN_API_PATH = '/admin/v1'

/** a page of a list and the cursor of the next one (null: none follows) */
export interface AdminPage<Row> {
  data: Row[]
  nextCursor: string | null
}

/** a webhook delivery as the admin API lists it, with its attempts */
export interface AdminDelivery {
  delivery: {
    deliveryId: string
    eventType: string
    paymentId: string
    status: string
    lastError: string | null
    [field: string]: unknown
  }
  attempts: unknown[]
}

/** a dashboard user the operator added, with the one-time setup link (shown once) */
export interface AddedDashboardUser {
  userId: string
  merchantId: string
  email: string
  role: string
  createdAt: string
  setupUrl: string
  setupExpiresAt: string
}

/** a refund or payout, by kind and id */
export interface OutgoingRef {
  kind: OutgoingRow['kind']
  id: string
}

export interface AdminClient {
  merchants: {
    create(body: CreateMerchantBody): Promise<CreatedMerchant>
    list(): Promise<{ merchants: MerchantView[] }>
    show(merchantId: string): Promise<{ merchant: MerchantView; apiKeys: ApiKeyView[] }>
    setWebhookUrl(merchantId: string, body: WebhookUrlBody): Promise<{ merchant: MerchantView }>
    setDisplayName(merchantId: string, body: DisplayNameBody): Promise<{ merchant: MerchantView }>
    setLogoUrl(merchantId: string, body: LogoUrlBody): Promise<{ merchant: MerchantView }>
    setUnderpaymentTolerance(
      merchantId: string,
      body: UnderpaymentToleranceBody,
    ): Promise<{ merchant: MerchantView }>
    setFeePolicy(merchantId: string, body: FeePolicyBody): Promise<{ merchant: MerchantView }>
    rotateWebhookSecret(merchantId: string): Promise<{ webhookSecret: string }>
  }
  apiKeys: {
    list(merchantId: string): Promise<{ apiKeys: ApiKeyView[] }>
    issue(merchantId: string): Promise<IssuedApiKeyView>
    roll(merchantId: string, apiKey: string, body: RollApiKeyBody): Promise<RolledApiKeyView>
    revoke(merchantId: string, apiKey: string): Promise<{ apiKey: string; revokedAt: string }>
  }
  wallets: {
    set(
      merchantId: string,
      keys: { tronAccountXpub: string; solanaSeed: string },
    ): Promise<{ wallet: MerchantWalletView }>
    show(merchantId: string): Promise<{ wallet: MerchantWalletView }>
    remove(merchantId: string): Promise<{ merchantId: string; removed: boolean }>
  }
  deliveries: {
    list(
      merchantId: string,
      query: { status?: string; limit?: number; cursor?: string },
    ): Promise<{ deliveries: AdminDelivery[]; nextCursor: string | null }>
    redeliverFailed(merchantId: string): Promise<{ redelivered: number }>
  }
  secrets: {
    reseal(): Promise<ResealReport>
  }
  /** the dashboard's users (docs/operations.md, "Dashboard users") */
  dashboardUsers: {
    add(merchantId: string, body: { email: string; role: string }): Promise<AddedDashboardUser>
    /** a new setup link; the old password and TOTP key cleared, the sessions ended */
    reset(merchantId: string, body: { email: string }): Promise<AddedDashboardUser>
  }
  balances: {
    page(query: BalanceQuery): Promise<AdminPage<BalanceRow>>
    /** every page of the rows */
    all(query: Omit<BalanceQuery, 'cursor'>): Promise<BalanceRow[]>
    totals(query: BalanceTotalsQuery): Promise<{ data: BalanceTotal[] }>
    recordSweep(body: RecordSweepBody): Promise<{ sweep: SweepView }>
  }
  outgoing: {
    /** every page; status one or several, comma-separated; walletId `operator` for the operator's */
    all(query: Omit<OutgoingListQuery, 'limit' | 'cursor'>): Promise<OutgoingRow[]>
    get(item: OutgoingRef): Promise<OutgoingRow>
    plan(item: OutgoingRef, body: OutgoingPlanBody): Promise<OutgoingRow>
    release(item: OutgoingRef, body: OutgoingPlanBody): Promise<OutgoingRow>
    sent(item: OutgoingRef, body: OutgoingSentBody): Promise<OutgoingRow>
    completed(item: OutgoingRef, body: OutgoingCompletedBody): Promise<OutgoingRow>
    failed(item: OutgoingRef, body: OutgoingFailedBody): Promise<OutgoingRow>
  }
}

export interface AdminClientOptions {
  /** the admin listener, e.g. http://127.0.0.1:8081 */
  url: string
  /** the operator's admin token */
  token: string
}

/** list pages read by all(): the routes' largest page is 200 (balances) and 500 (outgoing) */
const ALL_PAGE = '100'

export function createAdminClient({ url, token }: AdminClientOptions): AdminClient {
  const base = `${url.replace(/\/+$/, '')}${ADMIN_API_PATH}`

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
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause
      throw new AdminClientError({
        kind: 'unreachable',
        url,
        method,
        path,
        status: null,
        code: null,
        message: null,
        text: '',
        cause: cause?.code ?? cause?.message ?? (error as Error).message,
      })
    }
    const text = await response.text()
    const parsed = parseJson(text)
    if (!response.ok || (parsed === undefined && text !== '')) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error
      throw new AdminClientError({
        kind: response.status >= 400 && response.status < 500 ? 'refused' : 'failed',
        url,
        method,
        path,
        status: response.status,
        code: typeof error?.code === 'string' ? error.code : null,
        message: typeof error?.message === 'string' ? error.message : null,
        text,
        cause: null,
      })
    }
    return parsed as T
  }

  const merchant = (merchantId: string) => `/merchants/${encodeURIComponent(merchantId)}`
  const item = ({ kind, id }: OutgoingRef) =>
    `/outgoing/${encodeURIComponent(kind)}/${encodeURIComponent(id)}`

  async function allPages<Row>(path: string, query: Record<string, string | undefined>): Promise<Row[]> {
    const rows: Row[] = []
    let cursor: string | null = null
    do {
      const page: AdminPage<Row> = await call('GET', `${path}${search({ ...query, cursor })}`)
      rows.push(...page.data)
      cursor = page.nextCursor
    } while (cursor !== null)
    return rows
  }

  return {
    merchants: {
      create: (body) => call('POST', '/merchants', body),
      list: () => call('GET', '/merchants'),
      show: (merchantId) => call('GET', merchant(merchantId)),
      setWebhookUrl: (merchantId, body) => call('PUT', `${merchant(merchantId)}/webhook-url`, body),
      setDisplayName: (merchantId, body) => call('PUT', `${merchant(merchantId)}/display-name`, body),
      setLogoUrl: (merchantId, body) => call('PUT', `${merchant(merchantId)}/logo-url`, body),
      setUnderpaymentTolerance: (merchantId, body) =>
        call('PUT', `${merchant(merchantId)}/underpayment-tolerance`, body),
      setFeePolicy: (merchantId, body) => call('PUT', `${merchant(merchantId)}/fee-policy`, body),
      rotateWebhookSecret: (merchantId) => call('POST', `${merchant(merchantId)}/webhook-secret/rotate`),
    },
    apiKeys: {
      list: (merchantId) => call('GET', `${merchant(merchantId)}/api-keys`),
      issue: (merchantId) => call('POST', `${merchant(merchantId)}/api-keys`),
      roll: (merchantId, apiKey, body) =>
        call('POST', `${merchant(merchantId)}/api-keys/${encodeURIComponent(apiKey)}/roll`, body),
      revoke: (merchantId, apiKey) =>
        call('POST', `${merchant(merchantId)}/api-keys/${encodeURIComponent(apiKey)}/revoke`),
    },
    wallets: {
      set: (merchantId, keys) => call('PUT', `${merchant(merchantId)}/wallet`, keys),
      show: (merchantId) => call('GET', `${merchant(merchantId)}/wallet`),
      remove: (merchantId) => call('DELETE', `${merchant(merchantId)}/wallet`),
    },
    deliveries: {
      list: (merchantId, { status, limit, cursor }) =>
        call(
          'GET',
          `${merchant(merchantId)}/deliveries${search({ status, limit: limit === undefined ? undefined : String(limit), cursor })}`,
        ),
      redeliverFailed: (merchantId) => call('POST', `${merchant(merchantId)}/deliveries/redeliver-failed`),
    },
    secrets: {
      reseal: () => call('POST', '/secrets/reseal'),
    },
    dashboardUsers: {
      add: (merchantId, body) => call('POST', `${merchant(merchantId)}/users`, body),
      reset: (merchantId, body) => call('POST', `${merchant(merchantId)}/users/reset`, body),
    },
    balances: {
      page: (query) => call('GET', `/balances${search(query)}`),
      all: (query) => allPages('/balances', { ...query, limit: ALL_PAGE }),
      totals: (query) => call('GET', `/balances/totals${search(query)}`),
      recordSweep: (body) => call('POST', '/sweeps', body),
    },
    outgoing: {
      all: (query) => allPages('/outgoing', { ...query, limit: ALL_PAGE }),
      get: (ref) => call('GET', item(ref)),
      plan: (ref, body) => call('POST', `${item(ref)}/plan`, body),
      release: (ref, body) => call('POST', `${item(ref)}/release`, body),
      sent: (ref, body) => call('POST', `${item(ref)}/sent`, body),
      completed: (ref, body) => call('POST', `${item(ref)}/completed`, body),
      failed: (ref, body) => call('POST', `${item(ref)}/failed`, body),
    },
  }
}

/** `?a=1&b=2` of the fields that are set, '' when none is */
function search(query: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.set(name, value)
  }
  return params.size === 0 ? '' : `?${params}`
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

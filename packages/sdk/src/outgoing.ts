// Refunds, payouts and balances (docs/api.md, "Refunds and payouts", "Balances"). Creates require an
// idempotency key, so they are safe to send again after a lost answer: the same key answers the
// original (`replayed`).

import type { Transport } from './http.js'
import type {
  Balance,
  CreatePayoutParams,
  CreateRefundParams,
  ListOutgoingParams,
  ListRefundsParams,
  Page,
  Payout,
  Refund,
} from './types.js'

const segment = (id: string) => encodeURIComponent(id)

function listQuery(params: ListRefundsParams) {
  return {
    limit: params.limit === undefined ? undefined : String(params.limit),
    cursor: params.cursor,
    status: Array.isArray(params.status) ? params.status.join(',') : params.status,
    paymentId: params.paymentId,
  }
}

async function* everyItem<T, P extends { cursor?: string }>(
  params: P,
  page: (params: P) => Promise<Page<T>>,
) {
  let cursor = params.cursor
  do {
    const answer = await page({ ...params, ...(cursor === undefined ? {} : { cursor }) })
    yield* answer.data
    cursor = answer.nextCursor ?? undefined
  } while (cursor !== undefined)
}

export class RefundsApi {
  constructor(private readonly send: Transport) {}

  /** POST /payments/{paymentId}/refunds */
  async create(paymentId: string, params: CreateRefundParams): Promise<Refund & { replayed: boolean }> {
    const path = `/payments/${segment(paymentId)}/refunds`
    const answer = await this.send<Refund>({ method: 'POST', path, body: params, retry: 'always' })
    return { ...answer.data, replayed: answer.headers.get('idempotent-replayed') === 'true' }
  }

  async get(refundId: string): Promise<Refund> {
    return (
      await this.send<Refund>({ method: 'GET', path: `/refunds/${segment(refundId)}`, retry: 'always' })
    ).data
  }

  /** until it is in a signed plan; cancelling it again answers it again */
  async cancel(refundId: string): Promise<Refund> {
    const path = `/refunds/${segment(refundId)}/cancel`
    return (await this.send<Refund>({ method: 'POST', path, retry: 'always' })).data
  }

  /** one page, newest first */
  async list(params: ListRefundsParams = {}): Promise<Page<Refund>> {
    return (
      await this.send<Page<Refund>>({
        method: 'GET',
        path: '/refunds',
        query: listQuery(params),
        retry: 'always',
      })
    ).data
  }

  listAll(params: ListRefundsParams = {}): AsyncGenerator<Refund, void, undefined> {
    return everyItem(params, (page) => this.list(page))
  }
}

export class PayoutsApi {
  constructor(private readonly send: Transport) {}

  /** POST /payouts: out of the available balance of the asset */
  async create(params: CreatePayoutParams): Promise<Payout & { replayed: boolean }> {
    const answer = await this.send<Payout>({
      method: 'POST',
      path: '/payouts',
      body: params,
      retry: 'always',
    })
    return { ...answer.data, replayed: answer.headers.get('idempotent-replayed') === 'true' }
  }

  async get(payoutId: string): Promise<Payout> {
    return (
      await this.send<Payout>({ method: 'GET', path: `/payouts/${segment(payoutId)}`, retry: 'always' })
    ).data
  }

  async cancel(payoutId: string): Promise<Payout> {
    const path = `/payouts/${segment(payoutId)}/cancel`
    return (await this.send<Payout>({ method: 'POST', path, retry: 'always' })).data
  }

  async list(params: ListOutgoingParams = {}): Promise<Page<Payout>> {
    return (
      await this.send<Page<Payout>>({
        method: 'GET',
        path: '/payouts',
        query: listQuery(params),
        retry: 'always',
      })
    ).data
  }

  listAll(params: ListOutgoingParams = {}): AsyncGenerator<Payout, void, undefined> {
    return everyItem(params, (page) => this.list(page))
  }
}

export class BalancesApi {
  constructor(private readonly send: Transport) {}

  /** GET /balances: per network and asset received */
  async list(): Promise<Balance[]> {
    return (await this.send<{ data: Balance[] }>({ method: 'GET', path: '/balances', retry: 'always' })).data
      .data
  }
}

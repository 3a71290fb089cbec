// The merchant API, typed: one method per endpoint of docs/api.md, lists as pages and as async
// iteration over every item.

import { DepositAddressesApi, DepositsApi } from './deposits.js'
import { createTransport, type HttpOptions, type Transport } from './http.js'
import { BalancesApi, PayoutsApi, RefundsApi } from './outgoing.js'
import type {
  CreateInvoiceParams,
  CreatePaymentParams,
  CreateWebhookEndpointParams,
  Invoice,
  ListDeliveriesParams,
  ListInvoicesParams,
  ListPaymentsParams,
  Page,
  Payment,
  PaymentEventRecord,
  PaymentEventsParams,
  RotatedSecret,
  RotateSecretParams,
  TestWebhookEndpointParams,
  UpdateWebhookEndpointParams,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './types.js'

export type ChainpayOptions = HttpOptions

/** a created payment, and whether the API answered an earlier one for the same idempotency key */
export type CreatedPayment = Payment & { replayed: boolean }

const segment = (id: string) => encodeURIComponent(id)

const isoOf = (value: string | Date | undefined) => (value instanceof Date ? value.toISOString() : value)

/** every item of every page, following nextCursor until it is null */
async function* everyItem<T, P extends { cursor?: string }>(
  params: P,
  page: (params: P) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  let cursor = params.cursor
  do {
    const answer = await page({ ...params, ...(cursor === undefined ? {} : { cursor }) })
    yield* answer.data
    cursor = answer.nextCursor ?? undefined
  } while (cursor !== undefined)
}

export class PaymentsApi {
  constructor(private readonly send: Transport) {}

  /**
   * POST /payments. Without an idempotencyKey the SDK sends one of its own, the same on each of its
   * tries; with yours, a repeat of the same request answers the original payment (`replayed`).
   */
  async create(params: CreatePaymentParams): Promise<CreatedPayment> {
    const body = { ...params, idempotencyKey: params.idempotencyKey ?? globalThis.crypto.randomUUID() }
    const answer = await this.send<Payment>({ method: 'POST', path: '/payments', body, retry: 'always' })
    return { ...answer.data, replayed: answer.headers.get('idempotent-replayed') === 'true' }
  }

  async get(paymentId: string): Promise<Payment> {
    return (
      await this.send<Payment>({ method: 'GET', path: `/payments/${segment(paymentId)}`, retry: 'always' })
    ).data
  }

  /** a pending payment with nothing received becomes canceled; cancelling it again answers it again */
  async cancel(paymentId: string): Promise<Payment> {
    const path = `/payments/${segment(paymentId)}/cancel`
    return (await this.send<Payment>({ method: 'POST', path, retry: 'always' })).data
  }

  /** one page, newest first */
  async list(params: ListPaymentsParams = {}): Promise<Page<Payment>> {
    const status = Array.isArray(params.status) ? params.status.join(',') : params.status
    const query = {
      limit: params.limit === undefined ? undefined : String(params.limit),
      cursor: params.cursor,
      status,
      network: params.network,
      currency: params.currency,
      createdFrom: isoOf(params.createdFrom),
      createdTo: isoOf(params.createdTo),
    }
    return (await this.send<Page<Payment>>({ method: 'GET', path: '/payments', query, retry: 'always' })).data
  }

  /** every payment that matches, page after page: `for await (const payment of chainpay.payments.listAll())` */
  listAll(params: ListPaymentsParams = {}): AsyncGenerator<Payment, void, undefined> {
    return everyItem(params, (page) => this.list(page))
  }

  /** the payment's whole history, oldest first */
  /**
   * the payment's history, oldest first; `confirmations: 'last'` keeps only the last
   * transfer.confirmations_updated of each transfer (a TRON payment has about 20)
   */
  async events(paymentId: string, params: PaymentEventsParams = {}): Promise<PaymentEventRecord[]> {
    const query = params.confirmations === undefined ? '' : `?confirmations=${params.confirmations}`
    const path = `/payments/${segment(paymentId)}/events${query}`
    return (await this.send<{ data: PaymentEventRecord[] }>({ method: 'GET', path, retry: 'always' })).data
      .data
  }
}

export class WebhookEndpointsApi {
  constructor(private readonly send: Transport) {}

  /** the secret is in this answer only: store it */
  async create(params: CreateWebhookEndpointParams): Promise<WebhookEndpointWithSecret> {
    return (
      await this.send<WebhookEndpointWithSecret>({
        method: 'POST',
        path: '/webhook-endpoints',
        body: params,
        retry: 'answered',
      })
    ).data
  }

  async list(): Promise<WebhookEndpoint[]> {
    return (
      await this.send<{ data: WebhookEndpoint[] }>({
        method: 'GET',
        path: '/webhook-endpoints',
        retry: 'always',
      })
    ).data.data
  }

  async get(endpointId: string): Promise<WebhookEndpoint> {
    const path = `/webhook-endpoints/${segment(endpointId)}`
    return (await this.send<WebhookEndpoint>({ method: 'GET', path, retry: 'always' })).data
  }

  async update(endpointId: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
    const path = `/webhook-endpoints/${segment(endpointId)}`
    return (await this.send<WebhookEndpoint>({ method: 'PATCH', path, body: params, retry: 'always' })).data
  }

  /**
   * Deleting one that is gone already throws NOT_FOUND, unless this call's own earlier try deleted it
   * and its answer was lost: then the retry's NOT_FOUND is the success it stands for.
   */
  async delete(endpointId: string): Promise<void> {
    const path = `/webhook-endpoints/${segment(endpointId)}`
    await this.send({ method: 'DELETE', path, retry: 'always', goneOnRetryIsDone: true })
  }

  /** a new secret; deliveries are signed with it and the old one for `expiresInHours` (default 24) */
  async rotateSecret(endpointId: string, params: RotateSecretParams = {}): Promise<RotatedSecret> {
    const path = `/webhook-endpoints/${segment(endpointId)}/rotate-secret`
    return (await this.send<RotatedSecret>({ method: 'POST', path, body: params, retry: 'answered' })).data
  }

  /**
   * sends the endpoint a test event of the kind (payment.confirmed by default): a made-up payment,
   * `test: true`, signed like any webhook and sent at once; answers its delivery, which
   * webhookDeliveries.list shows with its attempts
   */
  async test(endpointId: string, params: TestWebhookEndpointParams = {}): Promise<WebhookDelivery> {
    const path = `/webhook-endpoints/${segment(endpointId)}/test`
    return (await this.send<WebhookDelivery>({ method: 'POST', path, body: params, retry: 'answered' })).data
  }
}

export class WebhookDeliveriesApi {
  constructor(private readonly send: Transport) {}

  async list(params: ListDeliveriesParams = {}): Promise<Page<WebhookDelivery>> {
    const query = {
      paymentId: params.paymentId,
      status: params.status,
      limit: params.limit === undefined ? undefined : String(params.limit),
      cursor: params.cursor,
    }
    return (
      await this.send<Page<WebhookDelivery>>({
        method: 'GET',
        path: '/webhook-deliveries',
        query,
        retry: 'always',
      })
    ).data
  }

  listAll(params: ListDeliveriesParams = {}): AsyncGenerator<WebhookDelivery, void, undefined> {
    return everyItem(params, (page) => this.list(page))
  }

  /** sends the same event (same id) again to the target's current URL, on a fresh schedule */
  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const path = `/webhook-deliveries/${segment(deliveryId)}/redeliver`
    return (await this.send<WebhookDelivery>({ method: 'POST', path, retry: 'answered' })).data
  }
}

/** a created invoice, and whether the API answered an earlier one for the same idempotency key */
export type CreatedInvoice = Invoice & { replayed: boolean }

export class InvoicesApi {
  constructor(private readonly send: Transport) {}

  /**
   * POST /invoices: a price in fiat the customer pays in the asset they pick on the invoice's page
   * (checkoutUrl). Without an idempotencyKey the SDK sends one of its own, the same on each try.
   */
  async create(params: CreateInvoiceParams): Promise<CreatedInvoice> {
    const body = { ...params, idempotencyKey: params.idempotencyKey ?? globalThis.crypto.randomUUID() }
    const answer = await this.send<Invoice>({ method: 'POST', path: '/invoices', body, retry: 'always' })
    return { ...answer.data, replayed: answer.headers.get('idempotent-replayed') === 'true' }
  }

  async get(invoiceId: string): Promise<Invoice> {
    return (
      await this.send<Invoice>({ method: 'GET', path: `/invoices/${segment(invoiceId)}`, retry: 'always' })
    ).data
  }

  /** an open invoice becomes canceled, with its open payment; cancelling it again answers it again */
  async cancel(invoiceId: string): Promise<Invoice> {
    const path = `/invoices/${segment(invoiceId)}/cancel`
    return (await this.send<Invoice>({ method: 'POST', path, retry: 'always' })).data
  }

  /** one page, newest first */
  async list(params: ListInvoicesParams = {}): Promise<Page<Invoice>> {
    const query = {
      limit: params.limit === undefined ? undefined : String(params.limit),
      cursor: params.cursor,
      status: Array.isArray(params.status) ? params.status.join(',') : params.status,
      createdFrom: isoOf(params.createdFrom),
      createdTo: isoOf(params.createdTo),
    }
    return (await this.send<Page<Invoice>>({ method: 'GET', path: '/invoices', query, retry: 'always' })).data
  }

  /** every invoice that matches, page after page */
  listAll(params: ListInvoicesParams = {}): AsyncGenerator<Invoice, void, undefined> {
    return everyItem(params, (page) => this.list(page))
  }
}

export class Chainpay {
  readonly payments: PaymentsApi
  readonly invoices: InvoicesApi
  readonly webhookEndpoints: WebhookEndpointsApi
  readonly webhookDeliveries: WebhookDeliveriesApi
  readonly refunds: RefundsApi
  readonly payouts: PayoutsApi
  readonly balances: BalancesApi
  readonly depositAddresses: DepositAddressesApi
  readonly deposits: DepositsApi

  constructor(options: ChainpayOptions) {
    const send = createTransport(options)
    this.payments = new PaymentsApi(send)
    this.invoices = new InvoicesApi(send)
    this.webhookEndpoints = new WebhookEndpointsApi(send)
    this.webhookDeliveries = new WebhookDeliveriesApi(send)
    this.refunds = new RefundsApi(send)
    this.payouts = new PayoutsApi(send)
    this.balances = new BalancesApi(send)
    this.depositAddresses = new DepositAddressesApi(send)
    this.deposits = new DepositsApi(send)
  }
}

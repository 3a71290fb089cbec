// The PaymentCommands port over payment-command's internal HTTP API (undici). An error body becomes
// the DomainError it was on the other side; no answer at all (refused, reset, timed out, or a 5xx
// without our error body) becomes the port's UnavailableError, which the gateway answers with 503.
// Every call carries COMMAND_API_TOKEN as its bearer when there is one; a refused token is the
// operator's mistake, not the merchant's, so it becomes a plain Error (a logged 500), never a 401.

import { DomainError, type ErrorCode, ErrorCodes, type PaymentHistoryEntry } from '@chainpay/domain'
import {
  type CreatePaymentOutcome,
  type DepositAddressCommands,
  type DepositSweepCommands,
  type EnsureDepositAddressOutcome,
  type InvoiceCommands,
  type InvoiceSnapshot,
  type MerchantWallets,
  type MerchantWalletView,
  type OutgoingCommands,
  type PaymentCommands,
  type PaymentSnapshot,
  type RecordDepositSweepOutcome,
  type RecordSweepOutcome,
  type SeedResealReport,
  UnavailableError,
} from '@chainpay/ports'
import { Agent, request } from 'undici'
import {
  cancelPath,
  commandApiRoutes,
  depositSweepsPath,
  historyPath,
  invoicePath,
  merchantWalletPath,
  type OutgoingCommandMethod,
  outgoingPath,
  paymentPath,
  sweepsPath,
} from './routes.js'

export interface HttpPaymentCommandsOptions {
  /** where the command API listens, e.g. http://payment-command:8081 */
  baseUrl: string
  /** for the whole exchange, connect to last body byte; default 10 s */
  timeoutMs?: number
  /** COMMAND_API_TOKEN, sent as `Authorization: Bearer <token>`; none when undefined */
  token?: string
}

export interface HttpPaymentCommands extends PaymentCommands, OutgoingCommands {
  /** merchants' own wallets, kept by payment-command (docs/api.md, "Merchant wallets") */
  merchantWallets: MerchantWallets
  /** the invoices' commands (docs/api.md, "Invoices") */
  invoices: InvoiceCommands
  /** customers' deposit addresses (docs/api.md, "Deposit addresses") */
  depositAddresses: DepositAddressCommands
  /** the operator's sweeps of customers' deposits (docs/api.md, "Balances and sweeps") */
  depositSweeps: DepositSweepCommands
  /** closes the kept-alive connections */
  close(): Promise<void>
}

const DEFAULT_TIMEOUT_MS = 10_000

interface Answer {
  status: number
  body: unknown
}

export function createHttpPaymentCommands(options: HttpPaymentCommandsOptions): HttpPaymentCommands {
  const base = new URL(options.baseUrl)
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new Error(`payment command API base URL must be http(s): ${options.baseUrl}`)
  }
  const prefix = base.href.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const agent = new Agent()
  const authorization = options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }

  const call = async (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<Answer> => {
    const target = `${prefix}${path}`
    try {
      const response = await request(target, {
        method,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { ...authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.body.text()
      return { status: response.statusCode, body: parseJson(text) }
    } catch (error) {
      throw new UnavailableError(`payment-command ${method} ${target}: ${(error as Error).message}`, {
        cause: error,
      })
    }
  }

  /** the answer's body when it is a success; throws what the failure means otherwise */
  const expectSuccess = (answer: Answer, what: string): Record<string, unknown> => {
    if (answer.status >= 200 && answer.status < 300 && isRecord(answer.body)) return answer.body
    const failure = errorOf(answer.body)
    if (answer.status === 401) {
      throw new Error(
        `payment-command refused ${what}: ${failure?.message ?? 'status 401'} (the gateway's COMMAND_API_TOKEN must be payment-command's)`,
      )
    }
    if (failure) throw new DomainError(failure.code, failure.message)
    const description = `payment-command answered ${what} with status ${answer.status} and no error body`
    throw answer.status >= 500 ? new UnavailableError(description) : new Error(description)
  }

  /** a method of the OutgoingCommands port: its input as the body, its result as the answer */
  const outgoing = async <Result>(method: OutgoingCommandMethod, input: unknown): Promise<Result> => {
    const answer = await call('POST', outgoingPath(method), input)
    return expectSuccess(answer, `${method}`).result as Result
  }

  return {
    depositAddresses: {
      async ensureDepositAddress(input) {
        const answer = await call('POST', commandApiRoutes.depositAddresses, input)
        return expectSuccess(answer, 'the deposit address') as unknown as EnsureDepositAddressOutcome
      },
    },
    depositSweeps: {
      async recordDepositSweep({ depositId, ...sweep }) {
        if (depositId === '') throw new DomainError('NOT_FOUND', 'deposit  not found')
        const body = expectSuccess(await call('POST', depositSweepsPath(depositId), sweep), 'a sweep record')
        const { outcome, sweep: recorded, deposit } = body
        if ((outcome !== 'recorded' && outcome !== 'replayed') || !isRecord(recorded) || !isRecord(deposit)) {
          throw new Error(
            `payment-command answered a deposit sweep record with outcome ${JSON.stringify(outcome)}`,
          )
        }
        return body as unknown as RecordDepositSweepOutcome
      },
    },
    createRefund: (input) => outgoing('createRefund', input),
    createPayout: (input) => outgoing('createPayout', input),
    cancelOutgoing: (input) => outgoing('cancelOutgoing', input),
    getOutgoing: (input) => outgoing('getOutgoing', input),
    listOutgoing: (input) => outgoing('listOutgoing', input),
    listOperatorOutgoing: (input) => outgoing('listOperatorOutgoing', input),
    giveRefundAddress: (input) => outgoing('giveRefundAddress', input),
    recordOutgoingStep: (input) => outgoing('recordOutgoingStep', input),
    getRefundHistory: (input) => outgoing('getRefundHistory', input),
    getBalances: (input) => outgoing('getBalances', input),

    async createPayment(input): Promise<CreatePaymentOutcome> {
      const body = expectSuccess(await call('POST', commandApiRoutes.payments, input), 'a create')
      const outcome = body.outcome
      if (outcome !== 'created' && outcome !== 'replayed') {
        throw new Error(`payment-command answered a create with outcome ${JSON.stringify(outcome)}`)
      }
      return { outcome, ...toSnapshot(body) }
    },

    async cancelPayment({ merchantId, paymentId, canceledBy }): Promise<PaymentSnapshot> {
      // no path names an empty id; the direct handler finds no payment under it either
      if (paymentId === '') throw new DomainError('PAYMENT_NOT_FOUND', 'payment  not found')
      const answer = await call('POST', cancelPath(paymentId), {
        merchantId,
        ...(canceledBy ? { canceledBy } : {}),
      })
      return toSnapshot(expectSuccess(answer, 'a cancel'))
    },

    async getPayment({ merchantId, paymentId }): Promise<PaymentSnapshot | null> {
      if (paymentId === '') return null
      const answer = await call('GET', `${paymentPath(paymentId)}?${new URLSearchParams({ merchantId })}`)
      if (answer.status === 404 && errorOf(answer.body)?.code === 'PAYMENT_NOT_FOUND') return null
      return toSnapshot(expectSuccess(answer, 'a get'))
    },

    async getPaymentHistory({ merchantId, paymentId }): Promise<PaymentHistoryEntry[] | null> {
      if (paymentId === '') return null
      const answer = await call('GET', `${historyPath(paymentId)}?${new URLSearchParams({ merchantId })}`)
      if (answer.status === 404 && errorOf(answer.body)?.code === 'PAYMENT_NOT_FOUND') return null
      const { events } = expectSuccess(answer, 'a history read')
      if (!Array.isArray(events)) throw new Error('payment-command answered a history read without events')
      // payment-command upcast and validated each event as it read it from its event store
      return events as PaymentHistoryEntry[]
    },

    async recordSweep({ paymentId, ...sweep }): Promise<RecordSweepOutcome> {
      if (paymentId === '') throw new DomainError('PAYMENT_NOT_FOUND', 'payment  not found')
      const body = expectSuccess(await call('POST', sweepsPath(paymentId), sweep), 'a sweep record')
      const { outcome, sweep: recorded } = body
      if ((outcome !== 'recorded' && outcome !== 'replayed') || !isRecord(recorded)) {
        throw new Error(`payment-command answered a sweep record with outcome ${JSON.stringify(outcome)}`)
      }
      return { outcome, sweep: recorded as unknown as RecordSweepOutcome['sweep'], ...toSnapshot(body) }
    },

    merchantWallets: {
      async set(merchantId, keys): Promise<MerchantWalletView> {
        const answer = await call('PUT', merchantWalletPath(merchantId), keys)
        return expectSuccess(answer, 'a wallet set') as unknown as MerchantWalletView
      },
      async show(merchantId): Promise<MerchantWalletView | null> {
        const { wallet } = expectSuccess(await call('GET', merchantWalletPath(merchantId)), 'a wallet read')
        return wallet === null ? null : (wallet as MerchantWalletView)
      },
      async remove(merchantId): Promise<boolean> {
        const answer = await call('DELETE', merchantWalletPath(merchantId))
        return expectSuccess(answer, 'a wallet removal').removed === true
      },
      async resealSeeds(): Promise<SeedResealReport> {
        const answer = await call('POST', commandApiRoutes.resealWalletSeeds, {})
        return expectSuccess(answer, 'a re-seal of wallet seeds') as unknown as SeedResealReport
      },
    },

    invoices: {
      async createInvoice(input) {
        const body = expectSuccess(await call('POST', commandApiRoutes.invoices, input), 'an invoice create')
        const { outcome } = body
        if (outcome !== 'created' && outcome !== 'replayed') {
          throw new Error(
            `payment-command answered an invoice create with outcome ${JSON.stringify(outcome)}`,
          )
        }
        return { outcome, ...toInvoiceSnapshot(body) }
      },
      async getInvoice({ merchantId, invoiceId }) {
        if (invoiceId === '') return null
        const answer = await call('GET', `${invoicePath(invoiceId)}?${new URLSearchParams({ merchantId })}`)
        if (answer.status === 404 && errorOf(answer.body)?.code === 'INVOICE_NOT_FOUND') return null
        return toInvoiceSnapshot(expectSuccess(answer, 'an invoice read'))
      },
      async cancelInvoice({ merchantId, invoiceId }) {
        if (invoiceId === '') throw new DomainError('INVOICE_NOT_FOUND', 'invoice  not found')
        const answer = await call('POST', `${invoicePath(invoiceId)}/cancel`, { merchantId })
        return toInvoiceSnapshot(expectSuccess(answer, 'an invoice cancel'))
      },
      async pickInvoicePayment({ invoiceId, ...pick }) {
        if (invoiceId === '') throw new DomainError('INVOICE_NOT_FOUND', 'invoice  not found')
        const answer = await call('POST', `${invoicePath(invoiceId)}/picks`, pick)
        const body = expectSuccess(answer, 'an invoice pick')
        const { invoice, payment, replaced } = body
        if (!isRecord(invoice) || !isRecord(payment)) {
          throw new Error('payment-command answered an invoice pick without the invoice and the payment')
        }
        return {
          invoice: toInvoiceSnapshot(invoice),
          payment: toSnapshot(payment),
          replaced: isRecord(replaced) ? toSnapshot(replaced) : null,
        }
      },
    },

    async close() {
      await agent.close()
    },
  }
}

function toSnapshot(body: Record<string, unknown>): PaymentSnapshot {
  const { payment, revision } = body
  if (!isRecord(payment) || typeof payment.status !== 'string' || !Number.isInteger(revision)) {
    throw new Error('payment-command answered without a payment snapshot')
  }
  return { payment: payment as unknown as PaymentSnapshot['payment'], revision: revision as number }
}

function toInvoiceSnapshot(body: Record<string, unknown>): InvoiceSnapshot {
  const { invoice, revision } = body
  if (!isRecord(invoice) || typeof invoice.status !== 'string' || !Number.isInteger(revision)) {
    throw new Error('payment-command answered without an invoice snapshot')
  }
  return { invoice: invoice as unknown as InvoiceSnapshot['invoice'], revision: revision as number }
}

function errorOf(body: unknown): { code: ErrorCode; message: string } | null {
  if (!isRecord(body) || !isRecord(body.error)) return null
  const { code, message } = body.error
  if (typeof message !== 'string' || !ErrorCodes.includes(code as ErrorCode)) return null
  return { code: code as ErrorCode, message }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

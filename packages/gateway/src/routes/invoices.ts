// The merchant API's invoice routes (docs/api.md, "Invoices"): POST /invoices, GET /invoices,
// GET /invoices/{invoiceId}, POST /invoices/{invoiceId}/cancel. Thin like the payment routes: the
// body goes to payment-command as sent (the domain validates it), and what a command returns is
// written through to the invoices' read model, so that a read right after it finds it; a read the
// read model cannot answer yet asks payment-command, which folds the stream.

import {
  API_BASE_PATH,
  InvoiceIdParamsSchema,
  type InvoiceListQuery,
  InvoiceListQuerySchema,
  InvoiceListSchema,
  InvoiceStatuses,
  InvoiceViewSchema,
} from '@chainpay/contracts'
import {
  DomainError,
  type InvoiceStatus,
  isPaymentId,
  type OpenInvoice,
  toInvoiceView,
} from '@chainpay/domain'
import type {
  InvoiceCommands,
  InvoiceReadModel,
  InvoiceSnapshot,
  InvoiceListQuery as ReadModelQuery,
} from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { MerchantCaller } from '../auth.js'
import { readPageLimit } from './list-query.js'
import { decodeCursor, encodeCursor, readTimestamp } from './payment-reading.js'

export interface InvoiceRoutesDeps {
  invoiceCommands: InvoiceCommands
  invoiceReadModel: InvoiceReadModel
  /** every invoice object carries its page, {PUBLIC_URL}/pay/invoice/{token} */
  invoiceLinks: CheckoutLinks
}

/** what a command returned, in the read model at once; the projection gets there too, guarded by revision */
export async function saveInvoiceAfterCommand(
  readModel: InvoiceReadModel,
  snapshot: InvoiceSnapshot,
  log: FastifyBaseLogger,
): Promise<void> {
  const { invoice, revision } = snapshot
  const document = {
    invoiceId: invoice.created.invoiceId,
    merchantId: invoice.created.merchantId,
    revision,
    state: invoice,
  }
  await readModel.save(document).catch((error: unknown) => {
    log.warn(
      { err: error, invoiceId: document.invoiceId },
      'invoice write-through failed; the projection brings it',
    )
  })
}

export const invoiceRoutes: FastifyPluginAsyncTypebox<InvoiceRoutesDeps> = async (app, deps) => {
  const { invoiceCommands: commands, invoiceReadModel: readModel, invoiceLinks } = deps
  const viewOf = (invoice: OpenInvoice) =>
    toInvoiceView(invoice, invoiceLinks.urlOf(invoice.created.invoiceId))

  app.post(
    '/invoices',
    { schema: { response: { 200: InvoiceViewSchema, 201: InvoiceViewSchema } } },
    async (request, reply) => {
      const { merchant } = callerOf(request)
      const created = await commands.createInvoice({ merchantId: merchant.merchantId, request: request.body })
      await saveInvoiceAfterCommand(readModel, created, request.log)
      const view = viewOf(created.invoice)
      if (created.outcome === 'replayed')
        return reply.code(200).header('idempotent-replayed', 'true').send(view)
      return reply.code(201).header('location', `${API_BASE_PATH}/invoices/${view.invoiceId}`).send(view)
    },
  )

  app.get(
    '/invoices/:invoiceId',
    { schema: { params: InvoiceIdParamsSchema, response: { 200: InvoiceViewSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const invoiceId = readInvoiceId(request.params.invoiceId)
      const document = await readModel.get(invoiceId)
      if (document !== null) {
        if (document.merchantId !== merchant.merchantId) throw invoiceNotFound(invoiceId)
        return viewOf(document.state)
      }
      const snapshot = await commands.getInvoice({ merchantId: merchant.merchantId, invoiceId })
      if (snapshot === null) throw invoiceNotFound(invoiceId)
      return viewOf(snapshot.invoice)
    },
  )

  app.get(
    '/invoices',
    { schema: { querystring: InvoiceListQuerySchema, response: { 200: InvoiceListSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const query = readListQuery(merchant.merchantId, request.query)
      // one more than the page: whether there is a next page, without a count
      const documents = await readModel.list({ ...query, limit: query.limit + 1 })
      const page = documents.slice(0, query.limit)
      const last = page.at(-1)
      const nextCursor =
        documents.length > query.limit && last !== undefined
          ? encodeCursor({ createdAt: last.state.created.createdAt, paymentId: last.invoiceId })
          : null
      return { data: page.map((document) => viewOf(document.state)), nextCursor }
    },
  )

  app.post(
    '/invoices/:invoiceId/cancel',
    { schema: { params: InvoiceIdParamsSchema, response: { 200: InvoiceViewSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const invoiceId = readInvoiceId(request.params.invoiceId)
      if (request.rawBody !== '' && !isEmptyObject(request.body)) {
        throw new DomainError('VALIDATION_ERROR', 'body: must be empty or {}')
      }
      const canceled = await commands.cancelInvoice({ merchantId: merchant.merchantId, invoiceId })
      await saveInvoiceAfterCommand(readModel, canceled, request.log)
      return viewOf(canceled.invoice)
    },
  )
}

function callerOf(request: FastifyRequest): MerchantCaller {
  if (request.caller === null) throw new Error('invoice route reached without an authenticated caller')
  return request.caller
}

/** UUIDs compare case-insensitively; invoice ids are stored in lower case */
function readInvoiceId(text: string): string {
  if (!isPaymentId(text)) throw new DomainError('VALIDATION_ERROR', 'invoiceId: must be a UUID')
  return text.toLowerCase()
}

function invoiceNotFound(invoiceId: string): DomainError {
  return new DomainError('INVOICE_NOT_FOUND', `invoice ${invoiceId} not found`)
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  )
}

/** the read model's query for the merchant's query string, or VALIDATION_ERROR naming the parameter */
function readListQuery(merchantId: string, query: InvoiceListQuery): ReadModelQuery {
  const invalid = (parameter: string, rule: string) =>
    new DomainError('VALIDATION_ERROR', `${parameter}: ${rule}`)
  const limit = readPageLimit(query.limit)
  const listQuery: ReadModelQuery = { merchantId, limit }
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor)
    if (after === null) throw invalid('cursor', 'not a nextCursor of this API')
    listQuery.after = { createdAt: after.createdAt, invoiceId: after.paymentId }
  }
  if (query.status !== undefined) {
    const statuses = query.status.split(',')
    const unknown = statuses.find((status) => !(InvoiceStatuses as readonly string[]).includes(status))
    if (unknown !== undefined)
      throw invalid('status', `'${unknown}' is not one of ${InvoiceStatuses.join(', ')}`)
    listQuery.statuses = [...new Set(statuses)] as InvoiceStatus[]
  }
  for (const parameter of ['createdFrom', 'createdTo'] as const) {
    const text = query[parameter]
    if (text === undefined) continue
    const timestamp = readTimestamp(text)
    if (timestamp === null) {
      throw invalid(
        parameter,
        'must be an ISO 8601 date or date-time with a time zone, e.g. 2026-11-01T00:00:00Z',
      )
    }
    listQuery[parameter] = timestamp
  }
  return listQuery
}

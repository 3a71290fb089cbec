// The invoices, deposits and settings pages (docs/dashboard.md, "Invoices", "Deposits", "Settings"),
// registered by dashboard-routes.ts. Read-only for every role (`read`, access-rules.ts): each page
// reads what the merchant API's routes read (packages/gateway/src/routes/invoices.ts,
// deposit-addresses.ts, deposits.ts), always for the signed-in user's merchant; another merchant's
// invoice is as unknown as one that does not exist. The settings are the operator's to change
// (docs/operations.md, scripts/admin): the merchant API changes none of them, so neither does this.

import { InvoiceStatuses } from '@chainpay/contracts'
import {
  type DepositStatus,
  DepositStatuses,
  formatUnits,
  type InvoiceStatus,
  isPaymentId,
  MERCHANT_USER_ID_MAX_LENGTH,
  type OpenInvoice,
  toInvoiceView,
} from '@chainpay/domain'
import type {
  DepositAddressListQuery,
  DepositAddressReadModel,
  DepositListQuery,
  DepositReadModel,
  DepositRecord,
  InvoiceCommands,
  InvoiceListQuery,
  InvoiceReadModel,
  MerchantStore,
} from '@chainpay/ports'
import type { FastifyPluginAsync } from 'fastify'
import type { AnyRequest, DashboardRouteKit } from './dashboard-kit.js'
import {
  type DepositRow,
  renderDeposits,
  renderInvoiceDetail,
  renderInvoices,
  renderSettings,
} from './reading-pages.js'
import { readingTexts } from './reading-texts.js'

/** what the merchant API's invoice and deposit routes are given (the gateway's app passes the same) */
export interface DashboardReadingDeps {
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** absent: no invoices page */
  invoices?:
    | {
        invoiceReadModel: Pick<InvoiceReadModel, 'get' | 'list'>
        invoiceCommands: Pick<InvoiceCommands, 'getInvoice'>
        invoiceLinks: { urlOf(invoiceId: string): string }
      }
    | undefined
  /** the customers' deposit addresses (GET /deposit-addresses); absent: none listed */
  depositAddresses?: { depositAddressReadModel: Pick<DepositAddressReadModel, 'list'> } | undefined
  /** the deposits at them (GET /deposits); absent, and no addresses either: no deposits page */
  deposits?: { depositReadModel: Pick<DepositReadModel, 'list'> } | undefined
}

export interface ReadingRoutesOptions extends DashboardReadingDeps {
  kit: DashboardRouteKit
}

const LIST_SIZE = 25

export const readingRoutes: FastifyPluginAsync<ReadingRoutesOptions> = async (app, deps) => {
  const { kit } = deps
  const { base, signedIn, frameOf, html, first } = kit
  /** the query's value, trimmed; '' when absent */
  const text = (request: AnyRequest, name: string) => (first(request.query[name]) ?? '').trim()
  /** a page's link with the same filters and another cursor */
  const hrefOf = (path: string, params: Record<string, string>) =>
    `${base}/${path}?${new URLSearchParams(params)}`

  const { invoices } = deps
  if (invoices) {
    const viewOf = (invoice: OpenInvoice) =>
      toInvoiceView(invoice, invoices.invoiceLinks.urlOf(invoice.created.invoiceId))

    app.get('/invoices', async (request: AnyRequest, reply) => {
      const signed = await signedIn(request, reply, 'read')
      if (signed === null) return reply
      const frame = frameOf(request, signed, 'invoices')
      const statusText = text(request, 'status')
      const status = (InvoiceStatuses as readonly string[]).includes(statusText)
        ? (statusText as InvoiceStatus)
        : undefined
      const query: InvoiceListQuery = { merchantId: signed.user.merchantId, limit: LIST_SIZE + 1 }
      if (status) query.statuses = [status]
      const after = decodePair(text(request, 'after'))
      if (after) query.after = { createdAt: after[0], invoiceId: after[1] }
      // one more than the page: whether there is an older page, without a count
      const documents = await invoices.invoiceReadModel.list(query)
      const page = documents.slice(0, LIST_SIZE)
      const last = page.at(-1)
      const olderHref =
        documents.length > LIST_SIZE && last
          ? hrefOf('invoices', {
              lang: frame.language,
              status: status ?? '',
              after: encodePair(last.state.created.createdAt, last.invoiceId),
            })
          : null
      return html(
        reply,
        200,
        renderInvoices(frame, readingTexts[frame.language], {
          invoices: page.map((document) => viewOf(document.state)),
          olderHref,
          status: status ?? '',
          statuses: InvoiceStatuses,
        }),
      )
    })

    app.get('/invoices/:invoiceId', async (request: AnyRequest, reply) => {
      const signed = await signedIn(request, reply, 'read')
      if (signed === null) return reply
      const frame = frameOf(request, signed, 'invoices')
      const merchantId = signed.user.merchantId
      const idText = request.params.invoiceId ?? ''
      const notFound = () =>
        html(reply, 404, kit.messagePage(frame, frame.texts.notFound, frame.texts.notFound))
      if (!isPaymentId(idText)) return notFound()
      const invoiceId = idText.toLowerCase()
      // as GET /invoices/{invoiceId}: the read model, else payment-command, which folds the stream
      const document = await invoices.invoiceReadModel.get(invoiceId)
      let invoice: OpenInvoice | null = null
      if (document !== null) {
        invoice = document.merchantId === merchantId ? document.state : null
      } else {
        invoice = (await invoices.invoiceCommands.getInvoice({ merchantId, invoiceId }))?.invoice ?? null
      }
      if (invoice === null) return notFound()
      return html(reply, 200, renderInvoiceDetail(frame, readingTexts[frame.language], viewOf(invoice)))
    })
  }

  const { deposits, depositAddresses } = deps
  if (deposits || depositAddresses) {
    app.get('/deposits', async (request: AnyRequest, reply) => {
      const signed = await signedIn(request, reply, 'read')
      if (signed === null) return reply
      const frame = frameOf(request, signed, 'deposits')
      const merchantId = signed.user.merchantId
      const customer = text(request, 'merchantUserId').slice(0, MERCHANT_USER_ID_MAX_LENGTH)
      const statusText = text(request, 'status')
      const status = (DepositStatuses as readonly string[]).includes(statusText)
        ? (statusText as DepositStatus)
        : undefined
      const addressQuery: DepositAddressListQuery = { merchantId, limit: LIST_SIZE + 1 }
      const depositQuery: DepositListQuery = { merchantId, limit: LIST_SIZE + 1 }
      if (customer !== '') {
        addressQuery.merchantUserId = customer
        depositQuery.merchantUserId = customer
      }
      if (status) depositQuery.status = status
      const addressesAfter = decodePair(text(request, 'addressesAfter'))
      if (addressesAfter) addressQuery.after = { createdAt: addressesAfter[0], address: addressesAfter[1] }
      const depositsAfter = decodePair(text(request, 'depositsAfter'))
      if (depositsAfter) depositQuery.after = { detectedAt: depositsAfter[0], depositId: depositsAfter[1] }
      const [addresses, records] = await Promise.all([
        depositAddresses ? depositAddresses.depositAddressReadModel.list(addressQuery) : [],
        deposits ? deposits.depositReadModel.list(depositQuery) : [],
      ])
      const filters = { lang: frame.language, merchantUserId: customer, status: status ?? '' }
      const lastAddress = addresses.slice(0, LIST_SIZE).at(-1)
      const lastDeposit = records.slice(0, LIST_SIZE).at(-1)
      return html(
        reply,
        200,
        renderDeposits(frame, readingTexts[frame.language], {
          merchantUserId: customer,
          addresses: addresses.slice(0, LIST_SIZE).map(({ merchantUserId, chain, address, createdAt }) => ({
            merchantUserId,
            chain,
            address,
            createdAt,
          })),
          olderAddressesHref:
            addresses.length > LIST_SIZE && lastAddress
              ? hrefOf('deposits', {
                  ...filters,
                  addressesAfter: encodePair(lastAddress.createdAt, lastAddress.address),
                })
              : null,
          deposits: records.slice(0, LIST_SIZE).map(toDepositRow),
          olderDepositsHref:
            records.length > LIST_SIZE && lastDeposit
              ? hrefOf('deposits', {
                  ...filters,
                  depositsAfter: encodePair(lastDeposit.state.detected.detectedAt, lastDeposit.depositId),
                })
              : null,
          status: status ?? '',
          statuses: DepositStatuses,
        }),
      )
    })
  }

  app.get('/settings', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'settings')
    const merchant = await deps.merchants.getMerchant(signed.user.merchantId)
    if (merchant === null)
      return html(reply, 404, kit.messagePage(frame, frame.texts.notFound, frame.texts.notFound))
    const { feePolicy } = merchant
    return html(
      reply,
      200,
      renderSettings(frame, readingTexts[frame.language], {
        name: merchant.name,
        displayName: merchant.displayName ?? null,
        webhookUrl: merchant.webhookUrl,
        // basis points as a percentage, exactly: 150 → "1.5"
        feePercent: formatUnits(BigInt(feePolicy.feeBps), 2),
        fixedFees: Object.entries(feePolicy.fixedFees).map(([asset, amount]) => ({ asset, amount })),
        underpaymentTolerancePercent: merchant.underpaymentTolerancePercent ?? '0',
      }),
    )
  })
}

/** a deposit as GET /deposits shows it (packages/gateway/src/routes/deposits.ts, toDepositWireView) */
function toDepositRow({ depositId, state }: DepositRecord): DepositRow {
  const { detected } = state
  return {
    depositId,
    merchantUserId: detected.merchantUserId,
    network: detected.network,
    currency: detected.currency,
    address: detected.address,
    txHash: detected.txHash,
    amount: formatUnits(BigInt(detected.amountUnits), detected.decimals),
    fee: formatUnits(BigInt(detected.feeUnits), detected.decimals),
    net: formatUnits(BigInt(detected.netUnits), detected.decimals),
    status: state.status,
    confirmations: state.confirmations,
    requiredConfirmations: detected.requiredConfirmations,
    detectedAt: detected.detectedAt,
  }
}

function encodePair(first: string, second: string): string {
  return Buffer.from(JSON.stringify([first, second])).toString('base64url')
}

/** a cursor of encodePair; null for none or anything else (the first page then) */
function decodePair(cursor: string): [string, string] | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (!Array.isArray(decoded) || decoded.length !== 2) return null
    const [a, b] = decoded as unknown[]
    return typeof a === 'string' && typeof b === 'string' ? [a, b] : null
  } catch {
    return null
  }
}

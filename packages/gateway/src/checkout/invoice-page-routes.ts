// The invoice's page under /pay/invoice/ (docs/api.md, "The invoice's page"), inside the customer's
// page plugin (checkout-routes.ts), whose headers (strict CSP, no-store, no-referrer, framing),
// rate limit and form parser it shares. GET /pay/invoice/{token} shows the invoice and its choices;
// POST /pay/invoice/{token}/pick is the customer's pick: a payment of the invoice in that asset,
// whose page (/pay/{token}) the customer is sent to.
//
// The pick is a plain form POST, CSRF-safe without cookies: the unguessable token in the path is the
// customer's whole access (another site does not know it), and a POST whose Origin is another origin
// or whose Sec-Fetch-Site is not same-origin is refused (403), as the customer's cancel is.

import {
  type AssetRegistry,
  currentInvoicePayment,
  DomainError,
  isCancelable,
  type OpenInvoice,
  withoutHiddenControls,
} from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import type { InvoiceCommands, InvoiceReadModel, MerchantStore } from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { saveInvoiceAfterCommand } from '../routes/invoices.js'
import type { ReadYourWrites } from '../routes/read-your-writes.js'
import { type CheckoutLanguage, checkoutTexts } from './checkout-texts.js'
import { isSameOriginPost } from './customer-page-headers.js'
import { choiceValue, INVOICE_STYLES, renderInvoicePage } from './invoice-page.js'
import { type InvoiceTexts, invoiceTexts, networkName } from './invoice-texts.js'

export interface InvoicePageDeps {
  invoiceLinks: CheckoutLinks
  invoiceReadModel: InvoiceReadModel
  invoiceCommands: InvoiceCommands
}

export interface InvoicePageRoutesDeps extends InvoicePageDeps {
  readYourWrites: ReadYourWrites
  checkoutLinks: CheckoutLinks
  merchants: Pick<MerchantStore, 'getMerchant'>
  registry: AssetRegistry
  clock: Clock
  /** the customer page plugin's own: its language, its 404, its origin */
  languageOf: (request: FastifyRequest) => CheckoutLanguage
  notFound: (request: FastifyRequest, reply: FastifyReply) => FastifyReply
  publicOrigin: string
}

type TokenRequest = FastifyRequest<{ Params: { token: string } }>

/** the HTTP status of a pick the invoice could not take, and what the page says */
function refusalOf(error: DomainError, t: InvoiceTexts): { status: number; text: string } | null {
  switch (error.code) {
    case 'RATE_UNAVAILABLE':
      return { status: 503, text: t.errors.rateUnavailable }
    case 'PAYMENT_NOT_CANCELABLE':
      return { status: 409, text: t.errors.transferSeen }
    case 'INVOICE_NOT_OPEN':
      return { status: 409, text: t.errors.notOpen }
    case 'UNSUPPORTED_ASSET':
      return { status: 400, text: t.errors.notAccepted }
    case 'VALIDATION_ERROR':
      // the price at the rate falls outside the asset's bounds (the amount floors, docs/api.md)
      return { status: 400, text: t.errors.tooSmall }
    default:
      return null
  }
}

export const invoicePageRoutes: FastifyPluginAsync<InvoicePageRoutesDeps> = async (app, deps) => {
  const { invoiceLinks, invoiceReadModel, invoiceCommands, readYourWrites, checkoutLinks, clock } = deps

  app.get('/pay/assets/invoice.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=300').send(INVOICE_STYLES),
  )

  /** the invoice behind the token, or null: an unknown token and an unknown invoice look the same */
  const invoiceOf = async (token: string): Promise<OpenInvoice | null> => {
    const invoiceId = invoiceLinks.paymentIdOf(token)
    if (invoiceId === null) return null
    return (await invoiceReadModel.get(invoiceId))?.state ?? null
  }

  const render = async (
    request: TokenRequest,
    reply: FastifyReply,
    invoice: OpenInvoice,
    refusal: { status: number; text: string } | null,
    selected: string | null,
  ) => {
    const language = deps.languageOf(request)
    const { created } = invoice
    const merchant = await deps.merchants.getMerchant(created.merchantId)
    const shownName = merchant?.displayName ?? merchant?.name ?? null
    const testnetOf = (network: string) =>
      deps.registry.networks.find((candidate) => candidate.network === network)?.testnet ?? false
    const nameOf = (network: string) => networkName(network, testnetOf(network), language)
    // the payment of the latest pick, while the customer can still pay it
    const currentId = invoice.status === 'open' ? currentInvoicePayment(invoice) : null
    const current = currentId === null ? null : await readYourWrites.read(currentId, created.merchantId)
    const chosen =
      current !== null && current.payment.status === 'pending'
        ? {
            path: new URL(checkoutLinks.urlOf(current.payment.created.paymentId)).pathname,
            currency: current.payment.created.currency,
            networkName: nameOf(current.payment.created.network),
          }
        : null
    return reply
      .code(refusal?.status ?? 200)
      .type('text/html; charset=utf-8')
      .send(
        renderInvoicePage({
          language,
          texts: invoiceTexts[language],
          checkoutTexts: checkoutTexts[language],
          path: `/pay/invoice/${request.params.token}`,
          invoice,
          merchantName: shownName === null ? null : withoutHiddenControls(shownName),
          choices: created.accepted.map((asset) => ({ ...asset, networkName: nameOf(asset.network) })),
          chosen,
          error: refusal?.text ?? null,
          selected,
          now: clock.now(),
        }),
      )
  }

  app.get('/pay/invoice/:token', async (request: TokenRequest, reply) => {
    const invoice = await invoiceOf(request.params.token)
    if (invoice === null) return deps.notFound(request, reply)
    return render(request, reply, invoice, null, null)
  })

  app.post('/pay/invoice/:token/pick', async (request: TokenRequest, reply) => {
    const invoice = await invoiceOf(request.params.token)
    if (invoice === null) return deps.notFound(request, reply)
    if (!isSameOriginPost(request, deps.publicOrigin)) {
      return reply.code(403).type('text/plain; charset=utf-8').send('forbidden')
    }
    const t = invoiceTexts[deps.languageOf(request)]
    const value = (request.body as Record<string, unknown> | undefined)?.asset
    const choice = invoice.created.accepted.find((asset) => choiceValue(asset) === value)
    if (choice === undefined)
      return render(request, reply, invoice, { status: 400, text: t.errors.chooseOne }, null)
    const { merchantId, invoiceId } = invoice.created
    let picked: Awaited<ReturnType<InvoiceCommands['pickInvoicePayment']>>
    try {
      picked = await invoiceCommands.pickInvoicePayment({
        merchantId,
        invoiceId,
        currency: choice.currency,
        network: choice.network,
      })
    } catch (error) {
      const refusal = error instanceof DomainError ? refusalOf(error, t) : null
      if (refusal === null) throw error
      request.log.info({ invoiceId, code: (error as DomainError).code }, 'invoice pick refused')
      // the page as it stands now: a transfer seen, or the invoice closed, since it was shown
      const now = (await invoiceCommands.getInvoice({ merchantId, invoiceId }))?.invoice ?? invoice
      return render(request, reply, now, refusal, choiceValue(choice))
    }
    // the pages show the pick at once, whether or not the projection has it yet
    await saveInvoiceAfterCommand(invoiceReadModel, picked.invoice, request.log)
    if (picked.replaced !== null) await readYourWrites.saveAfterCommand(picked.replaced, request.log)
    await readYourWrites.saveAfterCommand(picked.payment, request.log)
    const target = new URL(checkoutLinks.urlOf(picked.payment.payment.created.paymentId)).pathname
    return reply.redirect(`${target}?lang=${deps.languageOf(request)}`, 303)
  })
}

/** the invoice's page of a payment of an invoice, while the customer may still pick another coin */
export function anotherCoinPathOf(
  payment: Parameters<typeof isCancelable>[0],
  invoiceLinks: CheckoutLinks | undefined,
): string | null {
  const invoiceId = payment.created.invoiceId ?? null
  if (invoiceId === null || invoiceLinks === undefined || !isCancelable(payment)) return null
  return new URL(invoiceLinks.urlOf(invoiceId)).pathname
}

// The customer's page under /pay/ (docs/api.md, "The customer's page"): GET /pay/{token} renders the
// payment from the read model, GET /pay/{token}/status answers its revision for the page's script,
// POST /pay/{token}/cancel cancels it for the customer, and /pay/assets/ serves the style sheet and
// the script. No merchant credentials: the unguessable token is the customer's access. Every answer
// carries a strict CSP, no-store and no-referrer; an unknown token is an HTML 404 that names nothing.

import {
  type AssetRegistry,
  DomainError,
  isCancelable,
  type OpenPayment,
  withoutHiddenControls,
} from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import type { MerchantStore, PaymentCommands } from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { limitRequestsPerAddress, type RateLimitedAnswers, type RateLimitSettings } from '../rate-limit.js'
import type { ReadYourWrites } from '../routes/read-your-writes.js'
import { CHECKOUT_SCRIPT, CHECKOUT_STYLES } from './checkout-assets.js'
import { dueAmountOf, renderCancelPage, renderCheckoutPage, renderNotFoundPage } from './checkout-page.js'
import { type CheckoutLanguage, checkoutTexts, pickLanguage } from './checkout-texts.js'
import { cspOriginOf } from './csp-origin.js'
import { addCustomerPageHeaders, isSameOriginPost } from './customer-page-headers.js'
import { explorerOf } from './explorers.js'
import { FAVICON_ICO, ICON_PATH, ICON_SVG } from './icons.js'
import { anotherCoinPathOf, type InvoicePageDeps, invoicePageRoutes } from './invoice-page-routes.js'
import type { MerchantLogos } from './merchant-logos.js'
import { paymentRequestOf, qrSvg } from './payment-request.js'

export interface CheckoutSettings {
  /** PUBLIC_URL: where customers reach /pay/ */
  publicUrl: string
  /** CHECKOUT_FRAME_ANCESTORS: origins allowed to frame the page; none when empty */
  frameAncestors: string[]
}

export interface CheckoutRoutesDeps {
  /** the payment as the merchant API reads and writes it: a page right after a create finds it */
  readYourWrites: ReadYourWrites
  commands: PaymentCommands
  merchants: Pick<MerchantStore, 'getMerchant'>
  registry: AssetRegistry
  checkoutLinks: CheckoutLinks
  merchantLogos: Pick<MerchantLogos, 'logoAt' | 'knownLogoAt'>
  settings: CheckoutSettings
  rateLimit: RateLimitSettings
  /** where its answers past the rate limit are counted and logged sampled */
  rateLimitedAnswers: RateLimitedAnswers
  clock: Clock
  /** the invoices' page under /pay/invoice/ (docs/api.md, "The invoice's page"); none when absent */
  invoices?: InvoicePageDeps
}

/** a repeated query parameter (?lang=de&lang=en) arrives as an array: the first one counts */
type TokenRequest = FastifyRequest<{
  Params: { token: string }
  Querystring: Record<string, string | string[] | undefined>
}>

/** the first value of a query parameter, whether given once or repeated */
export function firstQueryValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/**
 * Where the cancel form sends the customer: cancelRedirectUrl when its origin can be written into
 * the page's CSP (form-action, which Chrome applies to the form's redirect too), else the page
 * itself, which says the payment was canceled and links back to the shop.
 */
function cancelTargetOf(cancelRedirectUrl: string | null | undefined, path: string): string {
  return cancelRedirectUrl && cspOriginOf(cancelRedirectUrl) !== null ? cancelRedirectUrl : path
}

export const checkoutRoutes: FastifyPluginAsync<CheckoutRoutesDeps> = async (app, deps) => {
  const { readYourWrites, commands, checkoutLinks, settings, clock } = deps
  const publicOrigin = new URL(settings.publicUrl).origin
  await limitRequestsPerAddress(app, deps.rateLimit, {
    group: 'checkout',
    answers: deps.rateLimitedAnswers,
  })

  // the cancel form's body is not read: the token in the path is what the customer proves; the
  // invoice's pick form sends the asset picked (invoice-page-routes.ts)
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    (_r, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  )
  /** formTargets: where the cancel form may lead (Chrome checks form-action on its redirect too) */
  const { contentSecurityPolicy } = addCustomerPageHeaders(app, settings.frameAncestors)

  app.get('/pay/assets/checkout.css', async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(CHECKOUT_STYLES),
  )
  app.get('/pay/assets/checkout.js', async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .send(CHECKOUT_SCRIPT),
  )

  app.get(ICON_PATH, async (_request, reply) =>
    reply
      .type('image/svg+xml; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(ICON_SVG),
  )
  // browsers ask for it by themselves, on the page's origin
  app.get('/favicon.ico', async (_request, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON_ICO),
  )

  const languageOf = (request: TokenRequest): CheckoutLanguage =>
    pickLanguage(firstQueryValue(request.query.lang), request.headers['accept-language'])

  const notFound = (request: TokenRequest, reply: FastifyReply) => {
    const language = languageOf(request)
    return reply
      .code(404)
      .type('text/html; charset=utf-8')
      .send(renderNotFoundPage(language, checkoutTexts[language]))
  }

  if (deps.invoices) {
    await app.register(invoicePageRoutes, {
      ...deps.invoices,
      readYourWrites,
      checkoutLinks,
      merchants: deps.merchants,
      registry: deps.registry,
      clock,
      languageOf: (request) => languageOf(request as TokenRequest),
      notFound: (request, reply) => notFound(request as TokenRequest, reply),
      publicOrigin,
    })
  }

  /** the payment behind the token, or null: an unknown token and an unknown payment look the same */
  const paymentOf = async (token: string) => {
    const paymentId = checkoutLinks.paymentIdOf(token)
    return paymentId === null ? null : readYourWrites.read(paymentId, null)
  }

  app.get('/pay/:token', async (request: TokenRequest, reply) => {
    const snapshot = await paymentOf(request.params.token)
    if (snapshot === null) return notFound(request, reply)
    const { payment } = snapshot
    const { created } = payment
    const language = languageOf(request)
    const texts = checkoutTexts[language]
    const merchant = await deps.merchants.getMerchant(created.merchantId)
    // refused where they come in; stripped here from what was recorded before (docs/api.md, "Text shown to people")
    const shownName = merchant?.displayName ?? merchant?.name ?? null
    const merchantName = shownName === null ? null : withoutHiddenControls(shownName)
    // never waits for the merchant's server: while the logo is being fetched the page refers to it
    // all the same, and GET /pay/{token}/logo waits for that fetch instead
    const logo = merchant?.logoUrl ? deps.merchantLogos.knownLogoAt(merchant.logoUrl) : null
    const asset = deps.registry.assets.find(
      (candidate) => candidate.network === created.network && candidate.currency === created.currency,
    )
    const dueAmount = dueAmountOf(payment)
    const network = deps.registry.networks.find((candidate) => candidate.network === created.network)
    const walletRequest = asset
      ? paymentRequestOf({
          chain: asset.chain,
          testnet: network?.testnet ?? true,
          paymentId: created.paymentId,
          address: created.address,
          asset,
          amount: dueAmount,
          label: merchantName,
          message: created.description === null ? null : withoutHiddenControls(created.description),
        })
      : { qrText: created.address, walletLink: null }
    const path = `/pay/${request.params.token}`
    // never the merchant's string itself: only an origin a CSP source list can hold (csp-origin.ts)
    const cancelOrigin = created.cancelRedirectUrl ? cspOriginOf(created.cancelRedirectUrl) : null
    const formTargets = cancelOrigin === null ? [] : [cancelOrigin]
    reply.header('content-security-policy', contentSecurityPolicy(formTargets))
    return reply.type('text/html; charset=utf-8').send(
      renderCheckoutPage({
        language,
        texts,
        path,
        payment,
        revision: snapshot.revision,
        merchantName,
        logoPath: logo === null ? null : `${path}/logo`,
        dueAmount,
        qrSvg: await qrSvg(walletRequest.qrText).catch((error: unknown) => {
          // too much for a QR code despite the bounds: the bare address, the wallet link stays
          request.log.warn({ err: error }, "customer's page: QR code of the bare address")
          return qrSvg(created.address)
        }),
        walletLink: walletRequest.walletLink,
        tokenContract: asset?.contract ?? null,
        chain: network?.chain ?? asset?.chain ?? 'TRON',
        explorer: explorerOf(created.network),
        cancelable: isCancelable(payment),
        anotherCoinPath: anotherCoinPathOf(payment, deps.invoices?.invoiceLinks),
        now: clock.now(),
      }),
    )
  })

  // the merchant's logo, fetched by the gateway: the customer's browser asks this origin only
  app.get('/pay/:token/logo', async (request: TokenRequest, reply) => {
    const snapshot = await paymentOf(request.params.token)
    const merchant = snapshot && (await deps.merchants.getMerchant(snapshot.payment.created.merchantId))
    const logo = merchant?.logoUrl ? await deps.merchantLogos.logoAt(merchant.logoUrl) : null
    if (logo === null) return notFound(request, reply)
    return reply.type(logo.contentType).send(logo.bytes)
  })

  app.get('/pay/:token/status', async (request: TokenRequest, reply) => {
    const snapshot = await paymentOf(request.params.token)
    if (snapshot === null) return notFound(request, reply)
    return reply.send({ revision: snapshot.revision, status: snapshot.payment.status })
  })

  // the confirmation step of the customer's cancel: a page, so that no stray tap cancels
  app.get('/pay/:token/cancel', async (request: TokenRequest, reply) => {
    const snapshot = await paymentOf(request.params.token)
    if (snapshot === null) return notFound(request, reply)
    const path = `/pay/${request.params.token}`
    // nothing to confirm any more: the page says what the payment is
    if (!isCancelable(snapshot.payment)) return reply.redirect(path, 303)
    const language = languageOf(request)
    const merchant = await deps.merchants.getMerchant(snapshot.payment.created.merchantId)
    const cancelOrigin = snapshot.payment.created.cancelRedirectUrl
      ? cspOriginOf(snapshot.payment.created.cancelRedirectUrl)
      : null
    reply.header(
      'content-security-policy',
      contentSecurityPolicy(cancelOrigin === null ? [] : [cancelOrigin]),
    )
    return reply.type('text/html; charset=utf-8').send(
      renderCancelPage({
        language,
        texts: checkoutTexts[language],
        path,
        payment: snapshot.payment,
        merchantName: merchant?.displayName ?? merchant?.name ?? null,
      }),
    )
  })

  app.post('/pay/:token/cancel', async (request: TokenRequest, reply) => {
    const snapshot = await paymentOf(request.params.token)
    if (snapshot === null) return notFound(request, reply)
    // a form of this page only (customer-page-headers.ts)
    if (!isSameOriginPost(request, publicOrigin)) {
      return reply.code(403).type('text/plain; charset=utf-8').send('forbidden')
    }
    const payment: OpenPayment = snapshot.payment
    const { created } = payment
    const path = `/pay/${request.params.token}`
    const cancelTarget = cancelTargetOf(created.cancelRedirectUrl, path)
    if (payment.status === 'canceled') return reply.redirect(cancelTarget, 303)
    // what the merchant could not cancel either (paid, a transfer seen...): the page says what it is
    if (!isCancelable(payment)) return reply.redirect(path, 303)
    const canceled = await commands
      .cancelPayment({ merchantId: created.merchantId, paymentId: created.paymentId, canceledBy: 'customer' })
      .catch((error: unknown) => {
        // a transfer seen since the read model was written: the page will say so
        if (error instanceof DomainError && error.code === 'PAYMENT_NOT_CANCELABLE') return null
        throw error
      })
    if (canceled === null) return reply.redirect(path, 303)
    // the page shows the cancellation at once, whether or not the projection has it yet
    await readYourWrites.saveAfterCommand(canceled, request.log)
    return reply.redirect(cancelTarget, 303)
  })
}

// The refund claim page under /refund/ (docs/api.md, "The refund claim page"), on the merchant port
// as the customer's page is: GET /refund/{token} shows the refund, POST /refund/{token}/address
// checks the address the customer typed against the network's format and shows it back to confirm,
// POST /refund/{token}/confirm gives it (once: it cannot change after). No merchant credentials: the
// unguessable token is the customer's access. Forms are accepted from the page's own origin only
// (customer-page-headers.ts); every answer carries the customer pages' headers; an unknown token is
// the checkout's HTML 404, which names nothing.

import {
  type AssetRegistry,
  type Chain,
  DomainError,
  formatUnits,
  type Outgoing,
  recipientAddressProblem,
  withoutHiddenControls,
} from '@chainpay/domain'
import type { MerchantStore, OutgoingCommands } from '@chainpay/ports'
import type { ClaimLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { renderNotFoundPage } from '../checkout/checkout-page.js'
import { type CheckoutSettings, firstQueryValue } from '../checkout/checkout-routes.js'
import { type CheckoutLanguage, checkoutTexts, pickLanguage } from '../checkout/checkout-texts.js'
import { addCustomerPageHeaders, isSameOriginPost } from '../checkout/customer-page-headers.js'
import { explorerOf } from '../checkout/explorers.js'
import type { MerchantLogos } from '../checkout/merchant-logos.js'
import { limitRequestsPerAddress, type RateLimitedAnswers, type RateLimitSettings } from '../rate-limit.js'
import type { OutgoingReading } from '../routes/outgoing-reading.js'
import {
  ADDRESS_MAX_LENGTH,
  type AddressProblem,
  type RefundClaimPageInput,
  renderRefundClaimPage,
  renderRefundConfirmPage,
} from './refund-claim-page.js'
import { refundClaimTexts } from './refund-claim-texts.js'

export interface RefundClaimRoutesDeps {
  /** payment-command's refunds: read by id from the source of truth, and the give-address command */
  outgoing: Pick<OutgoingCommands, 'getOutgoing' | 'giveRefundAddress'>
  /** the refund id behind a claim token */
  claimLinks: Pick<ClaimLinks, 'refundIdOf'>
  /** the refunds and payouts read model's write-through (routes/outgoing-reading.ts) */
  outgoingReading: Pick<OutgoingReading, 'saveAfterCommand'>
  merchants: Pick<MerchantStore, 'getMerchant'>
  registry: AssetRegistry
  merchantLogos: Pick<MerchantLogos, 'logoAt' | 'knownLogoAt'>
  /** the customer's page's settings: PUBLIC_URL and the origins allowed to frame the pages */
  settings: CheckoutSettings
  rateLimit: RateLimitSettings
  rateLimitedAnswers: RateLimitedAnswers
}

type TokenRequest = FastifyRequest<{
  Params: { token: string }
  Querystring: Record<string, string | string[] | undefined>
  /** a form's fields (formFields), or whatever another content type's parser made of the body */
  Body: unknown
}>

/** a field of a posted form; undefined when absent or not text (a JSON body, say) */
function fieldOf(body: unknown, name: string): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const value = (body as Record<string, unknown>)[name]
  return typeof value === 'string' ? value : undefined
}

/** a form's fields: the first of each name, as the browser sent them */
function formFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(body)) fields[name] ??= value
  return fields
}

export const refundClaimRoutes: FastifyPluginAsync<RefundClaimRoutesDeps> = async (app, deps) => {
  const { outgoing, claimLinks, settings } = deps
  const publicOrigin = new URL(settings.publicUrl).origin
  await limitRequestsPerAddress(app, deps.rateLimit, {
    group: 'refund_claim',
    answers: deps.rateLimitedAnswers,
  })
  // the forms' fields, an address and a flag: a few hundred bytes at most
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 2048 },
    (_request, body, done) => done(null, formFields(String(body))),
  )
  addCustomerPageHeaders(app, settings.frameAncestors)

  const languageOf = (request: TokenRequest): CheckoutLanguage =>
    pickLanguage(firstQueryValue(request.query.lang), request.headers['accept-language'])
  const html = (reply: FastifyReply, code: number, page: string) =>
    reply.code(code).type('text/html; charset=utf-8').send(page)
  const notFound = (request: TokenRequest, reply: FastifyReply) => {
    const language = languageOf(request)
    return html(reply, 404, renderNotFoundPage(language, checkoutTexts[language]))
  }
  const pathOf = (request: TokenRequest) => `/refund/${request.params.token}`
  const chainOf = (network: string): Chain =>
    deps.registry.networks.find((candidate) => candidate.network === network)?.chain ?? 'TRON'

  /**
   * the refund behind the token, from the source of truth; null for a token no configured key made,
   * and for a refund the merchant gave the address of (it has no claim page): they look the same
   */
  const refundOf = async (token: string): Promise<Outgoing | null> => {
    const refundId = claimLinks.refundIdOf(token)
    if (refundId === null) return null
    const snapshot = await outgoing.getOutgoing({ kind: 'refund', id: refundId })
    return snapshot?.item.claimable ? snapshot.item : null
  }
  /** back to the page, in the language the customer reads */
  const backToPage = (request: TokenRequest, reply: FastifyReply) =>
    reply.redirect(`${pathOf(request)}?lang=${languageOf(request)}`, 303)

  /** what every page of the refund is rendered from */
  const pageInput = async (request: TokenRequest, refund: Outgoing): Promise<RefundClaimPageInput> => {
    const language = languageOf(request)
    const merchant = await deps.merchants.getMerchant(refund.merchantId)
    // refused where they come in; stripped here from what was recorded before (docs/api.md, "Text shown to people")
    const shownName = merchant?.displayName ?? merchant?.name ?? null
    const logo = merchant?.logoUrl ? deps.merchantLogos.knownLogoAt(merchant.logoUrl) : null
    const asset = deps.registry.assets.find(
      (candidate) => candidate.network === refund.network && candidate.currency === refund.currency,
    )
    return {
      language,
      texts: refundClaimTexts[language],
      path: pathOf(request),
      refund: {
        refundId: refund.id,
        status: refund.status,
        amount: formatUnits(refund.amountUnits, refund.decimals),
        currency: refund.currency,
        network: refund.network,
        chain: chainOf(refund.network),
        tokenStandard: asset?.tokenStandard ?? 'NATIVE',
        tokenContract: asset?.contract ?? null,
        reason: refund.reason,
        address: refund.address,
        txHash: refund.txHash,
      },
      merchantName: shownName === null ? null : withoutHiddenControls(shownName),
      logoPath: logo === null ? null : `${pathOf(request)}/logo`,
      explorer: explorerOf(refund.network),
    }
  }

  /** the address as typed, without the blanks a copy brings along; what is wrong with it, if anything */
  const checked = (refund: Outgoing, typed: string | undefined) => {
    const value = (typed ?? '').trim()
    const problem: AddressProblem | null =
      value === ''
        ? 'missing'
        : value.length > ADDRESS_MAX_LENGTH ||
            recipientAddressProblem(chainOf(refund.network), value) !== null
          ? 'malformed'
          : null
    return { value: value.slice(0, ADDRESS_MAX_LENGTH), problem }
  }

  app.get('/refund/:token', async (request: TokenRequest, reply) => {
    const refund = await refundOf(request.params.token)
    if (refund === null) return notFound(request, reply)
    return html(reply, 200, renderRefundClaimPage(await pageInput(request, refund)))
  })

  // the merchant's logo, fetched by the gateway: the customer's browser asks this origin only
  app.get('/refund/:token/logo', async (request: TokenRequest, reply) => {
    const refund = await refundOf(request.params.token)
    const merchant = refund && (await deps.merchants.getMerchant(refund.merchantId))
    const logo = merchant?.logoUrl ? await deps.merchantLogos.logoAt(merchant.logoUrl) : null
    if (logo === null) return notFound(request, reply)
    return reply.type(logo.contentType).send(logo.bytes)
  })

  // the address typed: refused with the reason beside the field, or shown back to confirm
  app.post('/refund/:token/address', async (request: TokenRequest, reply) => {
    if (!isSameOriginPost(request, publicOrigin)) return forbidden(reply)
    const refund = await refundOf(request.params.token)
    if (refund === null) return notFound(request, reply)
    // given already, or no longer to be given: the page says what the refund is
    if (refund.status !== 'awaiting_address') return backToPage(request, reply)
    const form = checked(refund, fieldOf(request.body, 'address'))
    const input = await pageInput(request, refund)
    // "change": back from the confirmation step to the field, with the address in it
    if (fieldOf(request.body, 'change') !== undefined) {
      return html(reply, 200, renderRefundClaimPage({ ...input, form: { ...form, problem: null } }))
    }
    if (form.problem !== null) return html(reply, 400, renderRefundClaimPage({ ...input, form }))
    return html(reply, 200, renderRefundConfirmPage({ ...input, address: form.value }))
  })

  // the address confirmed: given, once
  app.post('/refund/:token/confirm', async (request: TokenRequest, reply) => {
    if (!isSameOriginPost(request, publicOrigin)) return forbidden(reply)
    const refund = await refundOf(request.params.token)
    if (refund === null) return notFound(request, reply)
    const form = checked(refund, fieldOf(request.body, 'address'))
    // given already: the same address again (a second tap, a reload) is done; another cannot be
    const settled = async (now: Outgoing) =>
      now.address === null || now.address === form.value
        ? backToPage(request, reply)
        : html(reply, 409, renderRefundClaimPage({ ...(await pageInput(request, now)), addressFixed: true }))
    if (refund.status !== 'awaiting_address') return settled(refund)
    if (form.problem !== null) {
      return html(reply, 400, renderRefundClaimPage({ ...(await pageInput(request, refund)), form }))
    }
    try {
      const given = await outgoing.giveRefundAddress({ refundId: refund.id, address: form.value })
      await deps.outgoingReading.saveAfterCommand(given, request.log)
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      // given or canceled meanwhile (another tab, the merchant), or refused by the decider
      const now = (await refundOf(request.params.token)) ?? refund
      if (now.status !== 'awaiting_address') return settled(now)
      if (error.code !== 'VALIDATION_ERROR') throw error
      const input = await pageInput(request, now)
      return html(reply, 400, renderRefundClaimPage({ ...input, form: { ...form, problem: 'malformed' } }))
    }
    return backToPage(request, reply)
  })
}

function forbidden(reply: FastifyReply) {
  return reply.code(403).type('text/plain; charset=utf-8').send('forbidden')
}

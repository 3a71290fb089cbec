// The refund claim page as HTML (docs/api.md, "The refund claim page"): rendered on the server from
// the refund, complete without JavaScript (it has none), in the checkout's document, style sheet and
// languages. Awaiting an address it asks for one, then shows it back to confirm; after that it says
// what became of the refund. Every text comes from refund-claim-texts.ts.

import { type Chain, type TokenStandard, withoutHiddenControls } from '@chainpay/domain'
import { checkoutDocument, colourOf, escapeHtml, initialsOf } from '../checkout/checkout-page.js'
import type { CheckoutLanguage } from '../checkout/checkout-texts.js'
import type { Explorer } from '../checkout/explorers.js'
import type { RefundClaimTexts } from './refund-claim-texts.js'

export type RefundClaimStatus =
  | 'awaiting_address'
  | 'ready'
  | 'sending'
  | 'sent'
  | 'completed'
  | 'failed'
  | 'canceled'

/** what the page shows of a refund: the customer's part of it, amounts in whole units */
export interface RefundClaimView {
  refundId: string
  status: RefundClaimStatus
  /** whole units, as the API writes amounts */
  amount: string
  currency: string
  network: string
  chain: Chain
  tokenStandard: TokenStandard
  /** the token's contract (TRON) or mint (Solana); null for the chain's own coin */
  tokenContract: string | null
  reason: string | null
  address: string | null
  txHash: string | null
}

export interface RefundClaimPageInput {
  language: CheckoutLanguage
  texts: RefundClaimTexts
  /** the page's own path, /refund/{token} */
  path: string
  refund: RefundClaimView
  merchantName: string | null
  /** /refund/{token}/logo when the merchant has a logo the gateway serves */
  logoPath: string | null
  /** where the transaction hash links; null: shown without a link */
  explorer: Explorer | null
}

/** what is wrong with the address the customer gave: nothing, nothing given, not of the network's format */
export type AddressProblem = 'missing' | 'malformed'

/** the form as the customer last sent it */
export interface AddressForm {
  value: string
  problem: AddressProblem | null
}

/** the longest address the form takes (Solana's are 32 to 44 characters, TRON's 34) */
export const ADDRESS_MAX_LENGTH = 128

const row = (term: string, definition: string) =>
  `<div><dt>${escapeHtml(term)}</dt><dd>${definition}</dd></div>`

function header(input: RefundClaimPageInput): { heading: string; html: string } {
  const { texts: t, merchantName } = input
  const heading = merchantName ? t.refundFrom(merchantName) : t.title
  const logo = input.logoPath
    ? `<img class="logo" src="${escapeHtml(input.logoPath)}" alt="" width="48" height="48">`
    : merchantName && initialsOf(merchantName)
      ? `<span class="logo initials initials-${colourOf(merchantName)}" aria-hidden="true">${escapeHtml(initialsOf(merchantName))}</span>`
      : ''
  return { heading, html: `<header>\n    ${logo}\n    <h1>${escapeHtml(heading)}</h1>\n  </header>` }
}

/** the amount, the network and its token standard spelled out, the token, the reason */
function summary(input: RefundClaimPageInput, withAddress: boolean): string {
  const { texts: t, refund } = input
  const contractLabel =
    refund.tokenContract === null
      ? null
      : refund.chain === 'TRON'
        ? t.tokenContract(refund.currency)
        : t.tokenMint(refund.currency)
  return `<dl class="summary">
    ${row(t.amount, `<span class="mono amount" id="amount">${escapeHtml(refund.amount)}</span> <span class="amount">${escapeHtml(refund.currency)}</span>`)}
    ${row(t.network, `${escapeHtml(refund.network)} · ${escapeHtml(refund.tokenStandard)}`)}
    ${contractLabel === null || refund.tokenContract === null ? '' : row(contractLabel, `<span class="mono" id="token-contract">${escapeHtml(refund.tokenContract)}</span>`)}
    ${refund.reason ? row(t.reason, `<span id="reason">${escapeHtml(withoutHiddenControls(refund.reason))}</span>`) : ''}
    ${withAddress && refund.address ? row(t.address, `<span class="mono address" id="given-address">${escapeHtml(refund.address)}</span>`) : ''}
  </dl>`
}

function reference(input: RefundClaimPageInput): string {
  const { texts: t } = input
  return `<p class="reference">${escapeHtml(t.reference)}: <span class="mono">${escapeHtml(input.refund.refundId.slice(0, 8))}</span> <span class="hint">${escapeHtml(t.referenceHint)}</span></p>`
}

function addressForm(input: RefundClaimPageInput, form: AddressForm): string {
  const { texts: t, refund, path } = input
  const problem =
    form.problem === 'missing'
      ? t.addressMissing
      : form.problem === 'malformed'
        ? t.addressMalformed(refund.chain, refund.network)
        : null
  // the hint, the error and the exchange warning are read with the field; after a refusal the field
  // has the focus, so that a screen reader says what is wrong at once
  const describedBy = ['address-hint', ...(problem ? ['address-error'] : []), 'exchange-warning'].join(' ')
  return `<form method="post" action="${escapeHtml(path)}/address?lang=${input.language}" novalidate>
    <label for="address">${escapeHtml(t.addressLabel(refund.currency, refund.network, refund.tokenStandard))}</label>
    <p class="hint" id="address-hint">${escapeHtml(t.addressHint(refund.chain))}</p>
    ${problem ? `<p class="error" id="address-error"><span class="visually-hidden">${escapeHtml(t.errorPrefix)}: </span>${escapeHtml(problem)}</p>` : ''}
    <input type="text" id="address" name="address" value="${escapeHtml(form.value)}" required maxlength="${ADDRESS_MAX_LENGTH}" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="${describedBy}"${problem ? ' aria-invalid="true" autofocus' : ''}>
    <p class="warning" id="exchange-warning">${escapeHtml(t.exchangeWarning)}</p>
    <p class="warning" id="network-warning">${escapeHtml(t.onlyThisNetwork(refund.network, refund.tokenStandard))}</p>
    <button type="submit">${escapeHtml(t.continue)}</button>
  </form>`
}

function transaction(input: RefundClaimPageInput): string {
  const { texts: t, refund, explorer } = input
  if (refund.txHash === null) return ''
  const link = explorer
    ? ` <a href="${escapeHtml(explorer.transactionUrl(refund.txHash))}" rel="noopener noreferrer">${escapeHtml(t.viewOn(explorer.name))}</a>`
    : ''
  return `<section class="receipt" aria-labelledby="transaction-heading">
    <h2 id="transaction-heading">${escapeHtml(t.transaction)}</h2>
    <ul>
      <li><span class="mono tx-hash">${escapeHtml(refund.txHash)}</span>${link}</li>
    </ul>
  </section>`
}

/** what the status line says, and the class that colours it; ready and sending are one to the customer */
function statusOf(input: RefundClaimPageInput): { text: string; help: string | null; tone: string } {
  const { texts: t, refund, merchantName } = input
  switch (refund.status) {
    case 'awaiting_address':
      return { text: t.askAddress(refund.currency), help: null, tone: 'awaiting' }
    case 'ready':
    case 'sending':
      return { text: t.ready, help: t.readyHelp, tone: 'ready' }
    case 'sent':
      return { text: t.sent, help: t.sentHelp, tone: 'sent' }
    case 'completed':
      return { text: t.completed, help: null, tone: 'completed' }
    case 'failed':
      return { text: t.failed, help: t.failedHelp(merchantName), tone: 'failed' }
    case 'canceled':
      return { text: t.canceled, help: t.canceledHelp(merchantName), tone: 'canceled' }
    default: {
      const never: never = refund.status
      throw new Error(`unknown refund status ${String(never)}`)
    }
  }
}

/**
 * The page of the refund as it stands: the address form while it awaits one (`form`: what the
 * customer sent last, and what is wrong with it), else what became of the refund. `addressFixed`:
 * the customer tried to give an address when one was given already.
 */
export function renderRefundClaimPage(
  input: RefundClaimPageInput & { form?: AddressForm; addressFixed?: boolean },
): string {
  const { texts: t, refund } = input
  const { heading, html: top } = header(input)
  const status = statusOf(input)
  const awaiting = refund.status === 'awaiting_address'
  const problem = awaiting && input.form?.problem ? input.form.problem : null
  const title = problem ? `${t.errorPrefix}: ${heading}` : heading
  return checkoutDocument(
    input.language,
    title,
    '',
    `<main id="refund" data-state="${refund.status}">
  ${top}
  ${input.addressFixed ? `<p class="error" id="address-fixed" role="alert">${escapeHtml(t.addressFixed)}</p>` : ''}
  <p id="status" class="status status-${status.tone}" role="status">${escapeHtml(status.text)}</p>
  ${status.help ? `<p class="help" id="help">${escapeHtml(status.help)}</p>` : ''}
  ${summary(input, !awaiting)}
  ${awaiting ? addressForm(input, input.form ?? { value: '', problem: null }) : ''}
  ${transaction(input)}
  ${reference(input)}
</main>`,
  )
}

/**
 * The confirmation step (POST /refund/{token}/address with an address of the network's format): the
 * address shown back, with the warning that it cannot change; one form gives it, the other goes back
 * to the field with it filled in.
 */
export function renderRefundConfirmPage(input: RefundClaimPageInput & { address: string }): string {
  const { texts: t, refund, path } = input
  const { html: top } = header(input)
  const address = escapeHtml(input.address)
  return checkoutDocument(
    input.language,
    t.confirmTitle,
    '',
    `<main id="refund" data-state="confirm">
  ${top}
  <h2 class="step">${escapeHtml(t.confirmTitle)}</h2>
  ${summary(input, false)}
  <p id="confirm-intro">${escapeHtml(t.confirmIntro(refund.amount, refund.currency))}</p>
  <p class="mono address confirm-address" id="confirm-address">${address}</p>
  <p class="warning" id="confirm-warning">${escapeHtml(t.confirmWarning)}</p>
  <form method="post" action="${escapeHtml(path)}/confirm?lang=${input.language}">
    <input type="hidden" name="address" value="${address}">
    <button type="submit" aria-describedby="confirm-address confirm-warning">${escapeHtml(t.confirm)}</button>
  </form>
  <form method="post" action="${escapeHtml(path)}/address?lang=${input.language}">
    <input type="hidden" name="address" value="${address}">
    <input type="hidden" name="change" value="1">
    <button type="submit" class="secondary">${escapeHtml(t.change)}</button>
  </form>
  ${reference(input)}
</main>`,
  )
}

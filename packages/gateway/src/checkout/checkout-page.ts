// The customer's page as HTML (docs/api.md, "The customer's page"): rendered on the server from the
// read model, complete without JavaScript. /pay/assets/checkout.js only adds the copy buttons, the
// countdown, live updates and the redirect after payment; every text comes from checkout-texts.ts.

import {
  activeTransfers,
  formatUnits,
  type OpenPayment,
  totalUnits,
  withoutHiddenControls,
} from '@chainpay/domain'
import type { CheckoutLanguage, CheckoutTexts } from './checkout-texts.js'
import type { Explorer } from './explorers.js'
import { ICON_PATH } from './icons.js'
import { invoiceTexts } from './invoice-texts.js'
import type { PaymentRequest } from './payment-request.js'

/** what the customer is shown: one of the statuses, told apart where the customer acts differently */
export type CheckoutState =
  | 'awaiting'
  | 'seen'
  | 'underpaid'
  | 'paid'
  | 'overpaid'
  | 'expired'
  | 'canceled'
  | 'failed'

export interface CheckoutPageInput {
  language: CheckoutLanguage
  texts: CheckoutTexts
  /** the page's own path, /pay/{token} */
  path: string
  payment: OpenPayment
  /** the read model's revision of the payment: the script reloads what it shows when it changes */
  revision: number
  merchantName: string | null
  /** /pay/{token}/logo when the merchant has a logo the gateway serves */
  logoPath: string | null
  /** the amount still due, in whole units */
  dueAmount: string
  qrSvg: string | null
  walletLink: PaymentRequest['walletLink']
  /** the token's contract (TRON) or mint (Solana); null for the chain's own coin */
  tokenContract: string | null
  chain: 'TRON' | 'SOLANA'
  /** where the transaction hashes link; null: shown without a link */
  explorer: Explorer | null
  cancelable: boolean
  /** a payment of an invoice, before any transfer: the invoice's page, to pick another coin */
  anotherCoinPath?: string | null
  now: Date
}

/** seconds before the paid page sends the customer back to the shop */
export const REDIRECT_SECONDS = 5
/** how often the page reloads itself without JavaScript, while something can still change */
export const NO_SCRIPT_REFRESH_SECONDS = 10

export function checkoutStateOf(payment: OpenPayment): CheckoutState {
  switch (payment.status) {
    case 'pending':
      return activeTransfers(payment.transfers).length > 0 ? 'seen' : 'awaiting'
    case 'confirmed':
      return 'paid'
    case 'underpaid':
    case 'overpaid':
    case 'expired':
    case 'canceled':
    case 'failed':
      return payment.status
    default: {
      const never: never = payment.status
      throw new Error(`unknown payment status ${String(never)}`)
    }
  }
}

/** the amount still due, in whole units: the whole amount until something is counted */
export function dueAmountOf(payment: OpenPayment): string {
  const due = BigInt(payment.created.amountUnits) - totalUnits(activeTransfers(payment.transfers))
  return formatUnits(due > 0n ? due : 0n, payment.created.decimals)
}

/** the merchant's initials, for the badge shown where the merchant has no logo: up to two letters */
export function initialsOf(name: string): string {
  const words = name.split(/[\s\-_.,&+/]+/u).filter((word) => /[\p{L}\p{N}]/u.test(word))
  const initial = (word: string) => Array.from(word).find((c) => /[\p{L}\p{N}]/u.test(c)) ?? ''
  return words.slice(0, 2).map(initial).join('').toLocaleUpperCase()
}

/** INITIALS_COLOURS badge colours (checkout-assets.ts), one per name, white text on each at >= 4.5:1 */
export const INITIALS_COLOURS = 6

export function colourOf(name: string): number {
  let hash = 0
  for (const character of name) hash = (hash * 31 + (character.codePointAt(0) ?? 0)) >>> 0
  return hash % INITIALS_COLOURS
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

const FINAL: readonly CheckoutState[] = ['paid', 'overpaid', 'expired', 'canceled', 'failed']

export function renderCheckoutPage(input: CheckoutPageInput): string {
  const { texts: t, payment, path } = input
  const { created } = payment
  const state = checkoutStateOf(input.payment)
  const final = FINAL.includes(state)
  const paid = state === 'paid' || state === 'overpaid'
  const redirect = paid ? created.successRedirectUrl : final ? created.cancelRedirectUrl : null
  // only a payment paid exactly goes back to the shop by itself: an overpaid one stays, so that the
  // customer reads what to do about the difference and keeps the transaction hash
  const autoRedirect = state === 'paid' ? redirect : null
  const secondsLeft = Math.max(0, Math.floor((Date.parse(created.expiresAt) - input.now.getTime()) / 1000))
  // past expiresAt nothing more counts (docs/api.md, "Lifecycle"), even before the status says so
  const payable = (state === 'awaiting' || state === 'underpaid') && secondsLeft > 0
  const heading = input.merchantName ? t.payTo(input.merchantName) : t.title
  const shop = input.merchantName ?? t.theShop
  const units = (value: bigint | string) => formatUnits(value, created.decimals)
  const noScript = final
    ? autoRedirect
      ? `<meta http-equiv="refresh" content="${REDIRECT_SECONDS};url=${escapeHtml(autoRedirect)}">`
      : ''
    : `<meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}">`
  const required = created.requiredConfirmations
  const confirmations = Math.min(
    required,
    ...activeTransfers(payment.transfers).map((transfer) => transfer.confirmations),
  )
  const receivedUnits = totalUnits(activeTransfers(payment.transfers))
  const lateUnits = payment.lateTransfers.reduce((total, late) => total + BigInt(late.amountUnits), 0n)
  const lateFunds = lateUnits > 0n && (state === 'expired' || state === 'canceled')
  const statusText = {
    awaiting: t.awaiting,
    seen: t.seen(Number.isFinite(confirmations) ? confirmations : 0, required),
    underpaid: secondsLeft > 0 ? t.underpaid(input.dueAmount, created.currency) : t.underpaidClosed,
    paid: t.paid,
    overpaid: t.overpaidBy(
      units(receivedUnits),
      // the texts of every state are made, whichever is shown: never a negative amount
      units(receivedUnits > BigInt(created.amountUnits) ? receivedUnits - BigInt(created.amountUnits) : 0n),
      created.currency,
    ),
    expired: lateFunds ? t.expiredLateFunds(units(lateUnits), created.currency) : t.expired,
    canceled: lateFunds ? t.canceledLateFunds(units(lateUnits), created.currency) : t.canceled,
    failed: t.failed,
  }[state]
  // what the customer does next, where the status alone does not say it
  const help = lateFunds ? t.lateFundsHelp(shop) : state === 'overpaid' ? t.overpaidHelp(shop) : null
  const amountShown = state === 'underpaid' ? input.dueAmount : units(created.amountUnits)
  const standard = created.tokenStandard

  const copyButton = (value: string, label: string) =>
    `<button type="button" class="copy" data-copy="${escapeHtml(value)}" aria-label="${escapeHtml(`${t.copy}: ${label}`)}" hidden>${escapeHtml(t.copy)}</button>`
  const row = (term: string, definition: string) =>
    `<div><dt>${escapeHtml(term)}</dt><dd>${definition}</dd></div>`
  const networkRow = row(t.network, `${escapeHtml(created.network)} · ${escapeHtml(standard)}`)
  const contractLabel =
    input.tokenContract === null
      ? null
      : input.chain === 'TRON'
        ? t.tokenContract(created.currency)
        : t.tokenMint(created.currency)
  const contractRow =
    contractLabel === null || input.tokenContract === null
      ? ''
      : row(
          contractLabel,
          `<span class="mono" id="token-contract">${escapeHtml(input.tokenContract)}</span> ${copyButton(input.tokenContract, contractLabel)}<span class="hint">${escapeHtml(t.checkToken)}</span>`,
        )
  const walletLink = input.walletLink
    ? `<p><a class="button" href="${escapeHtml(input.walletLink.url)}">${escapeHtml(input.walletLink.app === 'trust-wallet' ? t.openTrustWallet : t.openWallet)}</a></p>`
    : ''
  // TRON's QR code is the bare address (no TRON payment URI is standard): the amount and the token
  // must then be chosen in the wallet, which the note beside the code says
  const qrNote =
    input.chain === 'TRON'
      ? t.qrAddressOnly(amountShown, created.currency, standard)
      : t.sendExactly(amountShown, created.currency, standard)

  // a payment priced in fiat shows its price beside the amount, with the locked rate
  const priceRow = fiatPriceRow(input.language, t, created)

  // at 360 x 740 the amount, the network and its warning come first, above the QR code
  const details = payable
    ? `
    <dl class="summary">
      ${row(t.amount, `<span class="mono amount" id="amount">${escapeHtml(amountShown)}</span> <span class="amount">${escapeHtml(created.currency)}</span> ${copyButton(amountShown, t.amount)}`)}
      ${priceRow}
      ${networkRow}
    </dl>
    <p class="warning" id="network-warning">${escapeHtml(t.onlyThisNetwork(created.network, standard))}</p>
    <div class="qr" role="img" aria-label="${escapeHtml(t.qrLabel)}">${input.qrSvg ?? ''}</div>
    <p class="qr-note" id="qr-note">${escapeHtml(qrNote)}</p>
    ${walletLink}
    <dl>
      ${row(t.address, `<span class="mono address" id="address">${escapeHtml(created.address)}</span> ${copyButton(created.address, t.address)}`)}
      ${contractRow}
      ${row(t.timeLeft, `<span id="time-left" data-seconds="${secondsLeft}">${escapeHtml(t.minutes(Math.ceil(secondsLeft / 60)))}</span>`)}
    </dl>`
    : `
    <dl>
      ${row(t.amount, `<span class="mono">${escapeHtml(units(created.amountUnits))}</span> ${escapeHtml(created.currency)}`)}
      ${priceRow}
      ${networkRow}
      ${receivedUnits > 0n && state !== 'seen' && state !== 'paid' ? row(t.received, `<span class="mono">${escapeHtml(units(receivedUnits))}</span> ${escapeHtml(created.currency)}`) : ''}
      ${state === 'seen' ? row(t.address, `<span class="mono address">${escapeHtml(created.address)}</span>`) : ''}
    </dl>`

  // every transaction hash the payment knows, with its explorer link: the customer's receipt
  // (a transfer in doubt stays, marked: on a failed payment it is what the customer asks about)
  const transactions = [
    ...payment.transfers.map((transfer) => ({
      ...transfer,
      note: transfer.withdrawn ? t.notOnChain : null,
    })),
    ...payment.lateTransfers.map((transfer) => ({ ...transfer, note: t.arrivedLate })),
  ]
  const receipt =
    transactions.length === 0 || state === 'awaiting'
      ? ''
      : `
  <section class="receipt" aria-labelledby="transactions-heading">
    <h2 id="transactions-heading">${escapeHtml(t.transactions)}</h2>
    <p class="hint">${escapeHtml(t.receiptHint)}</p>
    <ul>
      ${transactions
        .map(
          (transfer) =>
            `<li><span class="mono tx-hash">${escapeHtml(transfer.txHash)}</span> <span>${escapeHtml(units(transfer.amountUnits))} ${escapeHtml(created.currency)}${transfer.note ? ` (${escapeHtml(transfer.note)})` : ''}</span>${input.explorer ? ` <a href="${escapeHtml(input.explorer.transactionUrl(transfer.txHash))}" rel="noopener noreferrer">${escapeHtml(t.viewOn(input.explorer.name))}</a>` : ''}</li>`,
        )
        .join('\n      ')}
    </ul>
  </section>`

  const redirectBlock = redirect
    ? `<p class="actions">${autoRedirect ? `<span id="redirect-note">${escapeHtml(t.redirecting)}</span> ` : ''}<a class="button" id="back" href="${escapeHtml(redirect)}">${escapeHtml(t.backToShop)}</a>${autoRedirect ? ` <button type="button" id="stay" hidden>${escapeHtml(t.stayHere)}</button>` : ''}</p>`
    : ''
  // a link to a confirmation step, at the foot of the page, far from the copy buttons
  const cancelLink = input.cancelable
    ? `<p class="cancel"><a id="cancel" href="${escapeHtml(path)}/cancel?lang=${input.language}">${escapeHtml(t.cancel)}</a></p>`
    : ''
  const anotherCoin = input.anotherCoinPath
    ? `<p class="another-coin"><a class="button secondary" id="another-coin" href="${escapeHtml(input.anotherCoinPath)}?lang=${input.language}">${escapeHtml(invoiceTexts[input.language].payWithAnother)}</a></p>`
    : ''
  const logo = input.logoPath
    ? `<img class="logo" src="${escapeHtml(input.logoPath)}" alt="" width="48" height="48">`
    : input.merchantName && initialsOf(input.merchantName)
      ? `<span class="logo initials initials-${colourOf(input.merchantName)}" aria-hidden="true">${escapeHtml(initialsOf(input.merchantName))}</span>`
      : ''

  const scripts = `<noscript>${noScript}</noscript>
<script src="/pay/assets/checkout.js" defer></script>
`
  return checkoutDocument(
    input.language,
    heading,
    scripts,
    `<main id="payment" data-state="${state}" data-status-url="${escapeHtml(path)}/status" data-revision="${input.revision}"${autoRedirect ? ` data-redirect="${escapeHtml(autoRedirect)}" data-redirect-seconds="${REDIRECT_SECONDS}"` : ''} data-copied="${escapeHtml(t.copied)}">
  <header>
    ${logo}
    <h1>${escapeHtml(heading)}</h1>
    ${created.description ? `<p class="description">${escapeHtml(withoutHiddenControls(created.description))}</p>` : ''}
  </header>
  <p id="status" class="status status-${state}" role="status">${escapeHtml(statusText)}</p>
  ${help ? `<p class="help" id="help">${escapeHtml(help)}</p>` : ''}
  ${details}
  ${receipt}
  ${redirectBlock}
  <p class="reference">${escapeHtml(t.reference)}: <span class="mono">${escapeHtml(created.paymentId.slice(0, 8))}</span></p>
  ${anotherCoin}
  ${cancelLink}
  <p id="announce" class="visually-hidden" aria-live="polite"></p>
</main>`,
  )
}

/**
 * The confirmation step of the customer's cancel (GET /pay/{token}/cancel): a page of its own, so
 * that it works without JavaScript and under the CSP, and a stray tap cancels nothing.
 */
export function renderCancelPage(input: {
  language: CheckoutLanguage
  texts: CheckoutTexts
  path: string
  payment: OpenPayment
  merchantName: string | null
}): string {
  const { texts: t, payment, path } = input
  const { created } = payment
  return checkoutDocument(
    input.language,
    t.cancelQuestion,
    '',
    `<main>
  <h1>${escapeHtml(t.cancelQuestion)}</h1>
  <p>${escapeHtml(input.merchantName ? t.payTo(input.merchantName) : t.title)}</p>
  ${created.description ? `<p class="description">${escapeHtml(withoutHiddenControls(created.description))}</p>` : ''}
  <dl>
    <div><dt>${escapeHtml(t.amount)}</dt><dd><span class="mono">${escapeHtml(formatUnits(created.amountUnits, created.decimals))}</span> ${escapeHtml(created.currency)}</dd></div>
    <div><dt>${escapeHtml(t.network)}</dt><dd>${escapeHtml(created.network)} · ${escapeHtml(created.tokenStandard)}</dd></div>
  </dl>
  <p class="warning">${escapeHtml(t.cancelWarning)}</p>
  <form method="post" action="${escapeHtml(path)}/cancel"><button type="submit" class="danger">${escapeHtml(t.cancelConfirm)}</button></form>
  <p><a class="button secondary" id="keep" href="${escapeHtml(path)}?lang=${input.language}">${escapeHtml(t.keepPaying)}</a></p>
</main>`,
  )
}

export function renderNotFoundPage(language: CheckoutLanguage, texts: CheckoutTexts): string {
  return checkoutDocument(
    language,
    texts.notFoundTitle,
    '',
    `<main>
  <h1>${escapeHtml(texts.notFoundTitle)}</h1>
  <p>${escapeHtml(texts.notFound)}</p>
</main>`,
  )
}

/** the document every customer page shares: language, title, icon and stylesheet, then `head` and `body` */
export function checkoutDocument(
  language: CheckoutLanguage,
  title: string,
  head: string,
  body: string,
): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${ICON_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="/pay/assets/checkout.css">
${head}</head>
<body>
${body}
</body>
</html>
`
}

const LOCALES: Record<CheckoutLanguage, string> = { en: 'en-US', de: 'de-DE' }

/**
 * The price and the locked rate of a payment priced in fiat, in the page's language ("19,99 €" in
 * German); empty for a payment created with an amount. Intl formats the decimal strings exactly
 * (a string argument is read as a decimal, never as a float).
 */
export function fiatPriceRow(
  language: CheckoutLanguage,
  t: CheckoutTexts,
  created: {
    currency: string
    priceAmount?: string | null
    priceCurrency?: string | null
    rate?: { value: string } | null
  },
): string {
  const { priceAmount, priceCurrency, rate } = created
  if (!priceAmount || !priceCurrency || !rate) return ''
  const locale = LOCALES[language]
  const money = (value: string, digits?: number) =>
    new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: priceCurrency,
      ...(digits === undefined ? {} : { maximumFractionDigits: digits }),
    }).format(value as unknown as number)
  const price = money(priceAmount)
  const rateText = money(rate.value, 20)
  return `<div><dt>${escapeHtml(t.price)}</dt><dd><span id="price">${escapeHtml(price)}</span><span class="hint" id="rate">${escapeHtml(t.rateLocked(created.currency, rateText))}</span></dd></div>`
}

/** an amount of fiat in the page's language ("19,99 €" in German), formatted exactly from its decimal string */
export function formatFiat(language: CheckoutLanguage, amount: string, currency: string): string {
  return new Intl.NumberFormat(LOCALES[language], { style: 'currency', currency }).format(
    amount as unknown as number,
  )
}

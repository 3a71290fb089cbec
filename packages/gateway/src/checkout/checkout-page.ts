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
  walletLink: string | null
  cancelable: boolean
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
  const secondsLeft = Math.max(0, Math.floor((Date.parse(created.expiresAt) - input.now.getTime()) / 1000))
  // past expiresAt nothing more counts (docs/api.md, "Lifecycle"), even before the status says so
  const payable = (state === 'awaiting' || state === 'underpaid') && secondsLeft > 0
  const heading = input.merchantName ? t.payTo(input.merchantName) : t.title
  const noScript = final
    ? paid && redirect
      ? `<meta http-equiv="refresh" content="${REDIRECT_SECONDS};url=${escapeHtml(redirect)}">`
      : ''
    : `<meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}">`
  const required = created.requiredConfirmations
  const confirmations = Math.min(
    required,
    ...activeTransfers(payment.transfers).map((transfer) => transfer.confirmations),
  )
  const statusText = {
    awaiting: t.awaiting,
    seen: t.seen(Number.isFinite(confirmations) ? confirmations : 0, required),
    underpaid: secondsLeft > 0 ? t.underpaid(input.dueAmount, created.currency) : t.underpaidClosed,
    paid: t.paid,
    overpaid: t.overpaid,
    expired: t.expired,
    canceled: t.canceled,
    failed: t.failed,
  }[state]
  const amountShown =
    state === 'underpaid' ? input.dueAmount : formatUnits(created.amountUnits, created.decimals)

  const copyButton = (value: string, label: string) =>
    `<button type="button" class="copy" data-copy="${escapeHtml(value)}" aria-label="${escapeHtml(`${t.copy}: ${label}`)}" hidden>${escapeHtml(t.copy)}</button>`

  const details = payable
    ? `
    <div class="qr" role="img" aria-label="${escapeHtml(t.qrLabel)}">${input.qrSvg ?? ''}</div>
    ${input.walletLink ? `<p><a class="button" href="${escapeHtml(input.walletLink)}">${escapeHtml(t.openWallet)}</a></p>` : ''}
    <dl>
      <div><dt>${escapeHtml(t.amount)}</dt><dd><span class="mono" id="amount">${escapeHtml(amountShown)}</span> ${escapeHtml(created.currency)} ${copyButton(amountShown, t.amount)}</dd></div>
      <div><dt>${escapeHtml(t.network)}</dt><dd>${escapeHtml(created.network)} · ${escapeHtml(created.tokenStandard)}</dd></div>
      <div><dt>${escapeHtml(t.address)}</dt><dd><span class="mono address" id="address">${escapeHtml(created.address)}</span> ${copyButton(created.address, t.address)}</dd></div>
      <div><dt>${escapeHtml(t.timeLeft)}</dt><dd><span id="time-left" data-seconds="${secondsLeft}">${escapeHtml(t.minutes(Math.ceil(secondsLeft / 60)))}</span></dd></div>
    </dl>
    <p class="warning">${escapeHtml(t.onlyThisNetwork(created.network, created.tokenStandard))}</p>`
    : `
    <dl>
      <div><dt>${escapeHtml(t.amount)}</dt><dd><span class="mono">${escapeHtml(formatUnits(created.amountUnits, created.decimals))}</span> ${escapeHtml(created.currency)}</dd></div>
      <div><dt>${escapeHtml(t.network)}</dt><dd>${escapeHtml(created.network)} · ${escapeHtml(created.tokenStandard)}</dd></div>
      ${state === 'seen' ? `<div><dt>${escapeHtml(t.address)}</dt><dd><span class="mono address">${escapeHtml(created.address)}</span></dd></div>` : ''}
    </dl>`

  const redirectBlock = redirect
    ? `<p class="actions">${paid ? `<span id="redirect-note">${escapeHtml(t.redirecting)}</span> ` : ''}<a class="button" id="back" href="${escapeHtml(redirect)}">${escapeHtml(t.backToShop)}</a>${paid ? ` <button type="button" id="stay" hidden>${escapeHtml(t.stayHere)}</button>` : ''}</p>`
    : ''
  const cancelForm = input.cancelable
    ? `<form method="post" action="${escapeHtml(path)}/cancel"><button type="submit" class="secondary">${escapeHtml(t.cancel)}</button></form>`
    : ''

  return `<!doctype html>
<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(heading)}</title>
<link rel="stylesheet" href="/pay/assets/checkout.css">
<noscript>${noScript}</noscript>
<script src="/pay/assets/checkout.js" defer></script>
</head>
<body>
<main id="payment" data-state="${state}" data-status-url="${escapeHtml(path)}/status" data-revision="${input.revision}"${paid && redirect ? ` data-redirect="${escapeHtml(redirect)}" data-redirect-seconds="${REDIRECT_SECONDS}"` : ''} data-copied="${escapeHtml(t.copied)}">
  <header>
    ${input.logoPath ? `<img class="logo" src="${escapeHtml(input.logoPath)}" alt="" width="48" height="48">` : ''}
    <h1>${escapeHtml(heading)}</h1>
    ${created.description ? `<p class="description">${escapeHtml(withoutHiddenControls(created.description))}</p>` : ''}
  </header>
  <p id="status" class="status status-${state}" role="status">${escapeHtml(statusText)}</p>
  ${details}
  ${redirectBlock}
  ${cancelForm}
  <p class="reference">${escapeHtml(t.reference)}: <span class="mono">${escapeHtml(created.paymentId.slice(0, 8))}</span></p>
  <p id="announce" class="visually-hidden" aria-live="polite"></p>
</main>
</body>
</html>
`
}

export function renderNotFoundPage(language: CheckoutLanguage, texts: CheckoutTexts): string {
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(texts.notFoundTitle)}</title>
<link rel="stylesheet" href="/pay/assets/checkout.css">
</head>
<body>
<main>
  <h1>${escapeHtml(texts.notFoundTitle)}</h1>
  <p>${escapeHtml(texts.notFound)}</p>
</main>
</body>
</html>
`
}

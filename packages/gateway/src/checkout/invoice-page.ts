// The invoice's page as HTML (docs/api.md, "The invoice's page"): the price in fiat, the assets the
// customer may pay with (network and token standard spelled out) as one radio group in a form that
// works without JavaScript, the expiry, and that the rate is locked at the pick. Rendered on the
// server; the page needs no script at all.

import { type OpenInvoice, withoutHiddenControls } from '@chainpay/domain'
import { checkoutDocument, escapeHtml, formatFiat } from './checkout-page.js'
import type { CheckoutLanguage, CheckoutTexts } from './checkout-texts.js'
import type { InvoiceTexts } from './invoice-texts.js'

export interface InvoiceAssetChoice {
  currency: string
  network: string
  /** the network's name as people read it (networkName) */
  networkName: string
  tokenStandard: string
}

export interface InvoicePageInput {
  language: CheckoutLanguage
  texts: InvoiceTexts
  checkoutTexts: CheckoutTexts
  /** the page's own path, /pay/invoice/{token} */
  path: string
  invoice: OpenInvoice
  merchantName: string | null
  choices: InvoiceAssetChoice[]
  /** the payment of the earlier pick while it can be paid: its page and what it is */
  chosen: { path: string; currency: string; networkName: string } | null
  /** what went wrong with the customer's pick, shown as an alert */
  error: string | null
  /** the choice to show selected: the customer's last one */
  selected: string | null
  now: Date
}

export const INVOICE_STYLES = `
.options { border: 0; padding: 0; margin: 1rem 0; min-width: 0; }
.options legend { font-weight: 600; font-size: 1.125rem; padding: 0; }
.option { display: flex; gap: .75rem; align-items: flex-start; padding: .75rem; margin: .5rem 0;
  border: 1px solid var(--border); border-radius: 8px; min-height: 44px; cursor: pointer; }
.option:has(input:checked) { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent); }
.option input { width: 1.25rem; height: 1.25rem; margin: .15rem 0 0; flex: none; accent-color: var(--accent); }
.option span { display: flex; flex-direction: column; }
.option .asset { font-weight: 600; }
.alert { color: var(--bad); font-weight: 600; padding: .75rem; border: 1px solid var(--bad); border-radius: 8px; }
.price { font-size: 1.5rem; font-weight: 700; }
`

/** the value of an asset's radio button: what the pick form sends */
export function choiceValue(choice: { currency: string; network: string }): string {
  return `${choice.currency}:${choice.network}`
}

export function renderInvoicePage(input: InvoicePageInput): string {
  const { texts: t, invoice, path } = input
  const { created } = invoice
  const heading = input.merchantName ? input.checkoutTexts.payTo(input.merchantName) : t.title
  const secondsLeft = Math.max(0, Math.floor((Date.parse(created.expiresAt) - input.now.getTime()) / 1000))
  const open = invoice.status === 'open' && secondsLeft > 0
  const price = formatFiat(input.language, created.priceAmount, created.priceCurrency)
  const time = new Intl.DateTimeFormat(input.language === 'de' ? 'de-DE' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(new Date(created.expiresAt))
  const statusText =
    invoice.status === 'paid'
      ? t.paid
      : invoice.status === 'canceled'
        ? t.canceled
        : invoice.status === 'expired' || !open
          ? t.expired
          : null
  const back =
    invoice.status === 'paid'
      ? created.successRedirectUrl
      : statusText !== null
        ? created.cancelRedirectUrl
        : null

  const options = input.choices
    .map((choice, index) => {
      const value = choiceValue(choice)
      const id = `asset-${index}`
      const checked = input.selected === value || (input.selected === null && input.choices.length === 1)
      return `<label class="option" for="${id}"><input type="radio" name="asset" id="${id}" value="${escapeHtml(value)}"${checked ? ' checked' : ''} required><span><span class="asset">${escapeHtml(t.assetOn(choice.currency, choice.networkName))}</span><span class="hint">${escapeHtml(t.standard(choice.tokenStandard, choice.networkName))}</span></span></label>`
    })
    .join('\n      ')

  const chosen = input.chosen
    ? `<p id="chosen">${escapeHtml(t.chosen(input.chosen.currency, input.chosen.networkName))} <a class="button" id="to-payment" href="${escapeHtml(input.chosen.path)}?lang=${input.language}">${escapeHtml(t.toChosenPayment)}</a></p>
  <p class="hint">${escapeHtml(t.changeHint)}</p>`
    : ''

  const form = open
    ? `${chosen}
  <form method="post" action="${escapeHtml(path)}/pick?lang=${input.language}">
    <fieldset class="options" aria-describedby="rate-lock">
      <legend>${escapeHtml(t.choose)}</legend>
      ${options}
    </fieldset>
    <p class="hint" id="rate-lock">${escapeHtml(t.rateLockHint)}</p>
    <p><button type="submit" id="pay">${escapeHtml(t.pay)}</button></p>
  </form>`
    : ''

  return checkoutDocument(
    input.language,
    heading,
    '<link rel="stylesheet" href="/pay/assets/invoice.css">\n',
    `<main id="invoice" data-status="${invoice.status}">
  <header>
    <h1>${escapeHtml(heading)}</h1>
    ${created.description ? `<p class="description">${escapeHtml(withoutHiddenControls(created.description))}</p>` : ''}
  </header>
  <dl>
    <div><dt>${escapeHtml(t.price)}</dt><dd><span class="price" id="price">${escapeHtml(price)}</span></dd></div>
  </dl>
  ${input.error ? `<p class="alert" id="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
  ${statusText ? `<p id="status" class="status status-${invoice.status === 'paid' ? 'paid' : 'expired'}" role="status">${escapeHtml(statusText)}</p>` : `<p id="expiry">${escapeHtml(t.expires(t.minutes(Math.ceil(secondsLeft / 60)), time))}</p>`}
  ${form}
  ${back ? `<p><a class="button" id="back" href="${escapeHtml(back)}">${escapeHtml(t.backToShop)}</a></p>` : ''}
  <p class="reference">${escapeHtml(input.checkoutTexts.reference)}: <span class="mono">${escapeHtml(created.invoiceId.slice(0, 8))}</span></p>
</main>`,
  )
}

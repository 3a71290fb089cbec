// Every text of the customer's page, in one catalogue: English and German. The language is ?lang=
// when it names one of them, else the best of Accept-Language, else English (docs/api.md, "The
// customer's page").

export const CHECKOUT_LANGUAGES = ['en', 'de'] as const
export type CheckoutLanguage = (typeof CHECKOUT_LANGUAGES)[number]

export interface CheckoutTexts {
  title: string
  payTo: (merchant: string) => string
  amount: string
  network: string
  address: string
  copy: string
  copied: string
  qrLabel: string
  openWallet: string
  timeLeft: string
  minutes: (minutes: number) => string
  onlyThisNetwork: (network: string, standard: string) => string
  awaiting: string
  seen: (confirmations: number, required: number) => string
  paid: string
  redirecting: string
  stayHere: string
  backToShop: string
  underpaid: (due: string, currency: string) => string
  underpaidClosed: string
  overpaid: string
  expired: string
  canceled: string
  failed: string
  cancel: string
  notFoundTitle: string
  notFound: string
  reference: string
}

const en: CheckoutTexts = {
  title: 'Payment',
  payTo: (merchant) => `Pay ${merchant}`,
  amount: 'Amount',
  network: 'Network',
  address: 'Address',
  copy: 'Copy',
  copied: 'Copied',
  qrLabel: 'QR code of the payment',
  openWallet: 'Open in wallet',
  timeLeft: 'Time left',
  minutes: (minutes) => (minutes === 1 ? '1 minute' : `${minutes} minutes`),
  onlyThisNetwork: (network, standard) =>
    `Send only on ${network} (${standard}). Funds sent on another network are lost.`,
  awaiting: 'Awaiting payment',
  seen: (confirmations, required) => `Payment seen: ${confirmations} of ${required} confirmations`,
  paid: 'Paid. Thank you!',
  redirecting: 'Returning to the shop in a few seconds.',
  stayHere: 'Stay on this page',
  backToShop: 'Back to the shop',
  underpaid: (due, currency) =>
    `Not paid in full: send the remaining ${due} ${currency} to the same address.`,
  underpaidClosed: 'Not paid in full, and the time to complete it has passed. Contact the shop.',
  overpaid: 'Paid, with more than the amount. Contact the shop about the difference.',
  expired: 'This payment has expired. Do not send funds to this address.',
  canceled: 'This payment was canceled. Do not send funds to this address.',
  failed: 'This payment failed. Contact the shop.',
  cancel: 'Cancel payment',
  notFoundTitle: 'Page not found',
  notFound: 'There is nothing at this address.',
  reference: 'Reference',
}

const de: CheckoutTexts = {
  title: 'Zahlung',
  payTo: (merchant) => `Zahlung an ${merchant}`,
  amount: 'Betrag',
  network: 'Netzwerk',
  address: 'Adresse',
  copy: 'Kopieren',
  copied: 'Kopiert',
  qrLabel: 'QR-Code der Zahlung',
  openWallet: 'In der Wallet öffnen',
  timeLeft: 'Verbleibende Zeit',
  minutes: (minutes) => (minutes === 1 ? '1 Minute' : `${minutes} Minuten`),
  onlyThisNetwork: (network, standard) =>
    `Nur über ${network} (${standard}) senden. Über ein anderes Netzwerk gesendete Beträge gehen verloren.`,
  awaiting: 'Warten auf Zahlung',
  seen: (confirmations, required) => `Zahlung gesehen: ${confirmations} von ${required} Bestätigungen`,
  paid: 'Bezahlt. Vielen Dank!',
  redirecting: 'In wenigen Sekunden geht es zurück zum Shop.',
  stayHere: 'Auf dieser Seite bleiben',
  backToShop: 'Zurück zum Shop',
  underpaid: (due, currency) =>
    `Nicht vollständig bezahlt: Senden Sie die restlichen ${due} ${currency} an dieselbe Adresse.`,
  underpaidClosed:
    'Nicht vollständig bezahlt, und die Zeit zum Ergänzen ist abgelaufen. Wenden Sie sich an den Shop.',
  overpaid: 'Bezahlt, mit mehr als dem Betrag. Wenden Sie sich wegen der Differenz an den Shop.',
  expired: 'Diese Zahlung ist abgelaufen. Senden Sie nichts an diese Adresse.',
  canceled: 'Diese Zahlung wurde abgebrochen. Senden Sie nichts an diese Adresse.',
  failed: 'Diese Zahlung ist fehlgeschlagen. Wenden Sie sich an den Shop.',
  cancel: 'Zahlung abbrechen',
  notFoundTitle: 'Seite nicht gefunden',
  notFound: 'Unter dieser Adresse gibt es nichts.',
  reference: 'Referenz',
}

export const checkoutTexts: Record<CheckoutLanguage, CheckoutTexts> = { en, de }

function supported(tag: string): CheckoutLanguage | undefined {
  const primary = tag.trim().toLowerCase().split('-')[0]
  return CHECKOUT_LANGUAGES.find((language) => language === primary)
}

/** ?lang= first, then Accept-Language by q (ties keep the header's order; q=0 is refused), then English */
export function pickLanguage(lang: string | undefined, acceptLanguage: string | undefined): CheckoutLanguage {
  const asked = lang === undefined ? undefined : supported(lang)
  if (asked) return asked
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';')
      const q = params
        .map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1])
        .find((value) => value !== undefined)
      return { tag, q: q === undefined ? 1 : Number(q), index }
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
  for (const range of ranges) {
    const language = supported(range.tag)
    if (language) return language
  }
  return 'en'
}

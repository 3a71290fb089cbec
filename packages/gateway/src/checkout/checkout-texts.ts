// Every text of the customer's page, in one catalogue: English and German. The language is ?lang=
// when it names one of them, else the best of Accept-Language, else English (docs/api.md, "The
// customer's page").

export const CHECKOUT_LANGUAGES = ['en', 'de'] as const
export type CheckoutLanguage = (typeof CHECKOUT_LANGUAGES)[number]

export interface CheckoutTexts {
  title: string
  payTo: (merchant: string) => string
  amount: string
  /** a payment priced in fiat (docs/api.md, "Prices in fiat"): the price, beside the amount */
  price: string
  /** the locked rate, e.g. "1 SOL = 142.37 $", and that it holds until the payment expires */
  rateLocked: (asset: string, rate: string) => string
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
  /** the link to Trust Wallet's send route, on TRON's mainnet */
  openTrustWallet: string
  /** beside the QR code: what to send */
  sendExactly: (amount: string, currency: string, standard: string) => string
  /** beside TRON's QR code, which holds the bare address only */
  qrAddressOnly: (amount: string, currency: string, standard: string) => string
  /** the token's contract (TRON) or mint (Solana), for the customer to check in the wallet */
  tokenContract: (currency: string) => string
  tokenMint: (currency: string) => string
  checkToken: string
  /** funds that arrived after the payment closed (lateFunds) */
  expiredLateFunds: (received: string, currency: string) => string
  canceledLateFunds: (received: string, currency: string) => string
  lateFundsHelp: (shop: string) => string
  overpaidBy: (received: string, extra: string, currency: string) => string
  overpaidHelp: (shop: string) => string
  /** how the page names the merchant when it has no name */
  theShop: string
  received: string
  transactions: string
  receiptHint: string
  viewOn: (explorer: string) => string
  arrivedLate: string
  /** a transfer the chain no longer shows (withdrawn) */
  notOnChain: string
  /** the cancel confirmation step */
  cancelQuestion: string
  cancelWarning: string
  cancelConfirm: string
  keepPaying: string
}

const en: CheckoutTexts = {
  title: 'Payment',
  payTo: (merchant) => `Pay ${merchant}`,
  amount: 'Amount',
  price: 'Price',
  rateLocked: (asset, rate) => `At 1 ${asset} = ${rate}, fixed until the payment expires.`,
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
  openTrustWallet: 'Open in Trust Wallet',
  sendExactly: (amount, currency, standard) => `Send exactly ${amount} ${currency} (${standard}).`,
  qrAddressOnly: (amount, currency, standard) =>
    `The QR code holds the address only: in your wallet, choose ${currency} (${standard}) and enter ${amount}.`,
  tokenContract: (currency) => `${currency} token contract`,
  tokenMint: (currency) => `${currency} token mint`,
  checkToken: 'Check that your wallet shows this token before sending.',
  expiredLateFunds: (received, currency) =>
    `Your funds arrived after this payment had expired: ${received} ${currency} received.`,
  canceledLateFunds: (received, currency) =>
    `Your funds arrived after this payment was canceled: ${received} ${currency} received.`,
  lateFundsHelp: (shop) =>
    `The money has arrived. Contact ${shop} with the reference and the transaction below to complete the order or get a refund. Do not send more.`,
  overpaidBy: (received, extra, currency) =>
    `Paid, with more than the amount: ${received} ${currency} received, ${extra} ${currency} too much.`,
  overpaidHelp: (shop) =>
    `Contact ${shop} with the reference and the transaction below to get the difference back.`,
  theShop: 'the shop',
  received: 'Received',
  transactions: 'Transactions',
  receiptHint: 'Keep these as your receipt.',
  viewOn: (explorer) => `View on ${explorer}`,
  arrivedLate: 'arrived late',
  notOnChain: 'no longer on the chain',
  cancelQuestion: 'Cancel this payment?',
  cancelWarning: 'Once canceled, this address no longer takes payments: do not send funds to it.',
  cancelConfirm: 'Yes, cancel the payment',
  keepPaying: 'No, back to the payment',
}

const de: CheckoutTexts = {
  title: 'Zahlung',
  payTo: (merchant) => `Zahlung an ${merchant}`,
  amount: 'Betrag',
  price: 'Preis',
  rateLocked: (asset, rate) => `Zum Kurs 1 ${asset} = ${rate}, fest bis zum Ablauf der Zahlung.`,
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
  openTrustWallet: 'In Trust Wallet öffnen',
  sendExactly: (amount, currency, standard) => `Senden Sie genau ${amount} ${currency} (${standard}).`,
  qrAddressOnly: (amount, currency, standard) =>
    `Der QR-Code enthält nur die Adresse: Wählen Sie in Ihrer Wallet ${currency} (${standard}) und geben Sie ${amount} ein.`,
  tokenContract: (currency) => `Token-Vertrag von ${currency}`,
  tokenMint: (currency) => `Token-Mint von ${currency}`,
  checkToken: 'Prüfen Sie vor dem Senden, dass Ihre Wallet diesen Token zeigt.',
  expiredLateFunds: (received, currency) =>
    `Ihr Geld kam an, nachdem diese Zahlung abgelaufen war: ${received} ${currency} erhalten.`,
  canceledLateFunds: (received, currency) =>
    `Ihr Geld kam an, nachdem diese Zahlung abgebrochen wurde: ${received} ${currency} erhalten.`,
  lateFundsHelp: (shop) =>
    `Das Geld ist angekommen. Wenden Sie sich mit der Referenz und der Transaktion unten an ${shop}, um die Bestellung abzuschließen oder das Geld zurückzubekommen. Senden Sie nichts mehr.`,
  overpaidBy: (received, extra, currency) =>
    `Bezahlt, mit mehr als dem Betrag: ${received} ${currency} erhalten, ${extra} ${currency} zu viel.`,
  overpaidHelp: (shop) =>
    `Wenden Sie sich mit der Referenz und der Transaktion unten an ${shop}, um die Differenz zurückzubekommen.`,
  theShop: 'den Shop',
  received: 'Erhalten',
  transactions: 'Transaktionen',
  receiptHint: 'Bewahren Sie diese als Beleg auf.',
  viewOn: (explorer) => `Auf ${explorer} ansehen`,
  arrivedLate: 'verspätet eingegangen',
  notOnChain: 'nicht mehr auf der Chain',
  cancelQuestion: 'Diese Zahlung abbrechen?',
  cancelWarning: 'Nach dem Abbruch nimmt diese Adresse keine Zahlungen mehr an: Senden Sie nichts an sie.',
  cancelConfirm: 'Ja, Zahlung abbrechen',
  keepPaying: 'Nein, zurück zur Zahlung',
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

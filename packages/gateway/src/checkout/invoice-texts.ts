// Every text of the invoice's page (docs/api.md, "The invoice's page"), English and German, in the
// language the customer's page picks (checkout-texts.ts, pickLanguage).

import type { CheckoutLanguage } from './checkout-texts.js'

export interface InvoiceTexts {
  title: string
  price: string
  choose: string
  /** that the rate is locked when the customer picks, and until when */
  rateLockHint: string
  pay: string
  /** the accepted asset: what it is, on which network */
  assetOn: (currency: string, network: string) => string
  /** the token standard spelled out */
  standard: (standard: string, network: string) => string
  /** the expiry, as time left and the time in UTC */
  expires: (minutesLeft: string, time: string) => string
  minutes: (minutes: number) => string
  /** the payment of the customer's earlier pick, still payable */
  chosen: (currency: string, network: string) => string
  toChosenPayment: string
  changeHint: string
  paid: string
  expired: string
  canceled: string
  backToShop: string
  /** a pick the invoice could not take */
  errors: {
    chooseOne: string
    rateUnavailable: string
    transferSeen: string
    notOpen: string
    notAccepted: string
    tooSmall: string
  }
  /** on the payment's page: back to the invoice's, to pick another coin */
  payWithAnother: string
}

const en: InvoiceTexts = {
  title: 'Invoice',
  price: 'Price',
  choose: 'Choose how to pay',
  rateLockHint:
    'The amount in the coin you choose is set when you choose, at the exchange rate of that moment, and stays fixed until the invoice expires.',
  pay: 'Continue to payment',
  assetOn: (currency, network) => `${currency} on ${network}`,
  standard: (standard, network) =>
    standard === 'NATIVE'
      ? `the own coin of ${network}`
      : standard === 'TRC20'
        ? 'TRC-20 token'
        : standard === 'SPL'
          ? 'SPL token'
          : `${standard} token`,
  expires: (minutesLeft, time) => `Pay within ${minutesLeft} (by ${time} UTC).`,
  minutes: (minutes) => (minutes === 1 ? '1 minute' : `${minutes} minutes`),
  chosen: (currency, network) => `You chose to pay in ${currency} on ${network}.`,
  toChosenPayment: 'Go to that payment',
  changeHint:
    'Choosing another coin below cancels the payment you chose before, as long as nothing was sent to it yet.',
  paid: 'This invoice is paid. Thank you!',
  expired: 'This invoice has expired. Do not send funds for it.',
  canceled: 'This invoice was canceled. Do not send funds for it.',
  backToShop: 'Back to the shop',
  errors: {
    chooseOne: 'Choose one of the ways to pay.',
    rateUnavailable: 'No exchange rate is available right now. Try again in a minute.',
    transferSeen: 'A transfer to the payment you chose before was already seen: complete that payment.',
    notOpen: 'This invoice can no longer be paid.',
    notAccepted: 'This invoice cannot be paid that way.',
    tooSmall: 'The price is too small to be paid in this coin. Choose another one.',
  },
  payWithAnother: 'Pay with another coin',
}

const de: InvoiceTexts = {
  title: 'Rechnung',
  price: 'Preis',
  choose: 'Wählen Sie, wie Sie bezahlen',
  rateLockHint:
    'Der Betrag in der gewählten Münze wird bei der Wahl zum dann gültigen Kurs festgelegt und bleibt bis zum Ablauf der Rechnung fest.',
  pay: 'Weiter zur Zahlung',
  assetOn: (currency, network) => `${currency} auf ${network}`,
  standard: (standard, network) =>
    standard === 'NATIVE'
      ? `die eigene Münze von ${network}`
      : standard === 'TRC20'
        ? 'TRC-20-Token'
        : standard === 'SPL'
          ? 'SPL-Token'
          : `${standard}-Token`,
  expires: (minutesLeft, time) => `Bitte zahlen Sie innerhalb von ${minutesLeft} (bis ${time} UTC).`,
  minutes: (minutes) => (minutes === 1 ? '1 Minute' : `${minutes} Minuten`),
  chosen: (currency, network) => `Sie haben gewählt, in ${currency} auf ${network} zu zahlen.`,
  toChosenPayment: 'Zu dieser Zahlung',
  changeHint:
    'Wählen Sie unten eine andere Münze, wird die zuvor gewählte Zahlung storniert, solange noch nichts an sie gesendet wurde.',
  paid: 'Diese Rechnung ist bezahlt. Vielen Dank!',
  expired: 'Diese Rechnung ist abgelaufen. Senden Sie kein Geld dafür.',
  canceled: 'Diese Rechnung wurde storniert. Senden Sie kein Geld dafür.',
  backToShop: 'Zurück zum Shop',
  errors: {
    chooseOne: 'Wählen Sie eine der Zahlungsarten.',
    rateUnavailable: 'Gerade ist kein Wechselkurs verfügbar. Bitte versuchen Sie es in einer Minute erneut.',
    transferSeen:
      'Eine Überweisung an die zuvor gewählte Zahlung wurde bereits gesehen: Bitte schließen Sie diese Zahlung ab.',
    notOpen: 'Diese Rechnung kann nicht mehr bezahlt werden.',
    notAccepted: 'Diese Rechnung kann so nicht bezahlt werden.',
    tooSmall: 'Der Preis ist zu klein für diese Münze. Bitte wählen Sie eine andere.',
  },
  payWithAnother: 'Mit einer anderen Münze zahlen',
}

export const invoiceTexts: Record<CheckoutLanguage, InvoiceTexts> = { en, de }

/** the network's name as people read it: a test network says so */
export function networkName(network: string, testnet: boolean, language: CheckoutLanguage): string {
  const names: Record<string, string> = {
    TRON: 'TRON',
    TRON_NILE: 'TRON Nile',
    TRON_SHASTA: 'TRON Shasta',
    SOLANA: 'Solana',
    SOLANA_DEVNET: 'Solana Devnet',
    SOLANA_TESTNET: 'Solana Testnet',
  }
  const name = names[network] ?? network
  return testnet && !/testnet/i.test(name)
    ? `${name} (${language === 'de' ? 'Testnetz' : 'test network'})`
    : name
}

// Every text of the refund claim page (docs/api.md, "The refund claim page"), English and German:
// the checkout's languages, chosen the checkout's way (checkout-texts.ts, pickLanguage).

import type { Chain } from '@chainpay/domain'
import type { CheckoutLanguage } from '../checkout/checkout-texts.js'

export interface RefundClaimTexts {
  title: string
  refundFrom: (shop: string) => string
  amount: string
  network: string
  reason: string
  address: string
  reference: string
  /** the token's contract (TRON) or mint (Solana) */
  tokenContract: (currency: string) => string
  tokenMint: (currency: string) => string
  /** awaiting_address: the form */
  askAddress: (currency: string) => string
  addressLabel: (currency: string, network: string, standard: string) => string
  addressHint: (chain: Chain) => string
  exchangeWarning: string
  onlyThisNetwork: (network: string, standard: string) => string
  continue: string
  /** the form's problems, tied to the field */
  errorPrefix: string
  addressMissing: string
  addressMalformed: (chain: Chain, network: string) => string
  /** the confirmation step */
  confirmTitle: string
  confirmIntro: (amount: string, currency: string) => string
  confirmWarning: string
  confirm: string
  change: string
  /** the address was given already (by this customer or another tab): it cannot change */
  addressFixed: string
  /** the pages after the address */
  ready: string
  readyHelp: string
  sent: string
  sentHelp: string
  completed: string
  failed: string
  /** shop: the merchant's name, null when it has none */
  failedHelp: (shop: string | null) => string
  canceled: string
  canceledHelp: (shop: string | null) => string
  transaction: string
  viewOn: (explorer: string) => string
  /** beside the reference: what to quote to the shop */
  referenceHint: string
}

const addressShape: Record<CheckoutLanguage, Record<Chain, string>> = {
  en: {
    TRON: 'A TRON address starts with T and has 34 letters and digits.',
    SOLANA:
      'A Solana address has 32 to 44 letters and digits (no 0, O, I or l): your wallet address, not a token account.',
  },
  de: {
    TRON: 'Eine TRON-Adresse beginnt mit T und hat 34 Buchstaben und Ziffern.',
    SOLANA:
      'Eine Solana-Adresse hat 32 bis 44 Buchstaben und Ziffern (kein 0, O, I oder l): Ihre Wallet-Adresse, kein Token-Konto.',
  },
}

const en: RefundClaimTexts = {
  title: 'Refund',
  refundFrom: (shop) => `Refund from ${shop}`,
  amount: 'Amount',
  network: 'Network',
  reason: 'Reason',
  address: 'Your address',
  reference: 'Reference',
  tokenContract: (currency) => `${currency} token contract`,
  tokenMint: (currency) => `${currency} token mint`,
  askAddress: (currency) => `Tell us where to send your ${currency}.`,
  addressLabel: (currency, network, standard) => `Your ${currency} address on ${network} (${standard})`,
  addressHint: (chain) => addressShape.en[chain],
  exchangeWarning:
    'Use an address of your own wallet. An exchange deposit address may not credit a refund: the exchange may not see it as yours.',
  onlyThisNetwork: (network, standard) =>
    `The refund is sent on ${network} (${standard}) only: give an address on this network.`,
  continue: 'Continue',
  errorPrefix: 'Error',
  addressMissing: 'Enter the address to receive the refund.',
  addressMalformed: (chain, network) =>
    `This is not a ${network} address. ${addressShape.en[chain]} Copy it from your wallet again.`,
  confirmTitle: 'Check the address',
  confirmIntro: (amount, currency) => `${amount} ${currency} will be sent to this address:`,
  confirmWarning:
    'Once confirmed, the address cannot be changed. Funds sent to a wrong address are lost: compare it with your wallet, character by character.',
  confirm: 'Yes, send the refund to this address',
  change: 'No, change the address',
  addressFixed: 'An address has already been given for this refund. It cannot be changed.',
  ready: 'Your refund is on its way: it will be sent soon.',
  readyHelp: 'Nothing more to do. Come back to this page to see when it is sent.',
  sent: 'Your refund has been sent.',
  sentHelp: 'It arrives once the network has confirmed the transaction below.',
  completed: 'Your refund has arrived.',
  failed: 'The refund could not be sent.',
  failedHelp: (shop) => `${shop ?? 'The shop'} will contact you or send it again.`,
  canceled: 'This refund was canceled.',
  canceledHelp: (shop) => `Contact ${shop ?? 'the shop'} with the reference below if you have questions.`,
  transaction: 'Transaction',
  viewOn: (explorer) => `View on ${explorer}`,
  referenceHint: 'Quote it when you contact the shop.',
}

const de: RefundClaimTexts = {
  title: 'Rückerstattung',
  refundFrom: (shop) => `Rückerstattung von ${shop}`,
  amount: 'Betrag',
  network: 'Netzwerk',
  reason: 'Grund',
  address: 'Ihre Adresse',
  reference: 'Referenz',
  tokenContract: (currency) => `Token-Vertrag von ${currency}`,
  tokenMint: (currency) => `Token-Mint von ${currency}`,
  askAddress: (currency) => `Sagen Sie uns, wohin Ihre ${currency} gesendet werden sollen.`,
  addressLabel: (currency, network, standard) => `Ihre ${currency}-Adresse auf ${network} (${standard})`,
  addressHint: (chain) => addressShape.de[chain],
  exchangeWarning:
    'Verwenden Sie eine Adresse Ihrer eigenen Wallet. Eine Einzahlungsadresse einer Börse schreibt eine Rückerstattung womöglich nicht gut: Die Börse erkennt sie vielleicht nicht als Ihre.',
  onlyThisNetwork: (network, standard) =>
    `Die Rückerstattung wird nur über ${network} (${standard}) gesendet: Geben Sie eine Adresse in diesem Netzwerk an.`,
  continue: 'Weiter',
  errorPrefix: 'Fehler',
  addressMissing: 'Geben Sie die Adresse an, an die die Rückerstattung gehen soll.',
  addressMalformed: (chain, network) =>
    `Das ist keine ${network}-Adresse. ${addressShape.de[chain]} Kopieren Sie sie erneut aus Ihrer Wallet.`,
  confirmTitle: 'Adresse prüfen',
  confirmIntro: (amount, currency) => `${amount} ${currency} werden an diese Adresse gesendet:`,
  confirmWarning:
    'Nach der Bestätigung lässt sich die Adresse nicht mehr ändern. An eine falsche Adresse gesendete Beträge gehen verloren: Vergleichen Sie sie Zeichen für Zeichen mit Ihrer Wallet.',
  confirm: 'Ja, an diese Adresse senden',
  change: 'Nein, Adresse ändern',
  addressFixed: 'Für diese Rückerstattung wurde bereits eine Adresse angegeben. Sie lässt sich nicht ändern.',
  ready: 'Ihre Rückerstattung ist unterwegs: Sie wird in Kürze gesendet.',
  readyHelp: 'Sie müssen nichts mehr tun. Auf dieser Seite sehen Sie, wann sie gesendet wurde.',
  sent: 'Ihre Rückerstattung wurde gesendet.',
  sentHelp: 'Sie kommt an, sobald das Netzwerk die Transaktion unten bestätigt hat.',
  completed: 'Ihre Rückerstattung ist angekommen.',
  failed: 'Die Rückerstattung konnte nicht gesendet werden.',
  failedHelp: (shop) => `${shop ?? 'Der Shop'} meldet sich bei Ihnen oder sendet sie erneut.`,
  canceled: 'Diese Rückerstattung wurde storniert.',
  canceledHelp: (shop) => `Wenden Sie sich bei Fragen mit der Referenz unten an ${shop ?? 'den Shop'}.`,
  transaction: 'Transaktion',
  viewOn: (explorer) => `Auf ${explorer} ansehen`,
  referenceHint: 'Geben Sie sie an, wenn Sie sich an den Shop wenden.',
}

export const refundClaimTexts: Record<CheckoutLanguage, RefundClaimTexts> = { en, de }

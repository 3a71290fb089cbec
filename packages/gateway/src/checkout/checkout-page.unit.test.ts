// The customer's page as rendered from a payment's state (docs/api.md, "The customer's page"): what
// each state tells the customer, the receipt of transaction hashes, TRON's wallet hand-off and the
// merchant's initials. The routes and the browser are tested in packages/standalone
// (merchant-api/checkout-page.int.test.ts, checkout-page.e2e.test.ts).

import { evolvePayment, initialPaymentState, type OpenPayment, type PaymentEvent } from '@chainpay/domain'
import {
  at,
  eventsFor,
  lateFunds,
  paymentCreated,
  paymentId,
  required,
  settled,
  transferDetected,
  withdrawn,
} from '@chainpay/domain/testing'
import { describe, expect, it } from 'vitest'
import { type CheckoutPageInput, initialsOf, renderCancelPage, renderCheckoutPage } from './checkout-page.js'
import { type CheckoutLanguage, checkoutTexts } from './checkout-texts.js'
import { explorerOf } from './explorers.js'
import { paymentRequestOf } from './payment-request.js'

const CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const HASH = 'ab'.repeat(32)

function fold(events: PaymentEvent[]): OpenPayment {
  const state = events.reduce(evolvePayment, initialPaymentState)
  if (state.status === 'none') throw new Error('no payment')
  return state
}

function render(
  payment: OpenPayment,
  options: Partial<CheckoutPageInput> = {},
  language: CheckoutLanguage = 'en',
) {
  const request = paymentRequestOf({
    chain: 'TRON',
    testnet: false,
    paymentId: payment.created.paymentId,
    address: payment.created.address,
    asset: { contract: CONTRACT },
    amount: '10.5',
    label: 'Acme Store',
    message: null,
  })
  return renderCheckoutPage({
    language,
    texts: checkoutTexts[language],
    path: '/pay/TOKEN',
    payment,
    revision: 1,
    merchantName: 'Acme Store',
    logoPath: null,
    dueAmount: '10.5',
    qrSvg: '<svg></svg>',
    walletLink: request.walletLink,
    tokenContract: CONTRACT,
    chain: 'TRON',
    explorer: explorerOf('TRON'),
    cancelable: payment.status === 'pending',
    now: new Date(at(1)),
    ...options,
  })
}

describe('the awaiting page', () => {
  const html = render(fold(eventsFor('pending')))

  it("keeps TRON's QR code the bare address and says the amount and token beside it", () => {
    expect(html).toContain(
      'The QR code holds the address only: in your wallet, choose USDT (TRC20) and enter 10.5.',
    )
    expect(html).toContain(
      `<a class="button" href="https://link.trustwallet.com/send?asset=c195_t${CONTRACT}&amp;address=TJRabPrwbZy45sbavfcjinPJC18kjpRTv8&amp;amount=10.5">Open in Trust Wallet</a>`,
    )
  })

  it("shows the token's contract to check, with a copy button", () => {
    expect(html).toContain(
      `<dt>USDT token contract</dt><dd><span class="mono" id="token-contract">${CONTRACT}</span>`,
    )
    expect(html).toContain('aria-label="Copy: USDT token contract"')
  })

  it('puts the amount, the network and its warning before the QR code, and the cancel link last, as a step to confirm', () => {
    const order = [
      'id="amount"',
      'TRON · TRC20',
      'id="network-warning"',
      'class="qr"',
      'id="address"',
      'id="cancel"',
    ]
    const positions = order.map((fragment) => html.indexOf(fragment))
    expect(positions.every((position) => position > 0)).toBe(true)
    expect([...positions].sort((a, b) => a - b)).toEqual(positions)
    expect(html).toContain('<a id="cancel" href="/pay/TOKEN/cancel?lang=en">Cancel payment</a>')
    // no form on the payment page: one tap cannot cancel
    expect(html).not.toContain('<form')
  })

  it("shows the merchant's initials on a colour where it has no logo, hidden from screen readers (the heading names it)", () => {
    expect(html).toMatch(/<span class="logo initials initials-[0-5]" aria-hidden="true">AS<\/span>/)
    expect(render(fold(eventsFor('pending')), { logoPath: '/pay/TOKEN/logo' })).not.toContain('initials')
    expect(initialsOf('acme')).toBe('A')
    expect(initialsOf('Müller & Söhne GmbH')).toBe('MS')
    expect(initialsOf('  ')).toBe('')
  })

  it('has no wallet link on a test network, where Trust Wallet knows no such token', () => {
    expect(render(fold(eventsFor('pending')), { walletLink: null })).not.toContain('trustwallet')
  })
})

describe('the final pages', () => {
  it('say that funds arrived after expiry, how much, what to do, and show the hash with its explorer link', () => {
    const payment = fold([...eventsFor('expired'), lateFunds('expired', { txHash: HASH })])
    const html = render(payment, { now: new Date(at(40)) })
    expect(html).toContain('Your funds arrived after this payment had expired: 10.5 USDT received.')
    expect(html).toContain(
      'The money has arrived. Contact Acme Store with the reference and the transaction below to complete the order or get a refund. Do not send more.',
    )
    expect(html).not.toContain('Do not send funds to this address')
    expect(html).toContain(`<span class="mono tx-hash">${HASH}</span> <span>10.5 USDT (arrived late)</span>`)
    expect(html).toContain(
      `<a href="https://tronscan.org/#/transaction/${HASH}" rel="noopener noreferrer">View on Tronscan</a>`,
    )
    const german = render(payment, { now: new Date(at(40)) }, 'de')
    expect(german).toContain('Ihr Geld kam an, nachdem diese Zahlung abgelaufen war: 10.5 USDT erhalten.')
    expect(german).toContain('Auf Tronscan ansehen')
  })

  it('say the same of funds after a cancel', () => {
    const payment = fold([...eventsFor('canceled'), lateFunds('canceled', { txHash: HASH })])
    expect(render(payment)).toContain(
      'Your funds arrived after this payment was canceled: 10.5 USDT received.',
    )
  })

  it('still say expired and not to send, when nothing arrived', () => {
    const html = render(fold(eventsFor('expired')), { now: new Date(at(40)) })
    expect(html).toContain('This payment has expired. Do not send funds to this address.')
    expect(html).not.toContain('Transactions')
  })

  const overpaidEvents = () => [
    transferDetected({ txHash: HASH, amountUnits: '11000000', confirmations: required }),
    settled('PaymentOverpaid', { receivedUnits: '11000000', txHash: HASH }),
  ]

  it('say how much an overpayment received, how much too much, and whom to contact', () => {
    const payment = fold([paymentCreated(), ...overpaidEvents()])
    const html = render(payment)
    expect(html).toContain('Paid, with more than the amount: 11 USDT received, 0.5 USDT too much.')
    // no redirect by itself: the customer is to read this
    const withShop = render(
      fold([paymentCreated({ successRedirectUrl: 'https://shop.example/ok' }), ...overpaidEvents()]),
    )
    expect(withShop).toContain('<a class="button" id="back" href="https://shop.example/ok">')
    expect(withShop).not.toContain('data-redirect=')
    expect(withShop).not.toContain('http-equiv="refresh"')
    expect(html).toContain(
      'Contact Acme Store with the reference and the transaction below to get the difference back.',
    )
    expect(html).toContain('<dt>Received</dt><dd><span class="mono">11</span> USDT</dd>')
    expect(html).toContain(`https://tronscan.org/#/transaction/${HASH}`)
  })

  it('show the hash of a paid payment, linked to the test network explorer on Nile', () => {
    const payment = fold([
      paymentCreated({ network: 'TRON_NILE' }),
      transferDetected({ txHash: HASH, confirmations: required }),
      settled('PaymentConfirmed', { txHash: HASH }),
    ])
    const html = render(payment, { explorer: explorerOf('TRON_NILE') })
    expect(html).toContain('Paid. Thank you!')
    expect(html).toContain(`https://nile.tronscan.org/#/transaction/${HASH}`)
  })

  it('show the hash of a transfer the chain took back on a failed payment, marked so', () => {
    const payment = fold([
      paymentCreated(),
      transferDetected({ txHash: HASH }),
      withdrawn({ txHash: HASH }),
      { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_WITHDRAWN', failedAt: at(32) } },
    ])
    const html = render(payment, { now: new Date(at(40)) })
    expect(html).toContain('This payment failed. Contact the shop.')
    expect(html).toContain(
      `<span class="mono tx-hash">${HASH}</span> <span>10.5 USDT (no longer on the chain)</span>`,
    )
  })

  it('show the hash without a link on a network without a known explorer', () => {
    const html = render(fold(eventsFor('confirmed')), { explorer: null })
    expect(html).toContain('<span class="mono tx-hash">tx-1</span>')
    expect(html).not.toContain('View on')
  })
})

describe('the cancel confirmation page', () => {
  it('asks, warns, and has the form that cancels and the way back', () => {
    const html = renderCancelPage({
      language: 'de',
      texts: checkoutTexts.de,
      path: '/pay/TOKEN',
      payment: fold(eventsFor('pending')),
      merchantName: 'Acme Store',
    })
    expect(html).toContain('<h1>Diese Zahlung abbrechen?</h1>')
    expect(html).toContain(
      '<form method="post" action="/pay/TOKEN/cancel"><button type="submit" class="danger">Ja, Zahlung abbrechen</button></form>',
    )
    expect(html).toContain('href="/pay/TOKEN?lang=de">Nein, zurück zur Zahlung</a>')
  })

  it('shows a description recorded before hidden characters were refused without them, as the main page does', () => {
    const [created, ...rest] = eventsFor('pending')
    if (created?.type !== 'PaymentCreated') throw new Error('the first event creates the payment')
    const stored = { ...created, data: { ...created.data, description: 'Order \u202E42\u0007 gift' } }
    const html = renderCancelPage({
      language: 'en',
      texts: checkoutTexts.en,
      path: '/pay/TOKEN',
      payment: fold([stored, ...rest] as PaymentEvent[]),
      merchantName: 'Acme Store',
    })
    expect(html).toContain('<p class="description">Order 42 gift</p>')
  })
})

describe('a payment priced in fiat (docs/api.md, "Prices in fiat")', () => {
  const rate = { value: '0.93', sources: ['peg', 'kraken'], at: at(0) }
  const priced = fold([paymentCreated({ amount: '10.5', priceAmount: '9.77', priceCurrency: 'EUR', rate })])

  it('shows the price beside the amount, with the rate locked until the payment expires', () => {
    const html = render(priced)
    expect(html).toContain('<dt>Price</dt><dd><span id="price">€9.77</span>')
    expect(html).toContain('At 1 USDT = €0.93, fixed until the payment expires.')
    expect(html.indexOf('id="amount"')).toBeLessThan(html.indexOf('id="price"'))
  })

  it('writes both in German', () => {
    const html = render(priced, {}, 'de')
    expect(html).toContain('<dt>Preis</dt><dd><span id="price">9,77\u00a0€</span>')
    expect(html).toContain('Zum Kurs 1 USDT = 0,93\u00a0€, fest bis zum Ablauf der Zahlung.')
  })

  it('shows no price for a payment created with an amount', () => {
    expect(render(fold(eventsFor('pending')))).not.toContain('id="price"')
  })
})

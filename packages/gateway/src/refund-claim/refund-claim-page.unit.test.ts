// The refund claim page as rendered from a refund (docs/api.md, "The refund claim page"): the form
// and its refusals tied to the field, the confirmation step, and what each later state tells the
// customer, in English and German. The routes are tested through the gateway app in packages/standalone
// (merchant-api/refund-claim.int.test.ts), the browser in checkout-page.e2e.test.ts.

import { describe, expect, it } from 'vitest'
import type { CheckoutLanguage } from '../checkout/checkout-texts.js'
import { explorerOf } from '../checkout/explorers.js'
import {
  type AddressForm,
  type RefundClaimStatus,
  type RefundClaimView,
  renderRefundClaimPage,
  renderRefundConfirmPage,
} from './refund-claim-page.js'
import { refundClaimTexts } from './refund-claim-texts.js'

const HASH = 'ab'.repeat(32)
const CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const GIVEN = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'

function view(status: RefundClaimStatus, fields: Partial<RefundClaimView> = {}): RefundClaimView {
  const after = status !== 'awaiting_address'
  return {
    refundId: '6f1c2e4a-0000-4000-8000-000000000001',
    status,
    amount: '10.5',
    currency: 'USDT',
    network: 'TRON',
    chain: 'TRON',
    tokenStandard: 'TRC20',
    tokenContract: CONTRACT,
    reason: 'Order #1042 returned',
    address: after ? GIVEN : null,
    txHash: status === 'sent' || status === 'completed' ? HASH : null,
    ...fields,
  }
}

function render(
  refund: RefundClaimView,
  options: {
    language?: CheckoutLanguage
    form?: AddressForm
    addressFixed?: boolean
    merchantName?: string | null
  } = {},
) {
  const language = options.language ?? 'en'
  return renderRefundClaimPage({
    language,
    texts: refundClaimTexts[language],
    path: '/refund/TOKEN',
    refund,
    merchantName: options.merchantName === undefined ? 'Acme Store' : options.merchantName,
    logoPath: null,
    explorer: explorerOf(refund.network),
    ...(options.form ? { form: options.form } : {}),
    ...(options.addressFixed ? { addressFixed: true } : {}),
  })
}

describe('the page awaiting an address', () => {
  const html = render(view('awaiting_address'))

  it('names the shop, the amount and asset, the network and token standard, the token and the reason', () => {
    expect(html).toContain('<html lang="en">')
    expect(html).toContain('<title>Refund from Acme Store</title>')
    expect(html).toContain('<h1>Refund from Acme Store</h1>')
    expect(html).toContain(
      '<dt>Amount</dt><dd><span class="mono amount" id="amount">10.5</span> <span class="amount">USDT</span></dd>',
    )
    expect(html).toContain('<dt>Network</dt><dd>TRON · TRC20</dd>')
    expect(html).toContain(
      `<dt>USDT token contract</dt><dd><span class="mono" id="token-contract">${CONTRACT}</span>`,
    )
    expect(html).toContain('<dt>Reason</dt><dd><span id="reason">Order #1042 returned</span></dd>')
    expect(html).toContain('Tell us where to send your USDT.')
    expect(html).toContain('<span class="mono">6f1c2e4a</span>')
  })

  it('has a labelled address field with its hint and the exchange warning read with it, posting to the confirmation step', () => {
    expect(html).toContain('<form method="post" action="/refund/TOKEN/address?lang=en" novalidate>')
    expect(html).toContain('<label for="address">Your USDT address on TRON (TRC20)</label>')
    expect(html).toContain(
      '<p class="hint" id="address-hint">A TRON address starts with T and has 34 letters and digits.</p>',
    )
    expect(html).toMatch(
      /<input type="text" id="address" name="address" value="" required maxlength="128" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="address-hint exchange-warning">/,
    )
    expect(html).toContain(
      'An exchange deposit address may not credit a refund: the exchange may not see it as yours.',
    )
    expect(html).not.toContain('aria-invalid')
    expect(html).not.toContain('id="given-address"')
    // no script at all: nothing for the CSP to allow
    expect(html).not.toContain('<script')
  })

  it('ties a refusal to the field: the message, aria-invalid, the focus, the title, and the value kept', () => {
    const refused = render(view('awaiting_address'), { form: { value: 'T<not>', problem: 'malformed' } })
    expect(refused).toContain('<title>Error: Refund from Acme Store</title>')
    expect(refused).toContain(
      '<p class="error" id="address-error"><span class="visually-hidden">Error: </span>This is not a TRON address. A TRON address starts with T and has 34 letters and digits. Copy it from your wallet again.</p>',
    )
    expect(refused).toContain(
      'value="T&lt;not&gt;" required maxlength="128" autocomplete="off" autocapitalize="none" spellcheck="false" aria-describedby="address-hint address-error exchange-warning" aria-invalid="true" autofocus>',
    )
    const empty = render(view('awaiting_address'), { form: { value: '', problem: 'missing' } })
    expect(empty).toContain('Enter the address to receive the refund.')
  })

  it('says what a Solana address looks like, with the mint, on Solana', () => {
    const solana = render(
      view('awaiting_address', {
        network: 'SOLANA_DEVNET',
        chain: 'SOLANA',
        tokenStandard: 'SPL',
        currency: 'USDC',
        tokenContract: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
      }),
      { form: { value: 'x', problem: 'malformed' } },
    )
    expect(solana).toContain('<dt>USDC token mint</dt>')
    expect(solana).toContain('<label for="address">Your USDC address on SOLANA_DEVNET (SPL)</label>')
    expect(solana).toContain(
      'This is not a SOLANA_DEVNET address. A Solana address has 32 to 44 letters and digits (no 0, O, I or l): your wallet address, not a token account.',
    )
  })

  it('reads in German', () => {
    const german = render(view('awaiting_address'), {
      language: 'de',
      form: { value: 'x', problem: 'malformed' },
    })
    expect(german).toContain('<html lang="de">')
    expect(german).toContain('<title>Fehler: Rückerstattung von Acme Store</title>')
    expect(german).toContain('<label for="address">Ihre USDT-Adresse auf TRON (TRC20)</label>')
    expect(german).toContain('Das ist keine TRON-Adresse.')
    expect(german).toContain('Eine Einzahlungsadresse einer Börse')
    expect(german).toContain('<button type="submit">Weiter</button>')
  })

  it('escapes the reason and strips what reorders text, and goes without a shop name', () => {
    const html = render(view('awaiting_address', { reason: '<b>late</b>\u202Eevil' }), { merchantName: null })
    expect(html).toContain('<span id="reason">&lt;b&gt;late&lt;/b&gt;evil</span>')
    expect(html).toContain('<h1>Refund</h1>')
    expect(html).not.toContain('initials')
    expect(render(view('awaiting_address', { reason: null }))).not.toContain('<dt>Reason</dt>')
  })
})

describe('the confirmation step', () => {
  const input = {
    language: 'en' as const,
    texts: refundClaimTexts.en,
    path: '/refund/TOKEN',
    refund: view('awaiting_address'),
    merchantName: 'Acme Store',
    logoPath: null,
    explorer: explorerOf('TRON'),
    address: GIVEN,
  }

  it('shows the address back with the warning, a form that gives it and one that changes it', () => {
    const html = renderRefundConfirmPage(input)
    expect(html).toContain('<title>Check the address</title>')
    expect(html).toContain('10.5 USDT will be sent to this address:')
    expect(html).toContain(`<p class="mono address confirm-address" id="confirm-address">${GIVEN}</p>`)
    expect(html).toContain('Once confirmed, the address cannot be changed.')
    expect(html).toContain(
      `<form method="post" action="/refund/TOKEN/confirm?lang=en">\n    <input type="hidden" name="address" value="${GIVEN}">\n    <button type="submit" aria-describedby="confirm-address confirm-warning">Yes, send the refund to this address</button>`,
    )
    expect(html).toContain('<input type="hidden" name="change" value="1">')
    expect(html).toContain('No, change the address</button>')
  })

  it('reads in German', () => {
    const html = renderRefundConfirmPage({ ...input, language: 'de', texts: refundClaimTexts.de })
    expect(html).toContain('<title>Adresse prüfen</title>')
    expect(html).toContain('Ja, an diese Adresse senden')
    expect(html).toContain('Nach der Bestätigung lässt sich die Adresse nicht mehr ändern.')
  })
})

describe('the pages after the address', () => {
  it.each([
    ['ready', 'Your refund is on its way: it will be sent soon.', 'Ihre Rückerstattung ist unterwegs'],
    ['sending', 'Your refund is on its way: it will be sent soon.', 'Ihre Rückerstattung ist unterwegs'],
    ['sent', 'Your refund has been sent.', 'Ihre Rückerstattung wurde gesendet.'],
    ['completed', 'Your refund has arrived.', 'Ihre Rückerstattung ist angekommen.'],
    ['failed', 'The refund could not be sent.', 'Die Rückerstattung konnte nicht gesendet werden.'],
    ['canceled', 'This refund was canceled.', 'Diese Rückerstattung wurde storniert.'],
  ] as const)('%s: says what became of it, with the address given and no form', (status, english, german) => {
    const html = render(view(status))
    expect(html).toContain(`<main id="refund" data-state="${status}">`)
    expect(html).toContain(english)
    expect(html).toContain(
      `<dt>Your address</dt><dd><span class="mono address" id="given-address">${GIVEN}</span>`,
    )
    expect(html).toContain('TRON · TRC20')
    expect(html).not.toContain('<form')
    expect(render(view(status), { language: 'de' })).toContain(german)
  })

  it('sent and completed: the transaction, linked to the explorer as the checkout links it', () => {
    for (const status of ['sent', 'completed'] as const) {
      const html = render(view(status))
      expect(html).toContain(
        `<li><span class="mono tx-hash">${HASH}</span> <a href="https://tronscan.org/#/transaction/${HASH}" rel="noopener noreferrer">View on Tronscan</a></li>`,
      )
    }
    expect(render(view('sent'))).toContain('It arrives once the network has confirmed the transaction below.')
    const devnet = render(view('completed', { network: 'SOLANA_DEVNET', chain: 'SOLANA' }))
    expect(devnet).toContain(`https://explorer.solana.com/tx/${HASH}?cluster=devnet`)
    // a network without a known explorer: the hash alone
    const unknown = render(view('completed', { network: 'TRON_SHASTA' }))
    expect(unknown).toContain(`<li><span class="mono tx-hash">${HASH}</span></li>`)
  })

  it('failed and canceled: whom to turn to', () => {
    expect(render(view('failed'))).toContain('Acme Store will contact you or send it again.')
    expect(render(view('failed'), { merchantName: null })).toContain(
      'The shop will contact you or send it again.',
    )
    expect(render(view('failed'), { language: 'de' })).toContain(
      'Acme Store meldet sich bei Ihnen oder sendet sie erneut.',
    )
    expect(render(view('canceled'))).toContain(
      'Contact Acme Store with the reference below if you have questions.',
    )
    // canceled before an address was given: none shown
    expect(render(view('canceled', { address: null }))).not.toContain('id="given-address"')
  })

  it('says, when an address came after one was given, that it cannot change', () => {
    const html = render(view('ready'), { addressFixed: true })
    expect(html).toContain(
      '<p class="error" id="address-fixed" role="alert">An address has already been given for this refund. It cannot be changed.</p>',
    )
  })
})

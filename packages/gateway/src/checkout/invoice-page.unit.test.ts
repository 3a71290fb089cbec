// The invoice's page as HTML (docs/api.md, "The invoice's page"): what it shows open and closed, in
// English and German, and that nothing the merchant wrote reaches the markup unescaped.

import type { OpenInvoice } from '@chainpay/domain'
import { describe, expect, it } from 'vitest'
import { checkoutTexts } from './checkout-texts.js'
import { renderInvoicePage } from './invoice-page.js'
import { invoiceTexts, networkName } from './invoice-texts.js'

const invoice = (overrides: Partial<OpenInvoice> = {}): OpenInvoice => ({
  status: 'open',
  created: {
    invoiceId: '0b7e4f1e-7c53-4a4e-8a57-8f0e1e0c2d11',
    merchantId: 'mer_a',
    idempotencyKey: 'order-1',
    requestFingerprint: 'f',
    priceAmount: '19.99',
    priceCurrency: 'EUR',
    accepted: [
      { currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' },
      { currency: 'SOL', network: 'SOLANA_DEVNET', tokenStandard: 'NATIVE' },
    ],
    description: '<b>Order</b> 1',
    metadata: {},
    callbackUrl: null,
    successRedirectUrl: 'https://shop.example/thanks',
    cancelRedirectUrl: 'https://shop.example/cart',
    createdAt: '2030-01-15T12:00:00.000Z',
    expiresAt: '2030-01-15T13:00:00.000Z',
  },
  picks: [],
  paidBy: null,
  closedAt: null,
  ...overrides,
})

const render = (language: 'en' | 'de', value: OpenInvoice, now = '2030-01-15T12:15:00.000Z') =>
  renderInvoicePage({
    language,
    texts: invoiceTexts[language],
    checkoutTexts: checkoutTexts[language],
    path: '/pay/invoice/TOKEN',
    invoice: value,
    merchantName: 'Acme & Co',
    choices: value.created.accepted.map((asset) => ({
      ...asset,
      networkName: networkName(asset.network, asset.network.endsWith('DEVNET'), language),
    })),
    chosen: null,
    error: null,
    selected: null,
    now: new Date(now),
  })

describe('renderInvoicePage', () => {
  it('shows the price, the accepted assets spelled out as one radio group, the expiry and the rate lock', () => {
    const html = render('en', invoice())
    expect(html).toContain('<span class="price" id="price">€19.99</span>')
    expect(html).toContain('<legend>Choose how to pay</legend>')
    expect(html).toContain('USDT on TRON</span><span class="hint">TRC-20 token')
    expect(html).toContain(
      'SOL on Solana Devnet (test network)</span><span class="hint">the own coin of Solana Devnet',
    )
    expect(html.match(/type="radio" name="asset"/g)).toHaveLength(2)
    expect(html).toContain('value="USDT:TRON"')
    expect(html).toContain('action="/pay/invoice/TOKEN/pick?lang=en"')
    expect(html).toContain('Pay within 45 minutes (by 15 Jan 2030, 13:00 UTC).')
    expect(html).toContain('stays fixed until the invoice expires')
    expect(html).toContain('&lt;b&gt;Order&lt;/b&gt; 1')
    expect(html).toContain('Pay Acme &amp; Co')
    expect(html).not.toContain('<script')
  })

  it('speaks German', () => {
    const html = render('de', invoice())
    expect(html).toContain('<html lang="de">')
    expect(html).toContain('19,99')
    expect(html).toContain('TRC-20-Token')
    expect(html).toContain('Wählen Sie, wie Sie bezahlen')
  })

  it('says a paid, canceled or past-expiry invoice is closed, with no form, and leads back to the shop', () => {
    const paid = render('en', invoice({ status: 'paid', paidBy: 'p', closedAt: '2030-01-15T12:20:00.000Z' }))
    expect(paid).toContain('This invoice is paid. Thank you!')
    expect(paid).toContain('href="https://shop.example/thanks"')
    expect(paid).not.toContain('<form')
    const canceled = render('en', invoice({ status: 'canceled', closedAt: '2030-01-15T12:20:00.000Z' }))
    expect(canceled).toContain('This invoice was canceled.')
    expect(canceled).toContain('href="https://shop.example/cart"')
    // open still, but its time is up: nothing can be picked any more
    const late = render('en', invoice(), '2030-01-15T13:00:01.000Z')
    expect(late).toContain('This invoice has expired.')
    expect(late).not.toContain('<form')
  })
})

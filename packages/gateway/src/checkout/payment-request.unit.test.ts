import { describe, expect, it } from 'vitest'
import {
  boundedWalletText,
  MAX_WALLET_TEXT_CHARACTERS,
  paymentRequestOf,
  qrSvg,
  solanaPayReference,
} from './payment-request.js'

const paymentId = '0b6f3c1e-8d4a-4c2b-9a57-3f1e2d4c5b6a'

describe('paymentRequestOf', () => {
  it('gives TRON wallets the bare address, and no wallet link on a test network', () => {
    const request = paymentRequestOf({
      chain: 'TRON',
      testnet: true,
      paymentId,
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      asset: { contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      amount: '10.5',
      label: 'Acme',
      message: null,
    })
    expect(request).toEqual({ qrText: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', walletLink: null })
  })

  it("links TRON mainnet's customers to Trust Wallet's send route with the TRC20 asset and the amount, the QR code staying the bare address", () => {
    const request = paymentRequestOf({
      chain: 'TRON',
      testnet: false,
      paymentId,
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      asset: { contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' },
      amount: '10.5',
      label: 'Acme',
      message: null,
    })
    expect(request).toEqual({
      qrText: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      walletLink: {
        // Trust Wallet's documented example of USDT on TRON: c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t
        url:
          'https://link.trustwallet.com/send?asset=c195_tTR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' +
          '&address=TJRabPrwbZy45sbavfcjinPJC18kjpRTv8&amount=10.5',
        app: 'trust-wallet',
      },
    })
    const trx = paymentRequestOf({
      chain: 'TRON',
      testnet: false,
      paymentId,
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      asset: { contract: null },
      amount: '3',
      label: null,
      message: null,
    })
    expect(trx.walletLink?.url).toBe(
      'https://link.trustwallet.com/send?asset=c195&address=TJRabPrwbZy45sbavfcjinPJC18kjpRTv8&amount=3',
    )
  })

  it('gives Solana wallets a Solana Pay transfer request to the owner address, with the mint of an SPL token', () => {
    const request = paymentRequestOf({
      chain: 'SOLANA',
      testnet: false,
      paymentId,
      address: 'GvHeR432g7MjN9uKyX3Dzg66TqwrEWgANLnnFZXMeyyj',
      asset: { contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      amount: '0.000001',
      label: 'Acme Store GmbH',
      message: 'Order #1042 & co',
    })
    expect(request.qrText).toBe(
      'solana:GvHeR432g7MjN9uKyX3Dzg66TqwrEWgANLnnFZXMeyyj?amount=0.000001' +
        '&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' +
        `&reference=${solanaPayReference(paymentId)}` +
        '&label=Acme%20Store%20GmbH&message=Order%20%231042%20%26%20co',
    )
    expect(request.walletLink).toEqual({ url: request.qrText, app: 'solana-pay' })
    // a base58 32-byte key, as the Solana Pay specification asks of a reference
    expect(solanaPayReference(paymentId)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{43,44}$/)
  })

  it('leaves spl-token out for SOL', () => {
    const request = paymentRequestOf({
      chain: 'SOLANA',
      testnet: false,
      paymentId,
      address: 'GvHeR432g7MjN9uKyX3Dzg66TqwrEWgANLnnFZXMeyyj',
      asset: { contract: null },
      amount: '1.25',
      label: null,
      message: null,
    })
    expect(request.qrText).not.toContain('spl-token')
    expect(request.qrText).toContain('?amount=1.25&reference=')
  })
})

describe('boundedWalletText', () => {
  it('percent-encodes a short text whole', () => {
    expect(boundedWalletText('Order #1042 & co')).toBe('Order%20%231042%20%26%20co')
  })

  it('keeps the first characters of a long text, never a character or an escape cut in two', () => {
    expect(decodeURIComponent(boundedWalletText('a'.repeat(1000)))).toBe(
      'a'.repeat(MAX_WALLET_TEXT_CHARACTERS),
    )
    // '%' is 3 characters encoded, '€' 9 and '😀' (two UTF-16 units) 12: the encoding stays decodable
    for (const character of ['%', '€', '😀']) {
      const bounded = boundedWalletText(`${'x'.repeat(7)}${character.repeat(1000)}`)
      expect(bounded.length, character).toBeLessThanOrEqual(300)
      const decoded = decodeURIComponent(bounded)
      expect(decoded.startsWith('xxxxxxx'), character).toBe(true)
      expect(decoded.slice(7), character).toBe(character.repeat([...decoded.slice(7)].length))
    }
    expect([...decodeURIComponent(boundedWalletText('😀'.repeat(1000)))]).toHaveLength(25)
  })

  it('writes a lone surrogate as U+FFFD instead of failing', () => {
    expect(boundedWalletText('a\uD800b')).toBe('a%EF%BF%BDb')
  })
})

describe('qrSvg', () => {
  it('draws the Solana Pay request of a payment with the longest description, in non-ASCII', async () => {
    const request = paymentRequestOf({
      chain: 'SOLANA',
      testnet: false,
      paymentId,
      address: 'GvHeR432g7MjN9uKyX3Dzg66TqwrEWgANLnnFZXMeyyj',
      asset: { contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
      amount: '123456.123456',
      label: '😀'.repeat(100),
      message: '€'.repeat(1000),
    })
    expect(await qrSvg(request.qrText)).toMatch(/^<svg /)
  })

  it('draws an SVG with dark modules on white', async () => {
    const svg = await qrSvg('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(svg).toContain('fill="#ffffff"')
    expect(svg).toContain('stroke="#000000"')
  })
})

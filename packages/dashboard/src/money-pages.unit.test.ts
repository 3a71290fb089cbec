import type { RefundView } from '@chainpay/domain'
import { describe, expect, it } from 'vitest'
import { renderApiKeys } from './api-key-pages.js'
import { apiKeyTexts } from './api-key-texts.js'
import type { PageFrame } from './dashboard-pages.js'
import { dashboardTexts } from './dashboard-texts.js'
import { renderRefunds } from './money-pages.js'
import { moneyTexts } from './money-texts.js'

const frame = (role: 'owner' | 'viewer', language: 'en' | 'de' = 'en'): PageFrame => ({
  language,
  texts: dashboardTexts[language],
  base: '/dashboard',
  user: { email: 'a@shop.example', role, csrf: 'token-1' },
  current: 'refunds',
})

const refund: RefundView = {
  refundId: '11111111-1111-4111-8111-111111111111',
  paymentId: '22222222-2222-4222-8222-222222222222',
  merchantId: 'mer_x',
  network: 'TRON',
  currency: 'USDT',
  amount: '1.5',
  address: null,
  status: 'awaiting_address',
  txHash: null,
  networkFee: null,
  failureReason: null,
  createdAt: '2030-01-15T12:00:00.000Z',
  updatedAt: '2030-01-15T12:00:00.000Z',
  claimUrl: 'https://pay.shop.example/refund/t"<x>',
  reason: null,
}

const page = (role: 'owner' | 'viewer', language: 'en' | 'de' = 'en') =>
  renderRefunds(frame(role, language), moneyTexts[language], {
    balances: [],
    refunds: [refund],
    payouts: [],
    status: '',
    statuses: ['ready'],
    mayMoveMoney: role === 'owner',
    idempotencyKey: 'key-1',
  })

describe('refunds and payouts page', () => {
  it('given an owner, then the payout form carries the token and a fresh idempotency key, and a waiting refund a cancel', () => {
    const owner = page('owner')
    expect(owner).toContain('action="/dashboard/payouts?lang=en"')
    expect(owner).toContain('<input type="hidden" name="idempotencyKey" value="key-1">')
    expect(owner).toContain(`action="/dashboard/refunds/${refund.refundId}/cancel?lang=en"`)
    // a claim link is a value like any other: escaped
    expect(owner).toContain('href="https://pay.shop.example/refund/t&quot;&lt;x&gt;"')
    expect(owner).not.toMatch(/<script|style=/)
  })
  it('given a viewer, then the list without a form that moves money', () => {
    const viewer = page('viewer')
    expect(viewer).toContain(refund.refundId)
    expect(viewer).not.toContain('/dashboard/payouts?')
    expect(viewer).not.toContain('/cancel')
    expect(viewer).not.toContain('href="/dashboard/api-keys"')
  })
  it('given German, then the page and its navigation speak it', () => {
    const german = page('owner', 'de')
    expect(german).toContain('<h1>Erstattungen und Auszahlungen</h1>')
    expect(german).toContain('>API-Schlüssel<')
  })
})

describe('API keys page', () => {
  it('given a new key, then its secret shown with the warning; a revoked key has no form', () => {
    const keys = renderApiKeys(frame('owner'), apiKeyTexts.en, {
      keys: [
        {
          apiKey: 'ck_a',
          createdAt: '2030-01-15T12:00:00.000Z',
          revokedAt: null,
          expiresAt: null,
          status: 'active',
        },
        {
          apiKey: 'ck_b',
          createdAt: '2030-01-15T12:00:00.000Z',
          revokedAt: '2030-01-15T13:00:00.000Z',
          expiresAt: null,
          status: 'revoked',
        },
      ],
      issued: { apiKey: 'ck_a', apiSecret: 'cs_secret' },
    })
    expect(keys).toContain('id="new-secret">cs_secret<')
    expect(keys).toContain('it is shown this once')
    expect(keys).toContain('action="/dashboard/api-keys/ck_a/roll?lang=en"')
    expect(keys).not.toContain('/dashboard/api-keys/ck_b/')
  })
})

import { describe, expect, it } from 'vitest'
import {
  type PageFrame,
  renderPaymentDetail,
  renderPayments,
  renderSessions,
  renderSignIn,
} from './dashboard-pages.js'
import { dashboardTexts } from './dashboard-texts.js'

const frame = (overrides: Partial<PageFrame> = {}): PageFrame => ({
  language: 'en',
  texts: dashboardTexts.en,
  base: '/dashboard',
  ...overrides,
})
const signedIn = (role: 'owner' | 'developer' | 'viewer') =>
  frame({ user: { email: 'a@shop.example', role, csrf: 'token-1' }, current: 'payments' })

describe('dashboard pages', () => {
  it('given a signed-in viewer, then the navigation has no owner pages and sign-out carries the CSRF token', () => {
    const page = renderPayments(signedIn('viewer'), {
      filters: { q: '', status: '', network: '', currency: '', createdFrom: '', createdTo: '' },
      statuses: ['pending'],
      rows: [],
      nextHref: null,
    })
    expect(page).not.toContain('/dashboard/users')
    expect(page).not.toContain('/dashboard/audit')
    expect(page).toContain('<input type="hidden" name="csrf" value="token-1">')
    expect(page).toContain('href="/dashboard/payments" aria-current="page"')
    expect(page).not.toMatch(/<script|style=/)
  })

  it('given an owner, then users and the audit log are in the navigation', () => {
    const page = renderSessions(signedIn('owner'), [], 'h')
    expect(page).toContain('href="/dashboard/users"')
    expect(page).toContain('href="/dashboard/audit"')
  })

  it('given values a merchant or a browser chose, when shown, then they are escaped', () => {
    const page = renderPaymentDetail(signedIn('owner'), {
      fields: [['Metadata', '{"order":"<script>alert(1)</script>"}', true]],
      checkoutUrl: 'https://pay.example.com/pay/x"onmouseover="y',
      history: [
        { type: 'payment.created', occurredAt: '2030-01-01T00:00:00.000Z', data: { reason: '<img src=x>' } },
      ],
    })
    expect(page).not.toContain('<script>alert')
    expect(page).not.toContain('<img src=x>')
    expect(page).toContain('&lt;script&gt;')
    expect(page).toContain('x&quot;onmouseover=&quot;y')
    const sessions = renderSessions(
      signedIn('viewer'),
      [
        {
          sessionHash: 'a'.repeat(64),
          userId: 'u',
          merchantId: 'm',
          createdAt: '2030-01-01T00:00:00.000Z',
          lastSeenAt: '2030-01-01T00:00:00.000Z',
          userAgent: '"><script>x</script>',
          revokedAt: null,
        },
      ],
      'b',
    )
    expect(sessions).not.toContain('<script>x')
  })

  it('given German, then the page says so and reads German', () => {
    const page = renderSignIn(frame({ language: 'de', texts: dashboardTexts.de }))
    expect(page).toContain('<html lang="de">')
    expect(page).toContain('Anmelden')
    expect(page).toContain('autocomplete="one-time-code"')
  })
})

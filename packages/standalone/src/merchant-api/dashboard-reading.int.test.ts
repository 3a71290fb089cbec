// Invoices, deposits and settings on the merchant's dashboard (docs/dashboard.md, "Invoices",
// "Deposits", "Settings") over the gateway app on the standalone shape's SQLite adapters: a viewer
// sees each page, read through what the merchant API's invoice and deposit routes read; another
// merchant's invoice is 404; the pages render in German; every value the merchant or a customer
// chose is escaped; nothing on them is a form that changes anything.

import { defaultAssetRegistry, type OpenDeposit } from '@chainpay/domain'
import { createDepositAddressHandler, createInvoiceCommandHandler } from '@chainpay/payment-command'
import { generateSecretKey } from '@chainpay/platform'
import { createCheckoutLinks } from '@chainpay/service-kit'
import {
  createSqliteAddressAllocator,
  createSqliteDepositAddressReadModel,
  createSqliteDepositReadModel,
  createSqliteInvoiceReadModel,
} from '@chainpay/store-sqlite'
import {
  createAddressDeriver,
  merchantWalletPublicParts,
  walletFromMnemonic,
  walletKeyIdOf,
} from '@chainpay/wallet'
import type { LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  FIXTURE_PUBLIC_URL,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const FORM = {
  origin: 'null',
  'sec-fetch-site': 'same-origin',
  'content-type': 'application/x-www-form-urlencoded',
}
const PASSWORD = 'a long passphrase for tests'
const API = '/api/merchant/v1'
const OPERATOR = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)

let fixture: MerchantApiFixture
let deposits: ReturnType<typeof createSqliteDepositReadModel>
let invoiceReadModel: ReturnType<typeof createSqliteInvoiceReadModel>
beforeEach(async () => {
  fixture = await openMerchantApiFixture({
    invoices: async ({ db, eventStore, merchants, payments, clock, logger }) => {
      invoiceReadModel = createSqliteInvoiceReadModel(db)
      return {
        invoiceCommands: createInvoiceCommandHandler({
          eventStore,
          merchants,
          registry: defaultAssetRegistry,
          policy: { allowInsecureCallbackUrls: false, priceCurrencies: ['USD'] },
          payments,
          clock,
          logger,
        }),
        invoiceReadModel,
        invoiceLinks: createCheckoutLinks({
          publicUrl: FIXTURE_PUBLIC_URL,
          keys: generateSecretKey(),
          kind: 'invoice',
        }),
      }
    },
    // the merchant API's deposit addresses as deposit-addresses.int.test.ts composes them
    depositAddresses: async (parts) => ({
      depositAddressCommands: createDepositAddressHandler({
        eventStore: parts.eventStore,
        merchants: parts.merchants,
        allocator: createSqliteAddressAllocator(parts.db),
        operator: {
          deriveDepositAddress: createAddressDeriver(OPERATOR).deriveDepositAddress,
          keyIdOf: (chain) => walletKeyIdOf(merchantWalletPublicParts(OPERATOR), chain),
        },
        registry: defaultAssetRegistry,
        clock: parts.clock,
        logger: parts.logger,
      }),
      depositAddressReadModel: createSqliteDepositAddressReadModel(parts.db),
    }),
    deposits: async ({ db }) => {
      deposits = createSqliteDepositReadModel(db)
      return { depositReadModel: deposits }
    },
  })
})
afterEach(async () => {
  await fixture.close()
})

const merchantId = () => fixture.merchant.merchant.merchantId
const pathOf = (url: string) => new URL(url).pathname
const post = (url: string, fields: Record<string, string>, cookie: string) =>
  fixture.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, cookie },
    payload: new URLSearchParams(fields).toString(),
  })
const get = (url: string, cookie: string) => fixture.app.inject({ method: 'GET', url, headers: { cookie } })
const cookieOf = (response: LightMyRequestResponse) =>
  String(response.headers['set-cookie']).split(';')[0] as string

/** a viewer added by the operator, set up through the link and signed in: the session cookie */
async function viewer(): Promise<string> {
  const email = 'viewer@shop.example'
  const added = await fixture.adminApp.inject({
    method: 'POST',
    url: `/admin/v1/merchants/${merchantId()}/users`,
    headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role: 'viewer' }),
  })
  expect(added.statusCode, added.body).toBe(201)
  const setup = pathOf(json<{ setupUrl: string }>(added).setupUrl)
  const done = await post(setup, { password: PASSWORD, confirmation: PASSWORD }, '')
  expect(done.statusCode, done.body).toBe(303)
  const response = await post('/dashboard/sign-in', { email, password: PASSWORD }, '')
  expect(response.statusCode, response.body).toBe(303)
  return cookieOf(response)
}

async function createInvoice(credentials = fixture.merchant, description = 'A mug'): Promise<string> {
  const body = JSON.stringify({
    priceAmount: '25.00',
    priceCurrency: 'USD',
    description,
    idempotencyKey: `inv-${description}-${credentials.apiKey}`,
  })
  const response = await fixture.send('POST', `${API}/invoices`, { body, credentials })
  expect(response.statusCode, response.body).toBe(201)
  return json<{ invoiceId: string }>(response).invoiceId
}

/** the customer's deposit address through the merchant API, and a confirmed USDT deposit of 12.5 at it as the projection leaves it */
async function seedDeposit(merchantUserId: string): Promise<string> {
  const at = '2030-01-15T12:05:00.000Z'
  const created = await fixture.send('POST', `${API}/deposit-addresses`, {
    body: JSON.stringify({ merchantUserId, network: 'TRON' }),
  })
  expect(created.statusCode, created.body).toBe(201)
  const address = json<{ address: string }>(created).address
  const state: OpenDeposit = {
    status: 'confirmed',
    detected: {
      depositId: 'a'.repeat(32),
      merchantId: merchantId(),
      merchantUserId,
      network: 'TRON',
      currency: 'USDT',
      decimals: 6,
      address,
      txHash: 'f'.repeat(64),
      transferIndex: 0,
      amountUnits: '12500000',
      feeUnits: '125000',
      netUnits: '12375000',
      feeBps: 100,
      fixedFeeUnits: '0',
      blockHeight: 100,
      blockTime: at,
      confirmations: 20,
      requiredConfirmations: 20,
      detectedAt: at,
    },
    confirmations: 20,
    blockHeight: 100,
    confirmedAt: at,
    dropReason: null,
    updatedAt: at,
  }
  await deposits.save({ depositId: state.detected.depositId, revision: 2, state })
  return address
}

describe("the dashboard's invoices, deposits and settings", () => {
  it('a viewer sees the invoices, an invoice with its picks, and another merchant’s invoice is 404', async () => {
    const cookie = await viewer()
    const invoiceId = await createInvoice(fixture.merchant, 'Mug <b>"Tom & Jerry"</b>')
    const list = await get('/dashboard/invoices?lang=en', cookie)
    expect(list.statusCode, list.body).toBe(200)
    expect(list.body).toContain(`href="/dashboard/invoices/${invoiceId}?lang=en"`)
    expect(list.body).toContain('25.00 USD')
    // the merchant's text, escaped
    expect(list.body).toContain('Mug &lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;')
    expect(list.body).not.toContain('<b>"Tom')
    // the status filter: a canceled one only with status=canceled
    const open = await get('/dashboard/invoices?status=canceled&lang=en', cookie)
    expect(open.body).not.toContain(invoiceId)
    expect(open.body).toContain('No invoices.')

    const detail = await get(`/dashboard/invoices/${invoiceId}?lang=en`, cookie)
    expect(detail.statusCode, detail.body).toBe(200)
    expect(detail.body).toContain('The customer has not picked an asset yet.')
    expect(detail.body).toContain('/pay/invoice/')
    // read-only: the sign-out is the page's one form
    expect(detail.body.match(/<form/g)?.length).toBe(1)

    // the customer picked USDT on TRON on the invoice's page: its payment, as the projection records the pick
    const payment = json<{ paymentId: string }>(
      await fixture.create({ amount: '25', currency: 'USDT', network: 'TRON' }),
    ).paymentId
    const stored = await invoiceReadModel.get(invoiceId)
    if (stored === null) throw new Error('the invoice is not in the read model')
    const pickedAt = '2030-01-15T12:01:00.000Z'
    await invoiceReadModel.save({
      ...stored,
      revision: stored.revision + 1,
      state: {
        ...stored.state,
        picks: [{ paymentId: payment, currency: 'USDT', network: 'TRON', pickedAt }],
      },
    })
    const picked = await get(`/dashboard/invoices/${invoiceId}?lang=de`, cookie)
    expect(picked.statusCode, picked.body).toBe(200)
    expect(picked.body).toContain(`href="/dashboard/payments/${payment}?lang=de"`)
    expect(picked.body).toContain('Die Auswahl des Kunden, älteste zuerst')
    expect(picked.body).toContain('2030-01-15 12:01:00')

    const othersInvoice = await createInvoice(fixture.otherMerchant, 'theirs')
    const foreign = await get(`/dashboard/invoices/${othersInvoice}?lang=en`, cookie)
    expect(foreign.statusCode).toBe(404)
    expect((await get('/dashboard/invoices/not-a-uuid', cookie)).statusCode).toBe(404)
    expect((await get('/dashboard/invoices?lang=en', cookie)).body).not.toContain(othersInvoice)
  })

  it('pages the invoices newest first, 25 at a time, as the money pages do', async () => {
    const cookie = await viewer()
    const ids: string[] = []
    for (let index = 0; index < 27; index += 1) {
      ids.push(await createInvoice(fixture.merchant, `item ${index}`))
      fixture.clock.advance(1000)
    }
    const first = await get('/dashboard/invoices?lang=en', cookie)
    const older = /href="(\/dashboard\/invoices\?[^"]*after=[^"]+)"/.exec(first.body)?.[1]
    expect(older).toBeDefined()
    expect(first.body).toContain(ids[26])
    expect(first.body).not.toContain(ids[1])
    const second = await get((older as string).replaceAll('&amp;', '&'), cookie)
    expect(second.body).toContain(ids[0])
    expect(second.body).toContain(ids[1])
    expect(second.body).not.toContain(ids[26])
  })

  it('a viewer sees the deposit addresses and deposits, filtered by customer and status, in German too', async () => {
    const cookie = await viewer()
    const address = await seedDeposit('customer-8841')
    const page = await get('/dashboard/deposits?lang=en', cookie)
    expect(page.statusCode, page.body).toBe(200)
    expect(page.body).toContain(address)
    expect(page.body).toContain('12.5 USDT')
    expect(page.body).toContain('12.375')
    expect(page.body).toContain('customer-8841')
    const other = await get('/dashboard/deposits?merchantUserId=someone-else&lang=en', cookie)
    expect(other.body).toContain('No deposit addresses.')
    expect(other.body).toContain('No deposits.')
    const dropped = await get('/dashboard/deposits?status=dropped&lang=en', cookie)
    expect(dropped.body).toContain(address)
    expect(dropped.body).toContain('No deposits.')
    const german = await get('/dashboard/deposits?lang=de', cookie)
    expect(german.statusCode).toBe(200)
    expect(german.body).toContain('<html lang="de">')
    expect(german.body).toContain('Einzahlungsadressen')
  })

  it('a viewer sees the settings the operator keeps, escaped, with where to change them', async () => {
    const cookie = await viewer()
    await fixture.merchants.updateMerchant(
      merchantId(),
      { displayName: 'Acme <script>alert(1)</script>', underpaymentTolerancePercent: '1.5' },
      fixture.clock.now().toISOString(),
    )
    const page = await get('/dashboard/settings?lang=en', cookie)
    expect(page.statusCode, page.body).toBe(200)
    expect(page.body).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt;')
    expect(page.body).not.toContain('<script>alert')
    expect(page.body).toContain('1.5 %')
    expect(page.body).toContain('scripts/admin')
    expect(page.body.match(/<form/g)?.length).toBe(1)
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    const german = await get('/dashboard/settings?lang=de', cookie)
    expect(german.body).toContain('Toleranz bei Unterzahlung')
    for (const path of ['invoices', 'deposits', 'settings']) {
      expect(page.body).toContain(`href="/dashboard/${path}"`)
    }
  })
})

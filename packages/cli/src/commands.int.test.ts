import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { createRootLogger, createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import {
  createSqliteDeliveryStore,
  createSqliteMerchantStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { USAGE } from './commands.js'
import { type CliRun, runCli } from './testing/run-cli.js'

const TOKEN = 'cli-test-admin-token-0123456789abcdef'

let dir: string
let db: DatabaseSync
let merchants: ReturnType<typeof createSqliteMerchantStore>
let deliveries: ReturnType<typeof createSqliteDeliveryStore>
let app: Awaited<ReturnType<typeof buildAdminApp>>
let url: string

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-cli-'))
  db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  merchants = createSqliteMerchantStore(db)
  deliveries = createSqliteDeliveryStore(db)
  const secretBox = createSecretBox(generateSecretKey())
  app = await buildAdminApp({
    merchants,
    secretBox,
    adminToken: TOKEN,
    deliveries,
    clock: systemClock,
    logger: createRootLogger({ service: 'cli-test', level: 'silent' }),
    authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
  })
  url = await app.listen({ host: '127.0.0.1', port: 0 })
})

afterEach(async () => {
  await app.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function cli(argv: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN, ...env })
}

async function createdMerchant(...extra: string[]) {
  const run = await cli(['--json', 'merchants', 'create', '--name', 'Corner Shop', ...extra])
  expect(run.code, run.err.join('\n')).toBe(0)
  return JSON.parse(run.out.join('\n')) as {
    merchant: { merchantId: string; name: string; webhookUrl: string | null; feePolicy: { feeBps: number } }
    apiKey: string
    apiSecret: string
    webhookSecret: string
  }
}

describe('merchants create', () => {
  it('creates a merchant and prints its secrets once, saying they will not be shown again', async () => {
    const run = await cli(['merchants', 'create', '--name', 'Corner Shop', '--fee-bps', '150'])
    expect(run.code).toBe(0)
    expect(run.err).toEqual([])
    const text = run.out.join('\n')
    const merchantId = /Merchant: +(\S+)/.exec(text)?.[1]
    expect(merchantId).toMatch(/^mer_/)
    expect(text).toMatch(/Name: +Corner Shop/)
    expect(text).toMatch(/Fees: +150 bps/)
    expect(text).toMatch(/API key: +ck_\S+/)
    expect(text).toMatch(/API secret: +cs_\S+/)
    expect(text).toMatch(/Webhook secret: +whsec_\S+/)
    expect(run.out.at(-1)).toBe('These secrets will not be shown again: store them now.')
    const stored = await merchants.getMerchant(merchantId ?? '')
    expect(stored).toMatchObject({ name: 'Corner Shop', feePolicy: { feeBps: 150, fixedFees: {} } })
  })

  it('prints the answer as JSON with --json, the notice going to stderr', async () => {
    const run = await cli([
      'merchants',
      'create',
      '--json',
      '--name',
      'Shop',
      '--webhook-url',
      'https://shop.example/h',
    ])
    expect(run.code).toBe(0)
    const created = JSON.parse(run.out.join('\n'))
    expect(created.merchant).toMatchObject({ name: 'Shop', webhookUrl: 'https://shop.example/h' })
    expect(created.apiSecret).toMatch(/^cs_/)
    expect(run.err).toEqual(['These secrets will not be shown again: store them now.'])
  })

  it('reports what the API refused, with exit code 1', async () => {
    const run = await cli(['merchants', 'create', '--name', 'Shop', '--webhook-url', 'http://shop.example/h'])
    expect(run.code).toBe(1)
    expect(run.err).toEqual(['error: webhookUrl: must use https (VALIDATION_ERROR, HTTP 400)'])
    const missingName = await cli(['merchants', 'create'])
    expect(missingName).toMatchObject({ code: 1, err: ['error: merchants create: --name is required'] })
    const badFee = await cli(['merchants', 'create', '--name', 'x', '--fee-bps', 'ten'])
    expect(badFee).toMatchObject({ code: 1, err: ["error: --fee-bps: expected an integer, got 'ten'"] })
  })
})

describe('merchants list and show', () => {
  it('lists merchants', async () => {
    expect((await cli(['merchants', 'list'])).out).toEqual(['no merchants'])
    const created = await createdMerchant()
    const run = await cli(['merchants', 'list'])
    expect(run.code).toBe(0)
    expect(run.out).toEqual([`${created.merchant.merchantId}  Corner Shop  fee 100 bps  webhook none`])
    const asJson = JSON.parse((await cli(['merchants', 'list', '--json'])).out.join('\n'))
    expect(asJson.merchants).toHaveLength(1)
  })

  it('shows a merchant with its keys, without secrets', async () => {
    const created = await createdMerchant()
    const run = await cli(['merchants', 'show', created.merchant.merchantId])
    expect(run.code).toBe(0)
    const text = run.out.join('\n')
    expect(text).toContain(`Merchant:       ${created.merchant.merchantId}`)
    expect(text).toMatch(new RegExp(`  ${created.apiKey}  created \\S+  active`))
    expect(text).not.toContain(created.apiSecret)
    expect(text).not.toContain(created.webhookSecret)
  })

  it('says which merchant does not exist', async () => {
    const run = await cli(['merchants', 'show', 'mer_nope'])
    expect(run).toMatchObject({ code: 1, err: ['error: merchant mer_nope not found (NOT_FOUND, HTTP 404)'] })
  })
})

describe('keys', () => {
  it('issues and revokes keys', async () => {
    const created = await createdMerchant()
    const id = created.merchant.merchantId
    const issued = await cli(['keys', 'issue', id])
    expect(issued.code).toBe(0)
    const apiKey = /API key: +(ck_\S+)/.exec(issued.out.join('\n'))?.[1] ?? ''
    expect(issued.out.join('\n')).toMatch(/API secret: +cs_\S+/)
    expect(issued.out.at(-1)).toBe('These secrets will not be shown again: store them now.')
    expect(await merchants.findApiKey(apiKey)).toMatchObject({ merchantId: id, revokedAt: null })

    const revoked = await cli(['keys', 'revoke', id, created.apiKey])
    expect(revoked.code).toBe(0)
    expect(revoked.out[0]).toMatch(new RegExp(`^Revoked ${created.apiKey} at \\d{4}-`))
    expect((await merchants.findApiKey(created.apiKey))?.revokedAt).not.toBeNull()
    const again = await cli(['keys', 'revoke', id, created.apiKey])
    expect(again.code).toBe(1)
    expect(again.err[0]).toMatch(/^error: no active API key .* \(NOT_FOUND, HTTP 404\)$/)
  })

  it('creates, rolls with an overlap and lists keys, the new secret shown once', async () => {
    const created = await createdMerchant()
    const id = created.merchant.merchantId
    const made = await cli(['keys', 'create', id])
    expect(made.code).toBe(0)
    const second = /API key: +(ck_\S+)/.exec(made.out.join('\n'))?.[1] ?? ''

    const rolled = await cli(['keys', 'roll', id, created.apiKey, '--overlap-hours', '2'])
    expect(rolled.code, rolled.err.join('\n')).toBe(0)
    const text = rolled.out.join('\n')
    const fresh = /API key: +(ck_\S+)/.exec(text)?.[1] ?? ''
    expect(text).toMatch(/API secret: +cs_\S+/)
    expect(text).toMatch(new RegExp(`The old key ${created.apiKey} works until \\S+, then is refused.`))
    expect(rolled.out.at(-1)).toBe('These secrets will not be shown again: store them now.')
    const expiresAt = (await merchants.findApiKey(created.apiKey))?.expiresAt ?? ''
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(2 * 3_600_000 - 60_000)
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(2 * 3_600_000)

    const listed = await cli(['keys', 'list', id])
    expect(listed.code).toBe(0)
    expect(listed.out).toEqual([
      expect.stringMatching(
        new RegExp(`^  ${created.apiKey}  created \\S+  active until ${expiresAt} \\(rolled\\)$`),
      ),
      expect.stringMatching(new RegExp(`^  ${second}  created \\S+  active$`)),
      expect.stringMatching(new RegExp(`^  ${fresh}  created \\S+  active$`)),
    ])
    expect(listed.out.join('\n')).not.toContain('cs_')

    const badOverlap = await cli(['keys', 'roll', id, fresh, '--overlap-hours', '721'])
    expect(badOverlap.code).toBe(1)
    expect(badOverlap.err[0]).toMatch(/^error: .*overlapHours.* \(VALIDATION_ERROR, HTTP 400\)$/)
  })

  it('wants exactly the arguments of the command', async () => {
    const run = await cli(['keys', 'revoke', 'mer_x'])
    expect(run).toMatchObject({
      code: 1,
      err: ['error: expected MERCHANT_ID API_KEY; usage: keys revoke MERCHANT_ID API_KEY'],
    })
  })
})

describe('webhook secret, webhook URL and fee policy', () => {
  it('rotates the webhook secret', async () => {
    const created = await createdMerchant()
    const run = await cli(['webhook-secret', 'rotate', created.merchant.merchantId])
    expect(run.code).toBe(0)
    const secret = /Webhook secret: (whsec_\S+)/.exec(run.out.join('\n'))?.[1]
    expect(secret).toBeDefined()
    expect(secret).not.toBe(created.webhookSecret)
    expect(run.out.at(-1)).toMatch(/will not be shown again/)
  })

  it('sets and clears the webhook URL', async () => {
    const { merchant } = await createdMerchant()
    const set = await cli(['webhook-url', 'set', merchant.merchantId, 'https://shop.example/hooks'])
    expect(set.out).toEqual([`Webhook URL of ${merchant.merchantId}: https://shop.example/hooks`])
    expect((await merchants.getMerchant(merchant.merchantId))?.webhookUrl).toBe('https://shop.example/hooks')
    const cleared = await cli(['webhook-url', 'set', merchant.merchantId, '--clear'])
    expect(cleared.out).toEqual([`Webhook URL of ${merchant.merchantId}: none`])
    expect((await merchants.getMerchant(merchant.merchantId))?.webhookUrl).toBeNull()
  })

  it("sets and clears the display name of the customer's page", async () => {
    const { merchant } = await createdMerchant()
    const set = await cli(['display-name', 'set', merchant.merchantId, 'Acme Store GmbH'])
    expect(set.out).toEqual([`Display name of ${merchant.merchantId}: Acme Store GmbH`])
    expect((await merchants.getMerchant(merchant.merchantId))?.displayName).toBe('Acme Store GmbH')
    const cleared = await cli(['display-name', 'set', merchant.merchantId, '--clear'])
    expect(cleared.out).toEqual([
      `Display name of ${merchant.merchantId}: none (the page shows ${merchant.name})`,
    ])
    expect((await merchants.getMerchant(merchant.merchantId))?.displayName).toBeUndefined()
  })

  it("sets and clears the logo URL of the customer's page", async () => {
    const { merchant } = await createdMerchant()
    const set = await cli(['logo-url', 'set', merchant.merchantId, 'https://cdn.shop.example/logo.png'])
    expect(set.out).toEqual([`Logo URL of ${merchant.merchantId}: https://cdn.shop.example/logo.png`])
    const cleared = await cli(['logo-url', 'set', merchant.merchantId, '--clear'])
    expect(cleared.out).toEqual([`Logo URL of ${merchant.merchantId}: none`])
    expect((await merchants.getMerchant(merchant.merchantId))?.logoUrl).toBeUndefined()
  })

  it('sets the underpayment tolerance, within 0 to 5 percent', async () => {
    const { merchant } = await createdMerchant()
    const set = await cli(['underpayment-tolerance', 'set', merchant.merchantId, '0.50'])
    expect(set.out).toEqual([
      `Underpayment tolerance of ${merchant.merchantId}: 0.5 % (payments created from now on)`,
    ])
    expect((await merchants.getMerchant(merchant.merchantId))?.underpaymentTolerancePercent).toBe('0.5')
    const refused = await cli(['underpayment-tolerance', 'set', merchant.merchantId, '5.01'])
    expect(refused.code).not.toBe(0)
    expect(refused.err.join('\n')).toContain('underpaymentTolerancePercent: must be at most "5"')
    expect((await merchants.getMerchant(merchant.merchantId))?.underpaymentTolerancePercent).toBe('0.5')
  })

  it('sets the fee policy with fixed fees', async () => {
    const { merchant } = await createdMerchant()
    const run = await cli([
      'fee-policy',
      'set',
      merchant.merchantId,
      '--fee-bps',
      '75',
      '--fixed',
      'TRON:USDT=0.5',
      '--fixed',
      'SOLANA:SOL=0.001',
    ])
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(run.out).toEqual([
      `Fee policy of ${merchant.merchantId}: 75 bps + 0.5 TRON:USDT + 0.001 SOLANA:SOL`,
    ])
    expect((await merchants.getMerchant(merchant.merchantId))?.feePolicy).toEqual({
      feeBps: 75,
      fixedFees: { 'TRON:USDT': '0.5', 'SOLANA:SOL': '0.001' },
    })
    const malformed = await cli([
      'fee-policy',
      'set',
      merchant.merchantId,
      '--fee-bps',
      '1',
      '--fixed',
      'USDT=1',
    ])
    expect(malformed).toMatchObject({
      code: 1,
      err: ["error: --fixed: expected NETWORK:CURRENCY=AMOUNT, got 'USDT=1'"],
    })
    const refused = await cli(['fee-policy', 'set', merchant.merchantId, '--fee-bps', '20000'])
    expect(refused).toMatchObject({
      code: 1,
      err: ['error: feeBps: must be at most 10000 (VALIDATION_ERROR, HTTP 400)'],
    })
  })
})

describe('deliveries', () => {
  it("lists a merchant's failed deliveries page by page and redelivers them in bulk", async () => {
    const { merchant } = await createdMerchant()
    const merchantId = merchant.merchantId
    for (let index = 0; index < 3; index++) {
      const deliveryId = `evt-${index}`
      await deliveries.enqueue({
        deliveryId,
        paymentId: `pay-${index}`,
        merchantId,
        eventType: 'payment.confirmed',
        sequence: 0,
        payload: { event: 'payment.confirmed', payment: { id: `pay-${index}` } },
        targetUrl: 'https://shop.example/hooks',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: '2030-01-01T00:00:00.000Z',
        createdAt: `2030-01-01T00:00:0${index}.000Z`,
        deliveredAt: null,
        lastError: null,
      })
      await deliveries.recordAttempt(
        {
          deliveryId,
          attempt: 1,
          at: '2030-01-01T00:00:09.000Z',
          statusCode: 502,
          durationMs: 3,
          error: 'HTTP 502',
        },
        { status: 'failed' },
      )
    }
    const page = await cli(['deliveries', 'list', merchantId, '--status', 'failed', '--limit', '2'])
    expect(page.code, page.err.join('\n')).toBe(0)
    expect(page.out[0]).toBe(
      `evt-2  payment.confirmed  payment pay-2  failed  1 attempt(s)  last error: HTTP 502`,
    )
    expect(page.out[1]).toMatch(/^evt-1 /)
    const cursor = /^next page: --cursor (\S+)$/.exec(page.out[2] ?? '')?.[1] ?? ''
    const next = await cli(['deliveries', 'list', merchantId, '--status', 'failed', '--cursor', cursor])
    expect(next.out).toEqual([expect.stringMatching(/^evt-0 /)])

    const bulk = await cli(['deliveries', 'redeliver-failed', merchantId])
    expect(bulk.code, bulk.err.join('\n')).toBe(0)
    expect(bulk.out).toEqual([`Redelivered 3 failed deliveries of ${merchantId}`])
    expect((await cli(['deliveries', 'list', merchantId, '--status', 'failed'])).out).toEqual([
      'no deliveries',
    ])
    const refused = await cli(['deliveries', 'list', merchantId, '--status', 'lost'])
    expect(refused.code).toBe(1)
  })
})

describe('the command line itself', () => {
  it('prints help with --help and exits 0', async () => {
    const run = await cli(['--help'])
    expect(run).toEqual({ code: 0, out: [USAGE], err: [] })
  })

  it('prints the usage and exits 1 without a command; names an unknown command', async () => {
    expect(await cli([])).toEqual({ code: 1, out: [], err: [USAGE] })
    expect(await cli(['merchants', 'delete', 'x'])).toMatchObject({
      code: 1,
      err: ["error: unknown command 'merchants delete x'; see --help"],
    })
    expect((await cli(['merchants', 'list', '--verbose'])).err[0]).toMatch(
      /^error: Unknown option '--verbose'/,
    )
  })

  it('takes --url and --token-file over the environment; never the token itself on the command line', async () => {
    const tokenFile = join(dir, 'admin-token')
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 })
    const run = await cli(['--url', url, '--token-file', tokenFile, 'merchants', 'list'], {
      CHAINPAY_ADMIN_URL: 'http://127.0.0.1:1',
      CHAINPAY_ADMIN_TOKEN: 'wrong',
    })
    expect(run.code, run.err.join('\n')).toBe(0)
    // the process list shows every argument to every user of the machine
    for (const argv of [
      ['merchants', 'list', '--token', TOKEN],
      ['chain', 'check', '--network', 'TRON', `--token=${TOKEN}`],
    ]) {
      expect(await cli(argv)).toEqual({
        code: 1,
        out: [],
        err: [
          'error: --token would show the admin token to every user of this machine (the process list): set CHAINPAY_ADMIN_TOKEN, or pass --token-file FILE (a file only you can read); scripts/admin reads it from DATA_DIR',
        ],
      })
    }
  })

  it('refuses a token file other users may read, without quoting it', async () => {
    const tokenFile = join(dir, 'admin-token')
    writeFileSync(tokenFile, TOKEN, { mode: 0o644 })
    chmodSync(tokenFile, 0o644)
    const run = await cli(['merchants', 'list', '--token-file', tokenFile], {
      CHAINPAY_ADMIN_TOKEN: undefined,
    })
    expect(run).toEqual({
      code: 1,
      out: [],
      err: [
        `error: --token-file: ${tokenFile} is open to other users (mode 0644): run chmod 600 ${tokenFile}`,
      ],
    })
    expect((await cli(['merchants', 'list', '--token-file', join(dir, 'none')])).err).toEqual([
      `error: --token-file: cannot read ${join(dir, 'none')}: ENOENT`,
    ])
  })

  it('needs a token, and reports a wrong one', async () => {
    expect(await cli(['merchants', 'list'], { CHAINPAY_ADMIN_TOKEN: undefined })).toMatchObject({
      code: 1,
      err: [
        'error: an admin token is required: set CHAINPAY_ADMIN_TOKEN or pass --token-file FILE (scripts/admin reads it from DATA_DIR)',
      ],
    })
    expect(await cli(['merchants', 'list'], { CHAINPAY_ADMIN_TOKEN: 'wrong' })).toMatchObject({
      code: 1,
      err: ['error: Authorization: invalid admin token (INVALID_API_KEY, HTTP 401)'],
    })
  })

  it('says when the admin API cannot be reached', async () => {
    const closed = url
    await app.close()
    app = await buildAdminApp({
      merchants,
      secretBox: createSecretBox(generateSecretKey()),
      adminToken: TOKEN,
      clock: systemClock,
      logger: createRootLogger({ service: 'cli-test', level: 'silent' }),
      authenticator: { invalidate: () => {} },
    })
    const run = await cli(['merchants', 'list', '--url', closed])
    expect(run.code).toBe(1)
    expect(run.err[0]).toMatch(new RegExp(`^error: cannot reach the admin API at ${closed}: ECONNREFUSED$`))
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminApp, createApiKeyAuthenticator, createMerchant } from '@chainpay/admin-api'
import { createDashboardAccounts } from '@chainpay/dashboard'
import { createRootLogger, createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import {
  createSqliteDashboardUserStore,
  createSqliteMerchantStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { type CliRun, runCli } from './testing/run-cli.js'

const TOKEN = 'cli-test-admin-token-0123456789abcdef'

let dir: string
let db: DatabaseSync
let app: Awaited<ReturnType<typeof buildAdminApp>>
let url: string
let merchantId: string
let accounts: ReturnType<typeof createDashboardAccounts>

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-cli-'))
  db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  const merchants = createSqliteMerchantStore(db)
  const secretBox = createSecretBox(generateSecretKey())
  accounts = createDashboardAccounts({
    users: createSqliteDashboardUserStore(db),
    secretBox,
    clock: systemClock,
    publicUrl: 'https://pay.shop.example',
  })
  app = await buildAdminApp({
    merchants,
    secretBox,
    adminToken: TOKEN,
    clock: systemClock,
    logger: createRootLogger({ service: 'cli-test', level: 'silent' }),
    authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
    dashboardUsers: accounts,
  })
  merchantId = (await createMerchant({ merchants, secretBox, clock: systemClock }, { name: 'Shop' })).merchant
    .merchantId
  url = await app.listen({ host: '127.0.0.1', port: 0 })
})

afterEach(async () => {
  await app.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const cli = (argv: string[]): Promise<CliRun> =>
  runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN })

it('users add prints the one-time setup link of a new dashboard user, which opens the setup', async () => {
  const run = await cli([
    'users',
    'add',
    '--merchant',
    merchantId,
    '--email',
    'Owner@Shop.Example',
    '--role',
    'owner',
  ])
  expect(run.code, run.err.join('\n')).toBe(0)
  expect(run.out[0]).toBe(`Added owner@shop.example (owner) to merchant ${merchantId}.`)
  const link = run.out.at(-1) as string
  expect(link).toMatch(/^https:\/\/pay\.shop\.example\/dashboard\/setup\/[A-Za-z0-9_-]{43}$/)
  const user = await accounts.userOfSetupToken(link.split('/').at(-1) as string)
  expect(user).toMatchObject({ email: 'owner@shop.example', role: 'owner', merchantId })
})

it('users add names what is missing or refused', async () => {
  const missing = await cli(['users', 'add', '--merchant', merchantId, '--email', 'a@shop.example'])
  expect(missing.code).toBe(1)
  expect(missing.err).toEqual(['error: users add: --role is required'])
  await cli(['users', 'add', '--merchant', merchantId, '--email', 'a@shop.example', '--role', 'viewer'])
  const twice = await cli([
    'users',
    'add',
    '--merchant',
    merchantId,
    '--email',
    'a@shop.example',
    '--role',
    'viewer',
  ])
  expect(twice.code).toBe(1)
  expect(twice.err.join('\n')).toContain('USER_EXISTS')
})

it('users reset gives a user a new setup link and ends the old password', async () => {
  await cli(['users', 'add', '--merchant', merchantId, '--email', 'a@shop.example', '--role', 'viewer'])
  const run = await cli(['users', 'reset', '--merchant', merchantId, '--email', 'a@shop.example'])
  expect(run.code, run.err.join('\n')).toBe(0)
  expect(run.out[0]).toBe(
    'Reset a@shop.example: the password and the authenticator are cleared, the sessions ended.',
  )
  const user = await accounts.userOfSetupToken((run.out.at(-1) as string).split('/').at(-1) as string)
  expect(user).toMatchObject({ email: 'a@shop.example', passwordHash: null })
  const unknown = await cli(['users', 'reset', '--merchant', merchantId, '--email', 'nobody@shop.example'])
  expect(unknown.code).toBe(1)
  expect(unknown.err.join('\n')).toContain('NOT_FOUND')
})

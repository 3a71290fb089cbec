// chainpay-admin secrets reseal, end to end: the CLI, the gateway's admin API, and the real merchant
// stores (SQLite, and MongoDB's wire protocol on FerretDB). Merchants are made the way an installation
// makes them (the CLI over the admin API), some under the first sealed format, then the key changes.

import { createCipheriv, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildAdminApp, createApiKeyAuthenticator, rotateWebhookSecret } from '@chainpay/admin-api'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import {
  createRootLogger,
  createSecretBox,
  generateAdminToken,
  generateSecretKey,
  type SecretKeys,
  systemClock,
} from '@chainpay/platform'
import { apiSecretContext, type MerchantStore, webhookSecretContext } from '@chainpay/ports'
import {
  createMongoMerchantStore,
  ensureMongoIndexes,
  merchantIndexes,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { createSqliteMerchantStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CliRun, runCli } from './testing/run-cli.js'

const TOKEN = generateAdminToken()

interface OpenedStore {
  store: MerchantStore
  close(): Promise<void>
}

const stores: Record<string, () => Promise<OpenedStore>> = {
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chainpay-reseal-'))
    const db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
    return {
      store: createSqliteMerchantStore(db),
      close: async () => {
        db.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  },
  mongo: async () => {
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('reseal') })
    await ensureMongoIndexes(mongo.db, merchantIndexes)
    return {
      store: createMongoMerchantStore(mongo.db),
      close: async () => {
        await mongo.db.dropDatabase()
        await mongo.close()
      },
    }
  },
}

/** a value as the first sealed format wrote it (v1: AES-256-GCM, no key id, no associated data) */
function sealInFirstFormat(key: string, plain: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv)
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`
}

describe.each(Object.keys(stores))('chainpay-admin secrets reseal on the %s merchant store', (storeName) => {
  const oldKey = generateSecretKey()
  const newKey = generateSecretKey()
  let opened: OpenedStore
  let store: MerchantStore
  let app: Awaited<ReturnType<typeof buildAdminApp>> | undefined
  let url: string

  /** (re)starts the admin API over `merchants` with `keys`, as a gateway restarted with a new configuration */
  async function startGateway(keys: SecretKeys | string, merchants: MerchantStore = store): Promise<void> {
    await app?.close()
    const secretBox = createSecretBox(keys)
    app = await buildAdminApp({
      merchants,
      secretBox,
      adminToken: TOKEN,
      clock: systemClock,
      logger: createRootLogger({ service: 'reseal-test', level: 'silent' }),
      authenticator: createApiKeyAuthenticator({ merchants, secretBox, clock: systemClock }),
    })
    url = await app.listen({ host: '127.0.0.1', port: 0 })
  }

  const cli = (...argv: string[]): Promise<CliRun> =>
    runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN })

  async function createMerchant(name: string) {
    const run = await cli('--json', 'merchants', 'create', '--name', name)
    expect(run.code, run.err.join('\n')).toBe(0)
    const created = JSON.parse(run.out.join('\n'))
    return {
      merchantId: created.merchant.merchantId as string,
      webhookSecret: created.webhookSecret as string,
      keys: { [created.apiKey]: created.apiSecret as string } as Record<string, string>,
    }
  }

  type Issued = Awaited<ReturnType<typeof createMerchant>>

  /** three merchants under the old key: one with a second key and a revoked one, one in the first format */
  async function installationUnderTheOldKey(): Promise<Issued[]> {
    await startGateway(oldKey)
    const first = await createMerchant('First')
    const issued = JSON.parse((await cli('--json', 'keys', 'issue', first.merchantId)).out.join('\n'))
    first.keys[issued.apiKey] = issued.apiSecret
    const [revoked] = Object.keys(first.keys)
    expect((await cli('keys', 'revoke', first.merchantId, revoked ?? '')).code).toBe(0)
    const second = await createMerchant('Second')
    const legacy = await createMerchant('Legacy')
    // as a deployment of the first format holds it
    const [legacyKey = ''] = Object.keys(legacy.keys)
    const webhook = await store.getMerchant(legacy.merchantId)
    const key = await store.findApiKey(legacyKey)
    await store.replaceSealedWebhookSecret(
      legacy.merchantId,
      webhook?.webhookSecret ?? '',
      sealInFirstFormat(oldKey, legacy.webhookSecret),
    )
    await store.replaceSealedApiSecret(
      legacyKey,
      key?.secret ?? '',
      sealInFirstFormat(oldKey, legacy.keys[legacyKey] ?? ''),
    )
    expect((await store.getMerchant(legacy.merchantId))?.webhookSecret).toMatch(/^v1\./)
    return [first, second, legacy]
  }

  /** every stored secret, opened with `keys` alone; what does not open is reported as such */
  async function openEverything(keys: SecretKeys | string) {
    const box = createSecretBox(keys)
    const open = (sealed: string, context: string) => {
      try {
        return box.open(sealed, context)
      } catch {
        return 'UNOPENABLE'
      }
    }
    const opened: Record<string, string> = {}
    const current: Record<string, boolean> = {}
    for (const merchant of await store.listMerchants()) {
      opened[merchant.merchantId] = open(merchant.webhookSecret, webhookSecretContext(merchant.merchantId))
      current[merchant.merchantId] = box.isSealedWithCurrentKey(merchant.webhookSecret)
      for (const key of await store.listApiKeys(merchant.merchantId)) {
        opened[key.apiKey] = open(key.secret, apiSecretContext(key))
        current[key.apiKey] = box.isSealedWithCurrentKey(key.secret)
      }
    }
    return { opened, current }
  }

  const plainSecrets = (merchants: Issued[]) =>
    Object.fromEntries(
      merchants.flatMap((merchant) => [
        [merchant.merchantId, merchant.webhookSecret],
        ...Object.entries(merchant.keys),
      ]),
    )

  async function storedValues(): Promise<string[]> {
    const values: string[] = []
    for (const merchant of await store.listMerchants()) {
      values.push(merchant.webhookSecret)
      for (const key of await store.listApiKeys(merchant.merchantId)) values.push(key.secret)
    }
    return values
  }

  beforeEach(async () => {
    opened = await (stores[storeName] as () => Promise<OpenedStore>)()
    store = opened.store
  })

  afterEach(async () => {
    await app?.close()
    app = undefined
    await opened.close()
  })

  it('re-seals every secret, either format, under the new key; the old key can then go, and a second run changes nothing', async () => {
    const merchants = await installationUnderTheOldKey()
    const secrets = plainSecrets(merchants)
    expect((await openEverything(newKey)).opened).not.toEqual(secrets)

    await startGateway({ current: newKey, previous: [oldKey] })
    const run = await cli('secrets', 'reseal')
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(run.out).toEqual([
      `Current key:     ${createSecretBox(newKey).currentKeyId}`,
      'Webhook secrets: 3 (3 re-sealed, 0 already under the current key)',
      'API secrets:     4 (4 re-sealed, 0 already under the current key)',
      'Endpoint secrets: 0 (0 re-sealed, 0 already under the current key)',
      'Wallet seeds:    0 (0 re-sealed, 0 already under the current key)',
      'Every secret is sealed with the current key: the previous keys can be removed.',
    ])

    // the new key alone opens every secret, each the one issued, bound to its own row
    const afterwards = await openEverything(newKey)
    expect(afterwards.opened).toEqual(secrets)
    expect(Object.values(afterwards.current).every(Boolean)).toBe(true)
    const values = await storedValues()
    expect(values.every((value) => value.startsWith(`v2.${createSecretBox(newKey).currentKeyId}.`))).toBe(
      true,
    )

    await startGateway(newKey)
    const again = await cli('--json', 'secrets', 'reseal')
    expect(again.code, again.err.join('\n')).toBe(0)
    expect(JSON.parse(again.out.join('\n'))).toEqual({
      currentKeyId: createSecretBox(newKey).currentKeyId,
      webhookSecrets: { total: 3, resealed: 0, alreadyCurrent: 3 },
      apiSecrets: { total: 4, resealed: 0, alreadyCurrent: 4 },
      webhookEndpointSecrets: { total: 0, resealed: 0, alreadyCurrent: 0 },
      merchantWalletSeeds: { total: 0, resealed: 0, alreadyCurrent: 0 },
      unopenable: [],
    })
    expect(await storedValues()).toEqual(values)
  })

  it('re-seals under the same key too, moving the first format to the current one', async () => {
    const merchants = await installationUnderTheOldKey()
    const run = await cli('--json', 'secrets', 'reseal')
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(JSON.parse(run.out.join('\n'))).toMatchObject({
      webhookSecrets: { total: 3, resealed: 1, alreadyCurrent: 2 },
      apiSecrets: { total: 4, resealed: 1, alreadyCurrent: 3 },
    })
    expect((await storedValues()).some((value) => value.startsWith('v1.'))).toBe(false)
    expect((await openEverything(oldKey)).opened).toEqual(plainSecrets(merchants))
  })

  it('cut short, leaves every secret opening with one of the keys; the next run finishes the work', async () => {
    const merchants = await installationUnderTheOldKey()
    // the process dies after its third replacement: every write after it fails
    let replacements = 0
    const dying = (write: (...args: [string, string, string]) => Promise<boolean>) => {
      return async (...args: [string, string, string]) => {
        if (replacements === 3) throw new Error('the process died')
        replacements += 1
        return write(...args)
      }
    }
    const crashing: MerchantStore = {
      ...store,
      replaceSealedWebhookSecret: dying(store.replaceSealedWebhookSecret.bind(store)),
      replaceSealedApiSecret: dying(store.replaceSealedApiSecret.bind(store)),
    }
    await startGateway({ current: newKey, previous: [oldKey] }, crashing)
    const cut = await cli('secrets', 'reseal')
    expect(cut.code).toBe(1)
    expect(cut.err[0]).toMatch(/HTTP 500/)

    const halfway = await openEverything({ current: newKey, previous: [oldKey] })
    expect(halfway.opened).toEqual(plainSecrets(merchants))
    expect(Object.values(halfway.current).filter(Boolean)).toHaveLength(3)

    await startGateway({ current: newKey, previous: [oldKey] })
    const resumed = await cli('--json', 'secrets', 'reseal')
    expect(resumed.code, resumed.err.join('\n')).toBe(0)
    const report = JSON.parse(resumed.out.join('\n'))
    expect(report.webhookSecrets.resealed + report.apiSecrets.resealed).toBe(7 - 3)
    expect(report.webhookSecrets.alreadyCurrent + report.apiSecrets.alreadyCurrent).toBe(3)
    expect((await openEverything(newKey)).opened).toEqual(plainSecrets(merchants))
  })

  it('never undoes a webhook secret rotated while it runs', async () => {
    const [first] = await installationUnderTheOldKey()
    const merchantId = first?.merchantId ?? ''
    const ring = { current: newKey, previous: [oldKey] }
    let rotated = ''
    const rotatingMeanwhile: MerchantStore = {
      ...store,
      async replaceSealedWebhookSecret(id, expected, replacement) {
        if (id === merchantId && rotated === '') {
          // the operator rotates the secret between the run's read and its write
          const deps = { merchants: store, secretBox: createSecretBox(ring), clock: systemClock }
          rotated = (await rotateWebhookSecret(deps, merchantId)).webhookSecret
        }
        return store.replaceSealedWebhookSecret(id, expected, replacement)
      },
    }
    await startGateway(ring, rotatingMeanwhile)
    const run = await cli('--json', 'secrets', 'reseal')
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(JSON.parse(run.out.join('\n')).webhookSecrets).toEqual({
      total: 3,
      resealed: 2,
      alreadyCurrent: 1,
    })
    const stored = (await store.getMerchant(merchantId))?.webhookSecret ?? ''
    expect(createSecretBox(newKey).open(stored, webhookSecretContext(merchantId))).toBe(rotated)
    expect(rotated).not.toBe(first?.webhookSecret)
  })

  it('reports the secrets no configured key opens, or that were moved to another row, leaves them, and fails', async () => {
    const [first, second] = await installationUnderTheOldKey()
    const firstId = first?.merchantId ?? ''
    const secondId = second?.merchantId ?? ''
    // the second merchant's sealed webhook secret copied into the first's row
    const firstRow = await store.getMerchant(firstId)
    const secondRow = await store.getMerchant(secondId)
    await store.replaceSealedWebhookSecret(
      firstId,
      firstRow?.webhookSecret ?? '',
      secondRow?.webhookSecret ?? '',
    )
    const before = await storedValues()

    // the old key forgotten: nothing sealed with it opens
    await startGateway(newKey)
    const run = await cli('secrets', 'reseal')
    expect(run.code).toBe(1)
    const oldKeyId = createSecretBox(oldKey).currentKeyId
    expect(run.out).toContain(
      `Not opened:      webhookSecret of ${secondId}: sealed secret: sealed with key id ${oldKeyId}, which is not among the configured keys`,
    )
    expect(run.err).toEqual([
      'error: 7 sealed secret(s) open with no configured key and were left as they are; add the key that sealed them to CHAINPAY_ENCRYPTION_KEY_PREVIOUS of the gateway and run again, and keep the previous keys until this succeeds',
    ])
    expect(await storedValues()).toEqual(before)

    // with the old key back, only the moved one stays shut
    await startGateway({ current: newKey, previous: [oldKey] })
    const withOldKey = await cli('--json', 'secrets', 'reseal')
    expect(withOldKey.code).toBe(1)
    expect(JSON.parse(withOldKey.out.join('\n')).unopenable).toEqual([
      {
        record: 'webhookSecret',
        merchantId: firstId,
        problem: 'sealed secret: not sealed with a configured key, or altered, or sealed for another record',
      },
    ])
    expect((await store.getMerchant(firstId))?.webhookSecret).toBe(secondRow?.webhookSecret)
    expect(run.out.join('\n')).not.toContain(first?.webhookSecret)
  })
})

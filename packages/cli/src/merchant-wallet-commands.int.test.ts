// chainpay-admin merchants wallet set|show|remove and secrets reseal over merchant wallet seeds,
// against a real admin API wired to payment-command's real command side, in both shapes
// (docs/architecture.md): standalone's, where the admin API calls payment-command's merchant wallets
// in process, and the distributed one, where it calls them over the command API. Real wallets from
// real mnemonics; every line the CLI prints and every log line is searched for the seeds.

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildAdminApp, createApiKeyAuthenticator } from '@chainpay/admin-api'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { buildCommandApi, createMerchantWallets } from '@chainpay/payment-command'
import {
  openSqliteCommandSide,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from '@chainpay/payment-command/testing'
import {
  createRootLogger,
  createSecretBox,
  generateSecretKey,
  type SecretKeys,
  systemClock,
} from '@chainpay/platform'
import type { MerchantWallets } from '@chainpay/ports'
import { runToExit } from '@chainpay/service-kit/testing'
import { createSqliteMerchantWalletStore } from '@chainpay/store-sqlite'
import {
  createDevelopmentWallet,
  type DevelopmentWallet,
  deriveSolanaAddress,
  deriveTronAddress,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CliRun, runCli } from './testing/run-cli.js'

const TOKEN = 'cli-test-admin-token-0123456789abcdef'
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url))

/** every line written anywhere during a test: the CLI's output and the services' logs */
let written: string[]
const capture = (service: string) =>
  createRootLogger({
    service,
    level: 'trace',
    destination: { write: (line: string) => void written.push(line) },
  })

interface Wired {
  /** what the admin API calls */
  merchantWallets: MerchantWallets
  close(): Promise<void>
}

const shapes: Record<string, (keeper: MerchantWallets, side: SqliteCommandSide) => Promise<Wired>> = {
  async standalone(keeper) {
    return { merchantWallets: keeper, close: async () => {} }
  },
  async distributed(keeper, side) {
    const commandApi = buildCommandApi({
      handler: side.handler,
      merchantWallets: keeper,
      logger: capture('payment-command'),
    })
    const baseUrl = await commandApi.listen({ host: '127.0.0.1', port: 0 })
    const client = createHttpPaymentCommands({ baseUrl, timeoutMs: 5_000 })
    return {
      merchantWallets: client.merchantWallets,
      async close() {
        await client.close()
        await commandApi.close()
      },
    }
  },
}

describe.each(Object.keys(shapes))('chainpay-admin merchants wallet, %s', (shapeName) => {
  const wire = shapes[shapeName] as (typeof shapes)[string]
  let dir: string
  let side: SqliteCommandSide
  let wired: Wired | undefined
  let app: Awaited<ReturnType<typeof buildAdminApp>> | undefined
  let url: string

  /**
   * (re)starts payment-command's merchant wallets with `commandKeys` and the gateway's admin API with
   * `keys`, as an installation restarted with a new configuration: both are the same keys unless a
   * test says otherwise (docs/operations.md, "Rotating the encryption key")
   */
  async function start(
    keys: SecretKeys | string = side.secretKey,
    commandKeys: SecretKeys | string = keys,
  ): Promise<void> {
    await app?.close()
    await wired?.close()
    const keeper = createMerchantWallets({
      store: createSqliteMerchantWalletStore(side.db),
      merchants: side.merchants,
      secretBox: createSecretBox(commandKeys),
      operatorWallet: walletFromMnemonic(TEST_MNEMONIC),
      clock: systemClock,
    })
    wired = await wire(keeper, side)
    const secretBox = createSecretBox(keys)
    app = await buildAdminApp({
      merchants: side.merchants,
      secretBox,
      adminToken: TOKEN,
      clock: systemClock,
      logger: capture('gateway'),
      authenticator: createApiKeyAuthenticator({ merchants: side.merchants, secretBox, clock: systemClock }),
      merchantWallets: wired.merchantWallets,
    })
    url = await app.listen({ host: '127.0.0.1', port: 0 })
  }

  beforeEach(async () => {
    written = []
    dir = mkdtempSync(join(tmpdir(), 'chainpay-merchant-wallet-'))
    side = openSqliteCommandSide({ logDestination: { write: (line: string) => void written.push(line) } })
    await start()
  })

  afterEach(async () => {
    await app?.close()
    app = undefined
    await wired?.close()
    wired = undefined
    await side.close()
    rmSync(dir, { recursive: true, force: true })
  })

  async function cli(argv: string[], stdin?: string): Promise<CliRun> {
    const run = await runCli(argv, { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN }, stdin)
    written.push(...run.out, ...run.err)
    return run
  }

  async function createMerchant(name: string): Promise<string> {
    const run = await cli(['--json', 'merchants', 'create', '--name', name])
    expect(run.code, run.err.join('\n')).toBe(0)
    return JSON.parse(run.out.join('\n')).merchant.merchantId
  }

  /** the seed in a file only its owner may read, as `chainpay-wallet keys` writes it */
  function seedFile(name: string, seed: string, mode = 0o600): string {
    const path = join(dir, name)
    writeFileSync(path, `${seed}\n`, { mode })
    chmodSync(path, mode)
    return path
  }

  const setWallet = (merchantId: string, wallet: DevelopmentWallet) =>
    cli([
      'merchants',
      'wallet',
      'set',
      merchantId,
      '--tron-xpub',
      wallet.tronAccountXpub,
      '--solana-seed-file',
      seedFile(`${merchantId}.seed`, wallet.solanaSeed),
    ])

  /** no seed, in any case, in anything the CLI printed or any service logged */
  function expectNoSeedWritten(...seeds: string[]): void {
    const everything = written.join('\n').toLowerCase()
    // the services' request logs were captured too, not only the CLI's lines
    const logged = (service: string) => written.some((line) => line.includes(`"service":"${service}"`))
    expect(logged('gateway')).toBe(true)
    expect(logged('payment-command')).toBe(shapeName === 'distributed')
    for (const seed of seeds) expect(everything).not.toContain(seed.toLowerCase())
  }

  const paymentOn = async (merchantId: string, network: 'TRON' | 'SOLANA') =>
    (
      await side.handler.createPayment({
        merchantId,
        request: { amount: '1', currency: network === 'TRON' ? 'USDT' : 'SOL', network },
      })
    ).payment.created

  it('sets a wallet from a seed file, shows it, and the merchant’s new payments derive from it until it is removed', async () => {
    const merchantId = await createMerchant('Own Wallet Shop')
    const wallet = createDevelopmentWallet()
    const solanaAddress0 = deriveSolanaAddress(wallet.solanaSeed, 0).address

    const set = await setWallet(merchantId, wallet)
    expect(set.code, set.err.join('\n')).toBe(0)
    const walletId = /^Wallet: +(w_[0-9a-f]{20})$/.exec(set.out[1] ?? '')?.[1]
    expect(walletId).toBeDefined()
    expect(set.out).toEqual([
      `Merchant:         ${merchantId}`,
      `Wallet:           ${walletId}`,
      `TRON xpub:        ${wallet.tronAccountXpub}`,
      `Solana address 0: ${solanaAddress0}`,
      expect.stringMatching(/^Set: +\d{4}-\d\d-\d\dT/),
      `New payments of ${merchantId} derive their addresses from this wallet, each key from its next index (0 for a new key); existing payments keep theirs. The seed is sealed by payment-command and never shown again.`,
    ])
    expect(set.err).toEqual([])

    // what the notice says: the merchant's wallet, from its index 0, on both chains
    const tron = await paymentOn(merchantId, 'TRON')
    const sol = await paymentOn(merchantId, 'SOLANA')
    expect([tron.walletId, tron.address]).toEqual([
      walletId,
      deriveTronAddress(wallet.tronAccountXpub, 0).address,
    ])
    expect([sol.walletId, sol.address]).toEqual([walletId, solanaAddress0])

    const shown = await cli(['--json', 'merchants', 'wallet', 'show', merchantId])
    expect(shown.code, shown.err.join('\n')).toBe(0)
    expect(JSON.parse(shown.out.join('\n'))).toEqual({
      wallet: {
        merchantId,
        walletId,
        tronAccountXpub: wallet.tronAccountXpub,
        solanaAddress0,
        setAt: expect.any(String),
      },
    })
    expect((await cli(['merchants', 'wallet', 'show', merchantId])).out).toEqual(set.out.slice(0, 5))

    const removed = await cli(['merchants', 'wallet', 'remove', merchantId])
    expect(removed.code, removed.err.join('\n')).toBe(0)
    expect(removed.out).toEqual([
      `Removed the wallet of ${merchantId}: its new payments derive from the operator's wallet again; existing payments keep their addresses (sweep them with chainpay-wallet plan --wallet, docs/treasury.md).`,
    ])
    const operator = walletFromMnemonic(TEST_MNEMONIC)
    const after = await paymentOn(merchantId, 'TRON')
    expect([after.walletId, after.address]).toEqual([
      'operator',
      deriveTronAddress(operator.tronAccountXpub, 0).address,
    ])
    const kept = await side.handler.getPayment({ merchantId, paymentId: tron.paymentId })
    expect(kept?.payment.created.address).toBe(tron.address)

    for (const action of ['show', 'remove']) {
      const none = await cli(['merchants', 'wallet', action, merchantId])
      expect(none).toMatchObject({ code: 1, out: [] })
      expect(none.err).toEqual([
        `error: merchant ${merchantId} has no wallet of its own: the operator's serves it (NOT_FOUND, HTTP 404)`,
      ])
    }
    expectNoSeedWritten(wallet.solanaSeed)
  })

  it('reads the seed from stdin with -, and answers --json; a file other users may open is refused', async () => {
    const merchantId = await createMerchant('Piped Shop')
    const wallet = createDevelopmentWallet()
    const args = ['merchants', 'wallet', 'set', merchantId, '--tron-xpub', wallet.tronAccountXpub]

    const piped = await cli(['--json', ...args, '--solana-seed-file', '-'], `  ${wallet.solanaSeed}\n`)
    expect(piped.code, piped.err.join('\n')).toBe(0)
    expect(JSON.parse(piped.out.join('\n'))).toMatchObject({
      wallet: { merchantId, solanaAddress0: deriveSolanaAddress(wallet.solanaSeed, 0).address },
    })
    // the notice goes to stderr, out of the JSON
    expect(piped.err).toEqual([expect.stringMatching(/^New payments of /)])

    const other = await createMerchant('Careless Shop')
    const careless = createDevelopmentWallet()
    for (const mode of [0o644, 0o640, 0o620]) {
      const path = seedFile(`readable-${mode.toString(8)}`, careless.solanaSeed, mode)
      const refused = await cli([
        'merchants',
        'wallet',
        'set',
        other,
        '--tron-xpub',
        careless.tronAccountXpub,
        '--solana-seed-file',
        path,
      ])
      expect(refused).toMatchObject({ code: 1, out: [] })
      expect(refused.err).toEqual([
        `error: --solana-seed-file: ${path} is open to other users (mode 0${mode.toString(8)}): run chmod 600 ${path}, or pipe it in with --solana-seed-file -`,
      ])
    }
    expect((await cli(['merchants', 'wallet', 'show', other])).code).toBe(1)

    // the seed as an argument is no option at all, and the wallet flags belong to set
    const asArgument = await cli([...args, '--solana-seed', careless.solanaSeed])
    expect(asArgument.code).toBe(1)
    expect(asArgument.err[0]).toMatch(/^error: Unknown option '--solana-seed'/)
    const missing = await cli(args)
    expect(missing.err).toEqual([
      'error: --tron-xpub and --solana-seed-file are required; usage: merchants wallet set MERCHANT_ID --tron-xpub XPUB --solana-seed-file (FILE | -)',
    ])
    const empty = await cli([...args, '--solana-seed-file', '-'], '\n')
    expect(empty.err).toEqual(['error: --solana-seed-file -: no seed in it'])
    const absent = await cli([...args, '--solana-seed-file', join(dir, 'absent')])
    expect(absent.err).toEqual([`error: --solana-seed-file: cannot read ${join(dir, 'absent')}: ENOENT`])
    const onShow = await cli(['merchants', 'wallet', 'show', merchantId, '--tron-xpub', 'x'])
    expect(onShow.err).toEqual(['error: --tron-xpub is only for merchants wallet set'])
    expect((await cli(['merchants', 'wallet', 'rotate', merchantId])).err[0]).toMatch(
      /^error: expected set, show or remove; usage:/,
    )
    expectNoSeedWritten(wallet.solanaSeed, careless.solanaSeed)
  })

  it('the chainpay-admin executable reads the seed piped on its stdin', async () => {
    const merchantId = await createMerchant('Process Shop')
    const wallet = createDevelopmentWallet()
    const argv = ['merchants', 'wallet', 'set', merchantId, '--tron-xpub', wallet.tronAccountXpub]
    const { code, stdout, stderr } = await runToExit(
      MAIN,
      { CHAINPAY_ADMIN_URL: url, CHAINPAY_ADMIN_TOKEN: TOKEN },
      { args: [...argv, '--solana-seed-file', '-'], stdin: `${wallet.solanaSeed}\n` },
    )
    written.push(stdout, stderr)
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toContain(`Solana address 0: ${deriveSolanaAddress(wallet.solanaSeed, 0).address}\n`)
    expectNoSeedWritten(wallet.solanaSeed)
  })

  it('says what is wrong: 400 for bad keys, 409 for keys another wallet uses, 404 for an unknown merchant', async () => {
    const first = await createMerchant('First')
    const second = await createMerchant('Second')
    const wallet = createDevelopmentWallet()
    const stranger = createDevelopmentWallet()
    expect((await setWallet(first, wallet)).code).toBe(0)

    const attempt = async (merchantId: string, xpub: string, seed: string) => {
      const run = await cli([
        'merchants',
        'wallet',
        'set',
        merchantId,
        '--tron-xpub',
        xpub,
        '--solana-seed-file',
        seedFile(`attempt-${written.length}`, seed),
      ])
      expect(run).toMatchObject({ code: 1, out: [] })
      return run.err
    }
    // the account's parent key: a real xpub, at the wrong depth
    const rootXpub =
      'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8'
    expect(await attempt(second, rootXpub, stranger.solanaSeed)).toEqual([
      "error: the TRON extended public key must be the account key m/44'/195'/0' (depth 3, hardened index 0), got depth 0 (INVALID_TRON_XPUB, HTTP 400)",
    ])
    expect(await attempt(second, stranger.tronAccountXpub, 'not hex at all')).toEqual([
      'error: the Solana seed must be 16 to 64 bytes of hex text (got 14 characters) (INVALID_SOLANA_SEED, HTTP 400)',
    ])
    // longer than any seed: refused by the body's schema, without quoting it
    const tooLong = `${stranger.solanaSeed}${stranger.solanaSeed}`
    expect((await attempt(second, stranger.tronAccountXpub, tooLong))[0]).toMatch(
      /^error: .*\(VALIDATION_ERROR, HTTP 400\)$/,
    )
    expect(await attempt(second, wallet.tronAccountXpub, stranger.solanaSeed)).toEqual([
      `error: a key of this wallet is already the wallet of ${first} (WALLET_ALREADY_IN_USE, HTTP 409)`,
    ])
    expect(await attempt(second, stranger.tronAccountXpub, wallet.solanaSeed)).toEqual([
      `error: a key of this wallet is already the wallet of ${first} (WALLET_ALREADY_IN_USE, HTTP 409)`,
    ])
    const operator = walletFromMnemonic(TEST_MNEMONIC)
    expect(await attempt(second, operator.tronAccountXpub, operator.solanaSeed)).toEqual([
      "error: these keys are already the operator's wallet (WALLET_ALREADY_IN_USE, HTTP 409)",
    ])
    expect(await attempt('mer_unknown', stranger.tronAccountXpub, stranger.solanaSeed)).toEqual([
      'error: merchant mer_unknown not found (NOT_FOUND, HTTP 404)',
    ])
    for (const action of ['show', 'remove']) {
      expect((await cli(['merchants', 'wallet', action, 'mer_unknown'])).err).toEqual([
        'error: merchant mer_unknown not found (NOT_FOUND, HTTP 404)',
      ])
    }
    // nothing refused was kept; the first merchant's wallet is still its own
    expect((await cli(['merchants', 'wallet', 'show', second])).code).toBe(1)
    expect((await cli(['--json', 'merchants', 'wallet', 'show', first])).out.join('')).toContain(
      wallet.tronAccountXpub,
    )
    expectNoSeedWritten(wallet.solanaSeed, stranger.solanaSeed, operator.solanaSeed, 'not hex at all')
  })

  describe('secrets reseal', () => {
    it('re-seals a wallet seed under the new key with the merchants’ secrets, then finds it current', async () => {
      const merchantId = await createMerchant('Rotating Shop')
      const wallet = createDevelopmentWallet()
      expect((await setWallet(merchantId, wallet)).code).toBe(0)
      const same = await cli(['secrets', 'reseal'])
      expect(same.code, same.err.join('\n')).toBe(0)
      expect(same.out).toContain('Wallet seeds:    1 (0 re-sealed, 1 already under the current key)')

      const newKey = generateSecretKey()
      await start({ current: newKey, previous: [side.secretKey] })
      const rotated = await cli(['secrets', 'reseal'])
      expect(rotated.code, rotated.err.join('\n')).toBe(0)
      expect(rotated.out.slice(1)).toEqual([
        'Webhook secrets: 1 (1 re-sealed, 0 already under the current key)',
        'API secrets:     1 (1 re-sealed, 0 already under the current key)',
        'Endpoint secrets: 0 (0 re-sealed, 0 already under the current key)',
        'Wallet seeds:    1 (1 re-sealed, 0 already under the current key)',
        'Every secret is sealed with the current key: the previous keys can be removed.',
      ])

      // the new key alone opens it: the wallet still derives the merchant's addresses
      await start(newKey)
      const again = await cli(['--json', 'secrets', 'reseal'])
      expect(JSON.parse(again.out.join('\n')).merchantWalletSeeds).toEqual({
        total: 1,
        resealed: 0,
        alreadyCurrent: 1,
      })
      const record = await createSqliteMerchantWalletStore(side.db).getWallet(merchantId)
      expect(
        createSecretBox(newKey).open(
          record?.sealedSolanaSeed ?? '',
          `merchant-wallet:${merchantId}:solanaSeed`,
        ),
      ).toBe(wallet.solanaSeed.toLowerCase())
      expectNoSeedWritten(wallet.solanaSeed)
    })

    it('reports a seed no key of payment-command opens, leaves it, and names payment-command’s previous keys', async () => {
      const merchantId = await createMerchant('Forgotten Key Shop')
      const wallet = createDevelopmentWallet()
      expect((await setWallet(merchantId, wallet)).code).toBe(0)
      const before = (await createSqliteMerchantWalletStore(side.db).getWallet(merchantId))?.sealedSolanaSeed

      // payment-command lost the key the seed was sealed with; the gateway's ring still has it
      const newKey = generateSecretKey()
      await start({ current: newKey, previous: [side.secretKey] }, newKey)

      const run = await cli(['secrets', 'reseal'])
      expect(run.code).toBe(1)
      const oldKeyId = createSecretBox(side.secretKey).currentKeyId
      expect(run.out).toContain('Wallet seeds:    1 (0 re-sealed, 0 already under the current key)')
      expect(run.out).toContain(
        `Not opened:      merchantWalletSeed of ${merchantId}: sealed secret: sealed with key id ${oldKeyId}, which is not among the configured keys`,
      )
      expect(run.err).toEqual([
        'error: 1 sealed secret(s) open with no configured key and were left as they are; add the key that sealed them to CHAINPAY_ENCRYPTION_KEY_PREVIOUS of payment-command (which keeps the merchant wallet seeds) and run again, and keep the previous keys until this succeeds',
      ])
      expect((await createSqliteMerchantWalletStore(side.db).getWallet(merchantId))?.sealedSolanaSeed).toBe(
        before,
      )
      expectNoSeedWritten(wallet.solanaSeed)
    })
  })
})

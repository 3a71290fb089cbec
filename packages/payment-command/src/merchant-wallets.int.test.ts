// Merchants' own wallets on the command side, on a real SQLite file: what is kept and shown, what is
// refused, and that a merchant's payments derive from its wallet (docs/api.md, "Merchant wallets").

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type CreatePaymentRequest, DomainError, defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { createSecretBox, generateSecretKey } from '@chainpay/platform'
import { merchantWalletSeedContext } from '@chainpay/ports'
import { createSqliteMerchantWalletStore } from '@chainpay/store-sqlite'
import {
  associatedTokenAccount,
  deriveSolanaAddress,
  deriveTronAddress,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMerchantWallets } from './merchant-wallets.js'
import {
  openSqliteCommandSide,
  type SqliteCommandSide,
  TEST_MNEMONIC,
} from './testing/sqlite-command-side.js'

const OPERATOR = walletFromMnemonic(TEST_MNEMONIC)
const MERCHANT = walletFromMnemonic(
  'legal winner thank year wave sausage worth useful legal winner thank yellow',
)
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    if (error instanceof DomainError) return error.code
    throw error
  }
  return undefined
}

/** what the database file and its write-ahead log hold now */
function databaseBytes(dir: string): Buffer {
  const files = readdirSync(dir).filter((name) => name.startsWith('chainpay.sqlite'))
  return Buffer.concat(files.map((name) => readFileSync(join(dir, name))))
}

let side: SqliteCommandSide
beforeEach(async () => {
  side = openSqliteCommandSide()
  for (const merchantId of ['mer_1', 'mer_2', 'mer_3']) await side.addMerchant(merchantId)
})
afterEach(() => side.close())

describe('merchant wallets: set, show, remove', () => {
  // merchant-wallet.unit.test.ts in the wallet package checks the address against @solana/web3.js
  it('shows the public parts only: the xpub and the Solana address of index 0', async () => {
    const set = await side.merchantWallets.set('mer_1', MERCHANT)
    expect(await side.merchantWallets.show('mer_1')).toEqual(set)
    expect(Object.keys(set).sort()).toEqual([
      'merchantId',
      'setAt',
      'solanaAddress0',
      'tronAccountXpub',
      'walletId',
    ])
    expect(set.walletId).toMatch(/^w_[0-9a-f]{20}$/)
    expect(set.tronAccountXpub).toBe(MERCHANT.tronAccountXpub)
    expect(set.solanaAddress0).toBe(deriveSolanaAddress(MERCHANT.solanaSeed, 0).address)
    expect(JSON.stringify(set)).not.toContain(MERCHANT.solanaSeed)
  })

  it('stores the seed sealed to the merchant: never in plain text in the file', async () => {
    await side.merchantWallets.set('mer_1', {
      ...MERCHANT,
      solanaSeed: ` ${MERCHANT.solanaSeed.toUpperCase()}\n`,
    })
    const bytes = databaseBytes(side.dir)
    expect(bytes.includes(MERCHANT.solanaSeed)).toBe(false)
    expect(bytes.includes(MERCHANT.solanaSeed.toUpperCase())).toBe(false)
    expect(bytes.includes(Buffer.from(MERCHANT.solanaSeed, 'hex'))).toBe(false)
    expect(bytes.includes(MERCHANT.tronAccountXpub)).toBe(true)
    const record = await createSqliteMerchantWalletStore(side.db).getWallet('mer_1')
    const sealed = record?.sealedSolanaSeed ?? ''
    expect(side.secretBox.open(sealed, merchantWalletSeedContext('mer_1'))).toBe(MERCHANT.solanaSeed)
    expect(() => side.secretBox.open(sealed, merchantWalletSeedContext('mer_2'))).toThrow()
  })

  it("refuses bad keys, the operator's keys, another merchant's, and an unknown merchant", async () => {
    const wallets = side.merchantWallets
    expect(await codeOf(wallets.set('mer_1', { ...MERCHANT, tronAccountXpub: 'xpub-nope' }))).toBe(
      'INVALID_TRON_XPUB',
    )
    expect(await codeOf(wallets.set('mer_1', { ...MERCHANT, solanaSeed: 'abc' }))).toBe('INVALID_SOLANA_SEED')
    expect(
      await codeOf(wallets.set('mer_1', { ...MERCHANT, tronAccountXpub: OPERATOR.tronAccountXpub })),
    ).toBe('WALLET_ALREADY_IN_USE')
    expect(await codeOf(wallets.set('mer_1', { ...MERCHANT, solanaSeed: OPERATOR.solanaSeed }))).toBe(
      'WALLET_ALREADY_IN_USE',
    )
    // the operator's whole wallet too, not only one of its keys
    expect(await codeOf(wallets.set('mer_1', OPERATOR))).toBe('WALLET_ALREADY_IN_USE')
    await wallets.set('mer_1', MERCHANT)
    expect(await codeOf(wallets.set('mer_2', MERCHANT))).toBe('WALLET_ALREADY_IN_USE')
    expect(await wallets.show('mer_2')).toBeNull()
    expect(await codeOf(wallets.set('mer_unknown', MERCHANT))).toBe('NOT_FOUND')
  })

  it('removes a wallet once', async () => {
    await side.merchantWallets.set('mer_1', MERCHANT)
    expect(await side.merchantWallets.remove('mer_1')).toBe(true)
    expect(await side.merchantWallets.remove('mer_1')).toBe(false)
    expect(await side.merchantWallets.show('mer_1')).toBeNull()
  })
})

describe("merchant wallets: a merchant's payments derive from its own wallet", () => {
  const create = async (merchantId: string, fields: Partial<CreatePaymentRequest>) =>
    (
      await side.handler.createPayment({
        merchantId,
        request: { amount: '5', currency: 'USDT', network: 'TRON', ...fields },
      })
    ).payment.created

  it("TRON and Solana (with the token account), each wallet counting from its own index 0; the operator's serves the others", async () => {
    const { walletId } = await side.merchantWallets.set('mer_1', MERCHANT)
    const tron = await create('mer_1', { currency: 'USDT', network: 'TRON' })
    const usdc = await create('mer_1', { currency: 'USDC', network: 'SOLANA' })
    const operatorsOwn = await create('mer_2', { currency: 'USDT', network: 'TRON' })

    expect(tron).toMatchObject({
      walletId,
      address: deriveTronAddress(MERCHANT.tronAccountXpub, 0).address,
      derivationPath: "m/44'/195'/0'/0/0",
    })
    const solanaAddress = deriveSolanaAddress(MERCHANT.solanaSeed, 0).address
    expect(usdc).toMatchObject({
      walletId,
      address: solanaAddress,
      tokenAccount: associatedTokenAccount(solanaAddress, USDC_MINT),
      derivationPath: "m/44'/501'/0'/0'",
    })
    expect(operatorsOwn).toMatchObject({
      walletId: 'operator',
      address: deriveTronAddress(OPERATOR.tronAccountXpub, 0).address,
    })
    // counted by key: the TRON account key's fingerprint, the Solana address 0
    const record = await createSqliteMerchantWalletStore(side.db).getWallet('mer_1')
    expect(side.allocator.allocations).toEqual([
      { family: 'TRON', keyId: record?.tronAccountKeyFingerprint, index: 0 },
      { family: 'SOLANA', keyId: record?.solanaAddress0, index: 0 },
      { family: 'TRON', keyId: null, index: 0 },
    ])
  })

  it("goes back to the operator's wallet once removed, and never hands out an index twice when set again", async () => {
    const { walletId } = await side.merchantWallets.set('mer_1', MERCHANT)
    const first = await create('mer_1', {})
    await side.merchantWallets.remove('mer_1')
    const operators = await create('mer_1', {})
    await side.merchantWallets.set('mer_1', MERCHANT)
    const again = await create('mer_1', {})
    expect([first.walletId, operators.walletId, again.walletId]).toEqual([walletId, 'operator', walletId])
    expect(again.address).toBe(deriveTronAddress(MERCHANT.tronAccountXpub, 1).address)
    expect(new Set([first.address, operators.address, again.address]).size).toBe(3)
  })

  it('never derives an address twice from a key met again in another wallet: one key kept on replace, or the keys given to another merchant', async () => {
    const other = walletFromMnemonic(
      'letter advice cage absurd amount doctor acoustic avoid letter advice cage above',
    )
    const third = walletFromMnemonic('zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong')
    const paid = async (merchantId: string) => [
      await create(merchantId, { currency: 'USDT', network: 'TRON' }),
      await create(merchantId, { currency: 'SOL', network: 'SOLANA' }),
    ]
    await side.merchantWallets.set('mer_1', MERCHANT)
    const first = await paid('mer_1')
    // the same TRON key with another Solana seed: another wallet id, the TRON key counts on
    await side.merchantWallets.set('mer_1', { ...MERCHANT, solanaSeed: other.solanaSeed })
    const replaced = await paid('mer_1')
    // both keys freed, then given to another merchant with a third TRON key
    await side.merchantWallets.remove('mer_1')
    await side.merchantWallets.set('mer_2', {
      tronAccountXpub: third.tronAccountXpub,
      solanaSeed: other.solanaSeed,
    })
    const moved = await paid('mer_2')
    await side.merchantWallets.set('mer_3', MERCHANT)
    const back = await paid('mer_3')

    // the first wallet, whole, is the last one's: the same id
    const walletIds = [first, replaced, moved, back].map(([tron]) => tron?.walletId)
    expect(new Set(walletIds).size).toBe(3)
    expect(walletIds[3]).toBe(walletIds[0])
    const addresses = [first, replaced, moved, back].flat().map((payment) => payment.address)
    expect(new Set(addresses).size).toBe(addresses.length)
    expect(replaced[0]?.address).toBe(deriveTronAddress(MERCHANT.tronAccountXpub, 1).address)
    expect(moved[1]?.address).toBe(deriveSolanaAddress(other.solanaSeed, 1).address)
    expect(back.map((payment) => payment.derivationPath)).toEqual(["m/44'/195'/0'/0/2", "m/44'/501'/1'/0'"])
  })
})

describe('merchant wallets: re-sealing the seeds under a new encryption key', () => {
  it('re-seals each seed once, keeps deriving the same addresses, and reports a seed no key opens', async () => {
    await side.merchantWallets.set('mer_1', MERCHANT)
    const other = walletFromMnemonic(
      'letter advice cage absurd amount doctor acoustic avoid letter advice cage above',
    )
    await side.merchantWallets.set('mer_2', other)
    const before = await create('mer_1')
    // the operator rotates: a new current key, the old one still opens
    const newKey = generateSecretKey()
    const store = createSqliteMerchantWalletStore(side.db)
    const rotated = createMerchantWallets({
      store,
      merchants: side.merchants,
      secretBox: createSecretBox({ current: newKey, previous: [side.secretKey] }),
      operatorWallet: OPERATOR,
      clock: { now: () => new Date() },
    })
    // a seed sealed under a key nobody has any more
    const lost = createSecretBox(generateSecretKey()).seal(
      MERCHANT.solanaSeed,
      merchantWalletSeedContext('mer_3'),
    )
    const setForMer1 = await store.getWallet('mer_1')
    if (setForMer1 === null) throw new Error('the wallet of mer_1 is gone')
    await store.setWallet({
      ...setForMer1,
      merchantId: 'mer_3',
      walletId: 'w_00000000000000000000',
      tronAccountKeyFingerprint: 'lost',
      solanaAddress0: 'lost',
      sealedSolanaSeed: lost,
    })

    const report = await rotated.resealSeeds()
    expect(report).toMatchObject({ total: 3, resealed: 2, alreadyCurrent: 0 })
    expect(report.unopenable).toEqual([{ merchantId: 'mer_3', problem: expect.any(String) }])
    expect(JSON.stringify(report)).not.toContain(MERCHANT.solanaSeed)
    expect(await rotated.resealSeeds()).toMatchObject({ total: 3, resealed: 0, alreadyCurrent: 2 })
    // only the new key is needed now
    const newOnly = createMerchantWallets({
      store,
      merchants: side.merchants,
      secretBox: createSecretBox(newKey),
      operatorWallet: OPERATOR,
      clock: { now: () => new Date() },
    })
    // a seed no configured key opens: the merchant's payments wait, saying why, never derive elsewhere
    await expect(newOnly.deriverFor('mer_3')).rejects.toMatchObject({
      name: 'UnavailableError',
      message: expect.stringContaining('CHAINPAY_ENCRYPTION_KEY_PREVIOUS'),
    })
    const deriver = await newOnly.deriverFor('mer_1')
    const usdt = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'USDT' })
    expect(deriver?.derive(usdt, 0).address).toBe(before.address)
  })

  async function create(merchantId: string) {
    return (
      await side.handler.createPayment({
        merchantId,
        request: { amount: '5', currency: 'USDT', network: 'TRON' },
      })
    ).payment.created
  }
})

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSecretBox, generateSecretKey } from '@chainpay/platform'
import { merchantWalletSeedContext } from '@chainpay/ports'
import { createSqliteMerchantWalletStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { deriveSolanaAddress, MerchantWalletError, walletFromMnemonic } from '@chainpay/wallet'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createMerchantWallets, type MerchantWallets } from './merchant-wallets.js'

const OPERATOR = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)
const MERCHANT = walletFromMnemonic(
  'legal winner thank year wave sausage worth useful legal winner thank yellow',
)
const NOW = '2030-01-01T00:00:00.000Z'

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise
  } catch (error) {
    if (error instanceof MerchantWalletError) return error.code
    throw error
  }
  return undefined
}

describe('createMerchantWallets on a SQLite file', () => {
  let directory: string
  let file: string
  let close: () => void
  let wallets: MerchantWallets
  const secretBox = createSecretBox(generateSecretKey())

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'chainpay-merchant-wallets-'))
    file = join(directory, 'chainpay.db')
    const db = openSqliteDatabase(file)
    close = () => db.close()
    const store = createSqliteMerchantWalletStore(db)
    wallets = createMerchantWallets({ store, secretBox, operatorWallet: OPERATOR })
  })
  afterEach(() => {
    close()
    rmSync(directory, { recursive: true, force: true })
  })

  // merchant-wallet.unit.test.ts in the wallet package checks the address against @solana/web3.js
  it('shows the public parts only: the xpub and the Solana address of index 0', async () => {
    const set = await wallets.set('mer_1', MERCHANT, NOW)
    expect(await wallets.show('mer_1')).toEqual(set)
    expect(Object.keys(set).sort()).toEqual([
      'merchantId',
      'setAt',
      'solanaAddress0',
      'tronAccountXpub',
      'walletId',
    ])
    expect(set.tronAccountXpub).toBe(MERCHANT.tronAccountXpub)
    expect(set.solanaAddress0).toBe(deriveSolanaAddress(MERCHANT.solanaSeed, 0).address)
    expect(JSON.stringify(set)).not.toContain(MERCHANT.solanaSeed)
  })

  it('stores the seed sealed to the merchant: never in plain text in the file', async () => {
    await wallets.set('mer_1', { ...MERCHANT, solanaSeed: ` ${MERCHANT.solanaSeed.toUpperCase()}\n` }, NOW)
    close()
    const bytes = readFileSync(file)
    expect(bytes.includes(MERCHANT.solanaSeed)).toBe(false)
    expect(bytes.includes(MERCHANT.solanaSeed.toUpperCase())).toBe(false)
    expect(bytes.includes(Buffer.from(MERCHANT.solanaSeed, 'hex'))).toBe(false)
    const reopened = openSqliteDatabase(file)
    close = () => reopened.close()
    const record = await createSqliteMerchantWalletStore(reopened).getWallet('mer_1')
    expect(secretBox.open(record?.sealedSolanaSeed ?? '', merchantWalletSeedContext('mer_1'))).toBe(
      MERCHANT.solanaSeed,
    )
    expect(() => secretBox.open(record?.sealedSolanaSeed ?? '', merchantWalletSeedContext('mer_2'))).toThrow()
  })

  it("refuses the operator's keys and another merchant's", async () => {
    expect(
      await codeOf(wallets.set('mer_1', { ...MERCHANT, tronAccountXpub: OPERATOR.tronAccountXpub }, NOW)),
    ).toBe('WALLET_ALREADY_IN_USE')
    expect(await codeOf(wallets.set('mer_1', { ...MERCHANT, solanaSeed: OPERATOR.solanaSeed }, NOW))).toBe(
      'WALLET_ALREADY_IN_USE',
    )
    // the operator's whole wallet too, not only one of its keys
    expect(await codeOf(wallets.set('mer_1', OPERATOR, NOW))).toBe('WALLET_ALREADY_IN_USE')
    await wallets.set('mer_1', MERCHANT, NOW)
    expect(await codeOf(wallets.set('mer_2', MERCHANT, NOW))).toBe('WALLET_ALREADY_IN_USE')
    expect(await wallets.show('mer_2')).toBeNull()
  })

  it('removes a wallet once', async () => {
    await wallets.set('mer_1', MERCHANT, NOW)
    expect(await wallets.remove('mer_1')).toBe(true)
    expect(await wallets.remove('mer_1')).toBe(false)
    expect(await wallets.show('mer_1')).toBeNull()
  })
})

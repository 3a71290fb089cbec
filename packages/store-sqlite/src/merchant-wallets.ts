import {
  type MerchantWalletRecord,
  type MerchantWalletStore,
  translateFailures,
  WalletKeyInUseError,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the merchant wallet store's schema versions (schema-versions.ts) */
export const merchantWalletMigrations: readonly SqliteMigration[] = [
  {
    // the unique indexes keep two merchants from sharing a key even if two writers race
    description: 'merchant wallets: TRON account xpub and sealed Solana seed per merchant',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS merchant_wallets (
          merchant_id TEXT PRIMARY KEY,
          wallet_id TEXT NOT NULL,
          tron_account_xpub TEXT NOT NULL,
          tron_account_key_fingerprint TEXT NOT NULL UNIQUE,
          solana_address0 TEXT NOT NULL UNIQUE,
          sealed_solana_seed TEXT NOT NULL,
          set_at TEXT NOT NULL
        ) STRICT
      `),
  },
]

/** Merchant wallets in table merchant_wallets, one row per merchant that has a wallet of its own. */
export function createSqliteMerchantWalletStore(db: DatabaseSync): MerchantWalletStore {
  migrateSqliteComponent(db, 'merchant-wallets', merchantWalletMigrations)
  const keyUsedElsewhere = db.prepare(`
    SELECT merchant_id FROM merchant_wallets
    WHERE merchant_id <> ? AND (tron_account_key_fingerprint = ? OR solana_address0 = ?) LIMIT 1
  `)
  const upsert = db.prepare(`
    INSERT INTO merchant_wallets (merchant_id, wallet_id, tron_account_xpub, tron_account_key_fingerprint,
      solana_address0, sealed_solana_seed, set_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (merchant_id) DO UPDATE SET wallet_id = excluded.wallet_id,
      tron_account_xpub = excluded.tron_account_xpub,
      tron_account_key_fingerprint = excluded.tron_account_key_fingerprint,
      solana_address0 = excluded.solana_address0, sealed_solana_seed = excluded.sealed_solana_seed,
      set_at = excluded.set_at
  `)
  const select = db.prepare('SELECT * FROM merchant_wallets WHERE merchant_id = ?')
  const selectAll = db.prepare('SELECT * FROM merchant_wallets ORDER BY merchant_id')
  const remove = db.prepare('DELETE FROM merchant_wallets WHERE merchant_id = ?')
  const replaceSeed = db.prepare(
    'UPDATE merchant_wallets SET sealed_solana_seed = ? WHERE merchant_id = ? AND sealed_solana_seed = ?',
  )

  return translateFailures(
    {
      async setWallet(wallet) {
        inTransaction(db, () => {
          const other = keyUsedElsewhere.get(
            wallet.merchantId,
            wallet.tronAccountKeyFingerprint,
            wallet.solanaAddress0,
          )
          if (other !== undefined) {
            throw new WalletKeyInUseError(
              `a key of this wallet is already the wallet of ${String(other.merchant_id)}`,
            )
          }
          upsert.run(
            wallet.merchantId,
            wallet.walletId,
            wallet.tronAccountXpub,
            wallet.tronAccountKeyFingerprint,
            wallet.solanaAddress0,
            wallet.sealedSolanaSeed,
            wallet.setAt,
          )
        })
      },
      async getWallet(merchantId) {
        const row = select.get(merchantId)
        return row === undefined ? null : fromRow(row)
      },
      async removeWallet(merchantId) {
        return Number(remove.run(merchantId).changes) > 0
      },
      async listWallets() {
        return selectAll.all().map(fromRow)
      },
      async replaceSealedSeed(merchantId, expected, replacement) {
        return Number(replaceSeed.run(replacement, merchantId, expected).changes) > 0
      },
    },
    translateSqliteFailure,
  )
}

function fromRow(row: Record<string, unknown>): MerchantWalletRecord {
  return {
    merchantId: String(row.merchant_id),
    walletId: String(row.wallet_id),
    tronAccountXpub: String(row.tron_account_xpub),
    tronAccountKeyFingerprint: String(row.tron_account_key_fingerprint),
    solanaAddress0: String(row.solana_address0),
    sealedSolanaSeed: String(row.sealed_solana_seed),
    setAt: String(row.set_at),
  }
}

import {
  type ChainIndexerStore,
  type TrackedTransfer,
  translateFailures,
  type WatchedAddress,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the chain indexer's schema versions (schema-versions.ts) */
export const chainIndexerMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
    CREATE TABLE IF NOT EXISTS chain_cursors (
      network TEXT PRIMARY KEY,
      height INTEGER NOT NULL,
      hash TEXT NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS watched_addresses (
      network TEXT NOT NULL,
      address TEXT NOT NULL,
      payment_id TEXT NOT NULL,
      asset_contract TEXT,
      watch_until TEXT NOT NULL,
      payment_created_at TEXT NOT NULL,
      required_confirmations INTEGER NOT NULL,
      watching_reported_at TEXT,
      PRIMARY KEY (network, address)
    ) STRICT;
    CREATE TABLE IF NOT EXISTS tracked_transfers (
      network TEXT NOT NULL,
      tx_hash TEXT NOT NULL,
      transfer_index INTEGER NOT NULL,
      payment_id TEXT NOT NULL,
      address TEXT NOT NULL,
      amount_units TEXT NOT NULL,
      block_height INTEGER NOT NULL,
      block_hash TEXT NOT NULL,
      block_time TEXT NOT NULL,
      confirmations INTEGER NOT NULL,
      required_confirmations INTEGER NOT NULL,
      withdrawn_until_height INTEGER,
      PRIMARY KEY (network, tx_hash, transfer_index)
    ) STRICT;
      `),
  },
  {
    // the watch set's prune reads what expired, a range of this index, not every watched address
    description: 'index of the watched addresses by the end of their watch',
    apply: (db) =>
      db.exec(
        'CREATE INDEX IF NOT EXISTS watched_addresses_by_end ON watched_addresses (network, watch_until)',
      ),
  },
  {
    // forks (the expiration of a transfer in doubt) and foreign funds, docs/chains.md
    description: 'tracked transfers: expiration, foreign asset',
    apply: (db) =>
      db.exec(`
        ALTER TABLE tracked_transfers ADD COLUMN expires_at TEXT;
        ALTER TABLE tracked_transfers ADD COLUMN foreign_currency TEXT;
        ALTER TABLE tracked_transfers ADD COLUMN foreign_decimals INTEGER;
      `),
  },
  {
    // the Solana address watcher resumes listing each account from there (docs/chains.md)
    description: 'the last signature listed per account; the owner of a watched token account',
    apply: (db) =>
      db.exec(`
        ALTER TABLE watched_addresses ADD COLUMN owner TEXT;
        CREATE TABLE IF NOT EXISTS account_signatures (
          network TEXT NOT NULL,
          account TEXT NOT NULL,
          signature TEXT NOT NULL,
          PRIMARY KEY (network, account)
        ) STRICT;
      `),
  },
  {
    // decisions 19: a final payment is checked in batches, not followed one by one; an account is
    // followed with its owner and what it held when last checked (docs/chains.md, "Solana by address")
    description: 'closed payments; owners of tracked transfers; followed accounts with owner and state',
    apply: (db) =>
      db.exec(`
        ALTER TABLE watched_addresses ADD COLUMN closed_at TEXT;
        ALTER TABLE tracked_transfers ADD COLUMN owner TEXT;
        CREATE TABLE followed_accounts (
          network TEXT NOT NULL,
          account TEXT NOT NULL,
          owner TEXT,
          last_signature TEXT,
          state TEXT,
          PRIMARY KEY (network, account)
        ) STRICT;
        INSERT INTO followed_accounts (network, account, last_signature)
          SELECT network, account, signature FROM account_signatures;
        DROP TABLE account_signatures;
      `),
  },
  {
    // decisions.md section 22: a customer's deposit address is watched for as long as it exists
    description: 'deposit addresses watched',
    apply: (db) =>
      db.exec(`
        CREATE TABLE deposit_addresses_watched (
          network TEXT NOT NULL,
          address TEXT NOT NULL,
          merchant_id TEXT NOT NULL,
          merchant_user_id TEXT NOT NULL,
          PRIMARY KEY (network, address)
        ) STRICT;
      `),
  },
]

/**
 * What the chain indexer resumes from, in tables chain_cursors, watched_addresses,
 * tracked_transfers and followed_accounts. Watching or tracking again replaces the row: the latest report wins.
 */
export function createSqliteChainIndexerStore(db: DatabaseSync): ChainIndexerStore {
  migrateSqliteComponent(db, 'chain-indexer', chainIndexerMigrations)
  const selectCursor = db.prepare('SELECT height, hash FROM chain_cursors WHERE network = ?')
  const upsertCursor = db.prepare(`
    INSERT INTO chain_cursors (network, height, hash) VALUES (?, ?, ?)
    ON CONFLICT (network) DO UPDATE SET height = excluded.height, hash = excluded.hash
  `)
  const upsertWatched = db.prepare(`
    INSERT OR REPLACE INTO watched_addresses (network, address, payment_id, asset_contract, watch_until,
      payment_created_at, required_confirmations, watching_reported_at, owner, closed_at)
    VALUES (:network, :address, :paymentId, :assetContract, :watchUntil,
      :paymentCreatedAt, :requiredConfirmations, :watchingReportedAt, :owner, :closedAt)
  `)
  const deleteWatched = db.prepare('DELETE FROM watched_addresses WHERE network = ? AND address = ?')
  const selectWatched = db.prepare('SELECT * FROM watched_addresses WHERE network = ? ORDER BY address')
  const selectExpired = db.prepare(`
    SELECT * FROM watched_addresses
    WHERE network = :network AND watch_until < :before AND watching_reported_at IS NOT NULL
    ORDER BY watch_until LIMIT :limit
  `)
  const upsertTracked = db.prepare(`
    INSERT OR REPLACE INTO tracked_transfers (network, tx_hash, transfer_index, payment_id, address,
      amount_units, block_height, block_hash, block_time, confirmations, required_confirmations,
      withdrawn_until_height, expires_at, foreign_currency, foreign_decimals, owner)
    VALUES (:network, :txHash, :index, :paymentId, :address,
      :amountUnits, :blockHeight, :blockHash, :blockTime, :confirmations, :requiredConfirmations,
      :withdrawnUntilHeight, :expiresAt, :foreignCurrency, :foreignDecimals, :owner)
  `)
  const deleteTracked = db.prepare(
    'DELETE FROM tracked_transfers WHERE network = ? AND tx_hash = ? AND transfer_index = ?',
  )
  const selectTracked = db.prepare(
    'SELECT * FROM tracked_transfers WHERE network = ? ORDER BY block_height, tx_hash, transfer_index',
  )
  const upsertFollowedAccount = db.prepare(`
    INSERT OR REPLACE INTO followed_accounts (network, account, owner, last_signature, state)
    VALUES (?, ?, ?, ?, ?)
  `)
  const deleteFollowedAccount = db.prepare('DELETE FROM followed_accounts WHERE network = ? AND account = ?')
  const selectFollowedAccounts = db.prepare(
    'SELECT account, owner, last_signature, state FROM followed_accounts WHERE network = ? ORDER BY account',
  )

  const insertDepositAddress = db.prepare(`
    INSERT OR IGNORE INTO deposit_addresses_watched (network, address, merchant_id, merchant_user_id)
    VALUES (?, ?, ?, ?)
  `)
  const selectDepositAddresses = db.prepare(
    'SELECT * FROM deposit_addresses_watched WHERE network = ? ORDER BY address',
  )

  // every write with the other writes of this turn in one commit (group-commit.ts)
  const write = groupCommitOf(db).run
  return translateFailures(
    {
      async loadCursor(network) {
        const row = selectCursor.get(network)
        return row === undefined ? null : { height: Number(row.height), hash: row.hash as string }
      },

      async saveCursor(network, cursor) {
        await write(() => upsertCursor.run(network, cursor.height, cursor.hash))
      },

      async watch(address) {
        await write(() =>
          upsertWatched.run({
            network: address.network,
            address: address.address,
            paymentId: address.paymentId,
            assetContract: address.assetContract,
            watchUntil: address.watchUntil,
            paymentCreatedAt: address.paymentCreatedAt,
            requiredConfirmations: address.requiredConfirmations,
            watchingReportedAt: address.watchingReportedAt,
            owner: address.owner ?? null,
            closedAt: address.closedAt ?? null,
          }),
        )
      },

      async unwatch(network, address) {
        await write(() => deleteWatched.run(network, address))
      },

      async unwatchExpired(network, before, limit) {
        return await write(() => {
          const expired = selectExpired.all({ network, before, limit }).map(toWatched)
          for (const entry of expired) deleteWatched.run(network, entry.address)
          return expired
        })
      },

      async listWatched(network) {
        return selectWatched.all(network).map(toWatched)
      },

      async track(transfer) {
        await write(() =>
          upsertTracked.run({
            network: transfer.network,
            txHash: transfer.txHash,
            index: transfer.index,
            paymentId: transfer.paymentId,
            address: transfer.address,
            amountUnits: transfer.amountUnits,
            blockHeight: transfer.blockHeight,
            blockHash: transfer.blockHash,
            blockTime: transfer.blockTime,
            confirmations: transfer.confirmations,
            requiredConfirmations: transfer.requiredConfirmations,
            withdrawnUntilHeight: transfer.withdrawnUntilHeight,
            expiresAt: transfer.expiresAt,
            foreignCurrency: transfer.foreign?.currency ?? null,
            foreignDecimals: transfer.foreign?.decimals ?? null,
            owner: transfer.owner ?? null,
          }),
        )
      },

      async untrack(network, txHash, index) {
        await write(() => deleteTracked.run(network, txHash, index))
      },

      async saveFollowedAccount(network, { account, owner, lastSignature, state }) {
        await write(() => upsertFollowedAccount.run(network, account, owner, lastSignature, state))
      },

      async forgetFollowedAccount(network, account) {
        await write(() => deleteFollowedAccount.run(network, account))
      },

      async listFollowedAccounts(network) {
        return selectFollowedAccounts.all(network).map((row) => ({
          account: row.account as string,
          owner: row.owner as string | null,
          lastSignature: row.last_signature as string | null,
          state: row.state as string | null,
        }))
      },

      async watchDepositAddress(entry) {
        await write(() =>
          insertDepositAddress.run(entry.network, entry.address, entry.merchantId, entry.merchantUserId),
        )
      },

      async listDepositAddresses(network) {
        return selectDepositAddresses.all(network).map((row) => ({
          network: row.network as string,
          address: row.address as string,
          merchantId: row.merchant_id as string,
          merchantUserId: row.merchant_user_id as string,
        }))
      },

      async listTracked(network) {
        return selectTracked.all(network).map(
          (row): TrackedTransfer => ({
            network: row.network as string,
            paymentId: row.payment_id as string,
            txHash: row.tx_hash as string,
            index: Number(row.transfer_index),
            address: row.address as string,
            amountUnits: row.amount_units as string,
            blockHeight: Number(row.block_height),
            blockHash: row.block_hash as string,
            blockTime: row.block_time as string,
            confirmations: Number(row.confirmations),
            requiredConfirmations: Number(row.required_confirmations),
            withdrawnUntilHeight:
              row.withdrawn_until_height === null ? null : Number(row.withdrawn_until_height),
            expiresAt: (row.expires_at as string | null) ?? null,
            foreign:
              row.foreign_currency === null
                ? null
                : { currency: row.foreign_currency as string, decimals: Number(row.foreign_decimals) },
            ...(typeof row.owner === 'string' ? { owner: row.owner } : {}),
          }),
        )
      },
    },
    translateSqliteFailure,
  )
}

/**
 * The watch set's prune (unwatchExpired) reads the addresses whose window ended, a range of this
 * index, rather than every watched address. Its own function, so that a database file made before it
 * gets it at start like a fresh one.
 */

function toWatched(row: Record<string, unknown>): WatchedAddress {
  return {
    network: row.network as string,
    address: row.address as string,
    paymentId: row.payment_id as string,
    assetContract: row.asset_contract as string | null,
    watchUntil: row.watch_until as string,
    paymentCreatedAt: row.payment_created_at as string,
    requiredConfirmations: Number(row.required_confirmations),
    watchingReportedAt: row.watching_reported_at as string | null,
    ...(typeof row.owner === 'string' ? { owner: row.owner } : {}),
    closedAt: (row.closed_at as string | null) ?? null,
  }
}

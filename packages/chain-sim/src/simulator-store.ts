// The simulator's durable state, in the SQLite file it is given. A transaction row without a
// block height is in the mempool; mining a block assigns the height in the same commit.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { ChainBlock, ChainHead, ChainTransfer } from '@chainpay/ports'
import { inTransaction, migrateSqliteComponent, type SqliteMigration } from '@chainpay/store-sqlite'

export interface StoredTransfer {
  to: string
  /** null for the native coin */
  contract: string | null
  amountUnits: string
  /** decimals of the currency the transfer pays (a counterfeit token copies its original's) */
  decimals: number
  /** TRX that a contract sends (a TRON internal transaction): absent or false for a plain transfer */
  internal?: boolean
  /** Solana: the receiving token account, when it was opened with a given owner (read back only) */
  tokenAccount?: StoredTokenAccount
}

/** a Solana token account opened with a given owner and mint */
export interface StoredTokenAccount {
  address: string
  owner: string
  mint: string
}

export interface StoredTransaction {
  txHash: string
  from: string
  /** null when the transaction succeeded; else how it failed (TRON REVERT, OUT_OF_ENERGY, ...) */
  failure: string | null
  /** in the order they appear in the transaction: a TRC20 multisend's logs, Solana instructions */
  transfers: StoredTransfer[]
  /** when it was submitted: a TRON transaction expires 60 s after (tronweb's default) */
  submittedAt?: string
}

/** a block with its transactions as stored: what node-shaped routes render */
export interface StoredBlock extends Omit<ChainBlock, 'transfers'> {
  transactions: StoredTransaction[]
}

export interface SimulatorStore {
  inTransaction<T>(work: () => T): T
  head(network: string): ChainHead | undefined
  insertBlock(network: string, block: Omit<ChainBlock, 'transfers'>): void
  /** puts every mempool transaction into the block at `height`, keeping submission order */
  includeMempool(network: string, height: number): number
  insertTransaction(network: string, transaction: StoredTransaction, submittedAt: string): void
  /** the blocks with from <= height <= to and their transactions, in block and submission order */
  blockDetails(network: string, fromHeight: number, toHeight: number): StoredBlock[]
  /** the block height of a transaction: a number, null while in the mempool, undefined if unknown */
  transactionHeight(network: string, txHash: string): number | null | undefined
  deleteTransaction(network: string, txHash: string): void
  /** back to the mempool, as java-tron re-queues the transactions of the blocks a fork switch pops */
  /** back to the mempool; with `failure`, it fails where it is included again */
  requeueTransaction(network: string, txHash: string, failure?: string): void
  blocks(network: string, fromHeight: number, toHeight: number): ChainBlock[]
  rehashBlock(network: string, height: number, hash: string, parentHash: string): void
  /** false if the address is already a token account */
  insertTokenAccount(network: string, account: StoredTokenAccount): boolean
  tokenAccount(network: string, address: string): StoredTokenAccount | undefined
  tokenAccountsOf(network: string, owner: string): StoredTokenAccount[]
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sim_blocks (
  network TEXT NOT NULL,
  height INTEGER NOT NULL,
  hash TEXT NOT NULL,
  parent_hash TEXT NOT NULL,
  time TEXT NOT NULL,
  PRIMARY KEY (network, height)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sim_transfers (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  network TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  transfer_index INTEGER NOT NULL,
  block_height INTEGER,
  from_address TEXT NOT NULL,
  to_address TEXT NOT NULL,
  contract TEXT,
  amount_units TEXT NOT NULL,
  decimals INTEGER NOT NULL,
  failure TEXT,
  submitted_at TEXT NOT NULL,
  UNIQUE (network, tx_hash, transfer_index)
);
CREATE INDEX IF NOT EXISTS sim_transfers_by_block ON sim_transfers (network, block_height, seq);
`

// Data directories from before multi-transfer transactions kept one transfer per row in
// sim_transactions; their transfers move over once. Their decimals were not kept: 6 is the
// registry's token decimals and only feeds node-shaped renderings.
const MIGRATE_SINGLE_TRANSFER_ROWS = `
INSERT OR IGNORE INTO sim_transfers
  (network, tx_hash, transfer_index, block_height, from_address, to_address, contract, amount_units,
   decimals, failure, submitted_at)
SELECT network, tx_hash, 0, block_height, from_address, to_address, contract, amount_units,
       6, CASE success WHEN 1 THEN NULL ELSE 'REVERT' END, submitted_at
FROM sim_transactions ORDER BY seq;
DROP TABLE sim_transactions;
`

/** the simulator's schema versions (docs/operations.md, "Upgrades and rollbacks") */
export const simulatorMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) => {
      db.exec(SCHEMA)
      const legacy = db
        .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sim_transactions'")
        .get()
      if (legacy) db.exec(MIGRATE_SINGLE_TRANSFER_ROWS)
    },
  },
  {
    description: 'TRX sent by a contract (TRON internal transactions)',
    apply: (db) => {
      // tolerant of a file that has it already (schema-versions.ts)
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('sim_transfers')
      if (columns.some((column) => column.name === 'internal')) return
      db.exec('ALTER TABLE sim_transfers ADD COLUMN internal INTEGER NOT NULL DEFAULT 0')
    },
  },
  {
    description: 'Solana token accounts opened with a given owner',
    apply: (db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS sim_token_accounts (
        network TEXT NOT NULL,
        address TEXT NOT NULL,
        owner TEXT NOT NULL,
        mint TEXT NOT NULL,
        PRIMARY KEY (network, address)
      ) WITHOUT ROWID`)
    },
  },
]

export function createSimulatorStore(db: DatabaseSync): SimulatorStore {
  migrateSqliteComponent(db, 'chain-simulator', simulatorMigrations)
  const statements = {
    head: db.prepare(
      'SELECT height, hash, time FROM sim_blocks WHERE network = ? ORDER BY height DESC LIMIT 1',
    ),
    insertBlock: db.prepare(
      'INSERT INTO sim_blocks (network, height, hash, parent_hash, time) VALUES (?, ?, ?, ?, ?)',
    ),
    includeMempool: db.prepare(
      'UPDATE sim_transfers SET block_height = ? WHERE network = ? AND block_height IS NULL',
    ),
    insertTransfer: db.prepare(
      `INSERT INTO sim_transfers
         (network, tx_hash, transfer_index, block_height, from_address, to_address, contract,
          amount_units, decimals, failure, submitted_at, internal)
       VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    transactionHeight: db.prepare(
      'SELECT block_height FROM sim_transfers WHERE network = ? AND tx_hash = ? LIMIT 1',
    ),
    deleteTransaction: db.prepare('DELETE FROM sim_transfers WHERE network = ? AND tx_hash = ?'),
    requeueTransaction: db.prepare(
      'UPDATE sim_transfers SET block_height = NULL, failure = COALESCE(?, failure) WHERE network = ? AND tx_hash = ?',
    ),
    blocks: db.prepare(
      `SELECT height, hash, parent_hash, time FROM sim_blocks
       WHERE network = ? AND height BETWEEN ? AND ? ORDER BY height`,
    ),
    transfers: db.prepare(
      `SELECT t.tx_hash, t.transfer_index, t.block_height, t.from_address, t.to_address, t.contract,
              t.amount_units, t.decimals, t.failure, t.submitted_at, t.internal,
              a.owner AS account_owner, a.mint AS account_mint
       FROM sim_transfers t
       LEFT JOIN sim_token_accounts a ON a.network = t.network AND a.address = t.to_address
       WHERE t.network = ? AND t.block_height BETWEEN ? AND ? ORDER BY t.block_height, t.seq`,
    ),
    insertTokenAccount: db.prepare(
      'INSERT OR IGNORE INTO sim_token_accounts (network, address, owner, mint) VALUES (?, ?, ?, ?)',
    ),
    tokenAccount: db.prepare(
      'SELECT address, owner, mint FROM sim_token_accounts WHERE network = ? AND address = ?',
    ),
    tokenAccountsOf: db.prepare(
      'SELECT address, owner, mint FROM sim_token_accounts WHERE network = ? AND owner = ? ORDER BY address',
    ),
    rehashBlock: db.prepare(
      'UPDATE sim_blocks SET hash = ?, parent_hash = ? WHERE network = ? AND height = ?',
    ),
  }

  function blockRows(network: string, fromHeight: number, toHeight: number) {
    return statements.blocks.all(network, fromHeight, toHeight).map((row) => ({
      height: Number(row.height),
      hash: String(row.hash),
      parentHash: String(row.parent_hash),
      time: String(row.time),
    }))
  }

  return {
    inTransaction: (work) => inTransaction(db, work),
    head(network) {
      const row = statements.head.get(network)
      return row && { height: Number(row.height), hash: String(row.hash), time: String(row.time) }
    },
    insertBlock(network, block) {
      statements.insertBlock.run(network, block.height, block.hash, block.parentHash, block.time)
    },
    includeMempool(network, height) {
      return Number(statements.includeMempool.run(height, network).changes)
    },
    insertTransaction(network, transaction, submittedAt) {
      const { txHash, from, failure, transfers } = transaction
      for (const [index, { to, contract, amountUnits, decimals, internal }] of transfers.entries()) {
        const values: SQLInputValue[] = [
          network,
          txHash,
          index,
          from,
          to,
          contract,
          amountUnits,
          decimals,
          failure,
          submittedAt,
          internal === true ? 1 : 0,
        ]
        statements.insertTransfer.run(...values)
      }
    },
    transactionHeight(network, txHash) {
      const row = statements.transactionHeight.get(network, txHash)
      if (!row) return undefined
      return row.block_height === null ? null : Number(row.block_height)
    },
    deleteTransaction(network, txHash) {
      statements.deleteTransaction.run(network, txHash)
    },
    requeueTransaction(network, txHash, failure) {
      statements.requeueTransaction.run(failure ?? null, network, txHash)
    },
    blocks(network, fromHeight, toHeight) {
      const blocks = blockRows(network, fromHeight, toHeight).map(
        (block): ChainBlock => ({ ...block, transfers: [] }),
      )
      const byHeight = new Map(blocks.map((block) => [block.height, block]))
      for (const row of statements.transfers.all(network, fromHeight, toHeight)) {
        byHeight.get(Number(row.block_height))?.transfers.push(toTransfer(row))
      }
      return blocks
    },
    blockDetails(network, fromHeight, toHeight) {
      const blocks = blockRows(network, fromHeight, toHeight).map(
        (block): StoredBlock => ({ ...block, transactions: [] }),
      )
      const byHeight = new Map(blocks.map((block) => [block.height, block]))
      for (const row of statements.transfers.all(network, fromHeight, toHeight)) {
        const block = byHeight.get(Number(row.block_height))
        if (block === undefined) continue
        const txHash = String(row.tx_hash)
        let transaction = block.transactions.at(-1)
        if (transaction?.txHash !== txHash) {
          transaction = {
            txHash,
            from: String(row.from_address),
            failure: row.failure === null ? null : String(row.failure),
            transfers: [],
            submittedAt: String(row.submitted_at),
          }
          block.transactions.push(transaction)
        }
        transaction.transfers.push({
          to: String(row.to_address),
          contract: row.contract === null ? null : String(row.contract),
          amountUnits: String(row.amount_units),
          decimals: Number(row.decimals),
          ...(Number(row.internal) === 1 ? { internal: true } : {}),
          ...(row.account_owner === null
            ? {}
            : {
                tokenAccount: {
                  address: String(row.to_address),
                  owner: String(row.account_owner),
                  mint: String(row.account_mint),
                },
              }),
        })
      }
      return blocks
    },
    insertTokenAccount(network, { address, owner, mint }) {
      return Number(statements.insertTokenAccount.run(network, address, owner, mint).changes) === 1
    },
    tokenAccount(network, address) {
      const row = statements.tokenAccount.get(network, address)
      return row && { address: String(row.address), owner: String(row.owner), mint: String(row.mint) }
    },
    tokenAccountsOf(network, owner) {
      return statements.tokenAccountsOf.all(network, owner).map((row) => ({
        address: String(row.address),
        owner: String(row.owner),
        mint: String(row.mint),
      }))
    },
    rehashBlock(network, height, hash, parentHash) {
      statements.rehashBlock.run(hash, parentHash, network, height)
    },
  }
}

function toTransfer(row: Record<string, unknown>): ChainTransfer {
  return {
    txHash: String(row.tx_hash),
    index: Number(row.transfer_index),
    from: String(row.from_address),
    to: String(row.to_address),
    asset: row.contract === null ? { kind: 'native' } : { kind: 'token', contract: String(row.contract) },
    amountUnits: String(row.amount_units),
    success: row.failure === null,
    ...(Number(row.internal) === 1 ? { internal: true } : {}),
  }
}

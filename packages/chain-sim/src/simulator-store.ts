// The simulator's durable state, in the SQLite file it is given. A transaction row without a
// block height is in the mempool; mining a block assigns the height in the same commit.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite'
import type { ChainBlock, ChainHead, ChainTransfer } from '@chainpay/ports'
import { inTransaction } from '@chainpay/store-sqlite'

export interface StoredTransaction {
  txHash: string
  from: string
  to: string
  /** null for the native coin */
  contract: string | null
  amountUnits: string
  success: boolean
}

export interface SimulatorStore {
  inTransaction<T>(work: () => T): T
  head(network: string): ChainHead | undefined
  insertBlock(network: string, block: Omit<ChainBlock, 'transfers'>): void
  /** puts every mempool transaction into the block at `height`, keeping submission order */
  includeMempool(network: string, height: number): number
  insertTransaction(network: string, transaction: StoredTransaction, submittedAt: string): void
  /** the block height of a transaction: a number, null while in the mempool, undefined if unknown */
  transactionHeight(network: string, txHash: string): number | null | undefined
  deleteTransaction(network: string, txHash: string): void
  blocks(network: string, fromHeight: number, toHeight: number): ChainBlock[]
  rehashBlock(network: string, height: number, hash: string, parentHash: string): void
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
CREATE TABLE IF NOT EXISTS sim_transactions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  network TEXT NOT NULL,
  tx_hash TEXT NOT NULL,
  block_height INTEGER,
  from_address TEXT NOT NULL,
  to_address TEXT NOT NULL,
  contract TEXT,
  amount_units TEXT NOT NULL,
  success INTEGER NOT NULL,
  submitted_at TEXT NOT NULL,
  UNIQUE (network, tx_hash)
);
CREATE INDEX IF NOT EXISTS sim_transactions_by_block ON sim_transactions (network, block_height, seq);
`

export function createSimulatorStore(db: DatabaseSync): SimulatorStore {
  db.exec(SCHEMA)
  const statements = {
    head: db.prepare(
      'SELECT height, hash, time FROM sim_blocks WHERE network = ? ORDER BY height DESC LIMIT 1',
    ),
    insertBlock: db.prepare(
      'INSERT INTO sim_blocks (network, height, hash, parent_hash, time) VALUES (?, ?, ?, ?, ?)',
    ),
    includeMempool: db.prepare(
      'UPDATE sim_transactions SET block_height = ? WHERE network = ? AND block_height IS NULL',
    ),
    insertTransaction: db.prepare(
      `INSERT INTO sim_transactions
         (network, tx_hash, block_height, from_address, to_address, contract, amount_units, success, submitted_at)
       VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
    ),
    transactionHeight: db.prepare(
      'SELECT block_height FROM sim_transactions WHERE network = ? AND tx_hash = ?',
    ),
    deleteTransaction: db.prepare('DELETE FROM sim_transactions WHERE network = ? AND tx_hash = ?'),
    blocks: db.prepare(
      `SELECT height, hash, parent_hash, time FROM sim_blocks
       WHERE network = ? AND height BETWEEN ? AND ? ORDER BY height`,
    ),
    transactions: db.prepare(
      `SELECT tx_hash, block_height, from_address, to_address, contract, amount_units, success
       FROM sim_transactions WHERE network = ? AND block_height BETWEEN ? AND ? ORDER BY block_height, seq`,
    ),
    rehashBlock: db.prepare(
      'UPDATE sim_blocks SET hash = ?, parent_hash = ? WHERE network = ? AND height = ?',
    ),
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
      const { txHash, from, to, contract, amountUnits, success } = transaction
      const values: SQLInputValue[] = [
        network,
        txHash,
        from,
        to,
        contract,
        amountUnits,
        success ? 1 : 0,
        submittedAt,
      ]
      statements.insertTransaction.run(...values)
    },
    transactionHeight(network, txHash) {
      const row = statements.transactionHeight.get(network, txHash)
      if (!row) return undefined
      return row.block_height === null ? null : Number(row.block_height)
    },
    deleteTransaction(network, txHash) {
      statements.deleteTransaction.run(network, txHash)
    },
    blocks(network, fromHeight, toHeight) {
      const blocks = statements.blocks.all(network, fromHeight, toHeight).map(
        (row): ChainBlock => ({
          height: Number(row.height),
          hash: String(row.hash),
          parentHash: String(row.parent_hash),
          time: String(row.time),
          transfers: [],
        }),
      )
      const byHeight = new Map(blocks.map((block) => [block.height, block]))
      for (const row of statements.transactions.all(network, fromHeight, toHeight)) {
        byHeight.get(Number(row.block_height))?.transfers.push(toTransfer(row))
      }
      return blocks
    },
    rehashBlock(network, height, hash, parentHash) {
      statements.rehashBlock.run(hash, parentHash, network, height)
    },
  }
}

function toTransfer(row: Record<string, unknown>): ChainTransfer {
  return {
    txHash: String(row.tx_hash),
    // one transfer per simulated transaction
    index: 0,
    from: String(row.from_address),
    to: String(row.to_address),
    asset: row.contract === null ? { kind: 'native' } : { kind: 'token', contract: String(row.contract) },
    amountUnits: String(row.amount_units),
    success: Number(row.success) === 1,
  }
}

// The simulator's durable state, in the SQLite file it is given. A transaction row without a
// block height is in the mempool; mining a block assigns the height in the same commit.
import type { DatabaseSync, SQLInputValue, SQLOutputValue } from 'node:sqlite'
import type { ChainBlock, ChainHead, ChainTransfer } from '@chainpay/ports'
import { inTransaction, migrateSqliteComponent, type SqliteMigration } from '@chainpay/store-sqlite'

export interface StoredTransfer {
  /** the sender when it is not the transaction's (a signed Solana transaction's token account) */
  from?: string
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

/** a signed Solana transaction: who paid which fee, and how it renders */
export interface SolanaRecord {
  signature: string
  payer: string
  feeUnits: bigint
  /** solana-rpc-blocks.ts, solanaRecordText */
  record: string
}

export interface StoredNonceAccount {
  address: string
  authority: string
  nonce: string | undefined
}

/** a signed TRON transaction: what its owner paid and how it renders */
export interface TronStoredRecord {
  txId: string
  owner: string
  /** TRX burned (fee of the receipt) */
  feeUnits: bigint
  /** free bandwidth it used, bytes */
  freeBytes: number
  /** energy it took from the owner's staked or delegated energy */
  stakedEnergy: number
  /** TRX frozen by FreezeBalanceV2 (sun), by the owner for itself */
  frozenUnits: bigint
  /** TRX-worth of energy delegated to `receiver` (negative: undelegated) */
  delegation?: { receiver: string; units: bigint } | undefined
  submittedMs: number
  record: string
}

/** a TRON account's resources from its signed transactions (tron-ledger.ts) */
export interface TronResourceState {
  feesPaid: bigint
  frozen: bigint
  delegatedOut: bigint
  delegatedIn: bigint
  freeBytesSince: number
  stakedEnergySince: number
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
  /** a signed Solana transaction: how the node renders it (solana-rpc-blocks.ts, solanaRecordText) */
  solanaRecord?: string
  /** a signed TRON transaction: how the node renders it (tron-node-blocks.ts, TronRecord) */
  tronRecord?: string
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
  /** whether the address was ever a token account opened with an owner, closed since or not */
  knownTokenAccount(network: string, address: string): boolean
  tokenAccountsOf(network: string, owner: string): StoredTokenAccount[]
  /**
   * Solana ledger state after every accepted transaction, the mempool's included (a validator's
   * `processed` state): lamports an address holds; tokens a token account holds of `mint`
   */
  solanaLamports(network: string, address: string): bigint
  solanaTokenAmount(network: string, address: string, mint: string): bigint
  /** the tokens (contracts) an address received in succeeded transfers, the mempool's included */
  contractsReceived(network: string, address: string): string[]
  /** a token account opened by a signed transaction: its rent came from a transfer, not from outside */
  openFundedTokenAccount(network: string, account: StoredTokenAccount): void
  /** closes a token account: it is no token account any more (its rows in blocks keep its owner) */
  closeTokenAccount(network: string, address: string): void
  /** the height of the block with this hash; undefined if there is none */
  blockHeightOfHash(network: string, hash: string): number | undefined
  /** a Solana durable nonce account: its authority and nonce (null until initialized) */
  nonceAccount(network: string, address: string): StoredNonceAccount | undefined
  putNonceAccount(network: string, account: StoredNonceAccount): void
  /** how a signed Solana transaction renders, kept next to its transfers */
  insertSolanaRecord(network: string, record: SolanaRecord): void
  /** a signed TRON transaction's record, kept next to its transfers */
  insertTronRecord(network: string, record: TronStoredRecord): void
  /** resources of a TRON account; usage counted from records submitted at or after `sinceMs` */
  tronResources(network: string, address: string, sinceMs: number): TronResourceState
  /** net units an address received (null: the native coin), succeeded transfers, mempool included */
  netReceived(network: string, address: string, contract: string | null): bigint
  /** whether any succeeded native transfer reached the address (a TRON account exists) */
  receivedNative(network: string, address: string): boolean
  /** TRX-worth of energy `owner` delegates to `receiver` now */
  tronDelegated(network: string, owner: string, receiver: string): bigint
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
  {
    description: 'Solana signed transactions: their rendering, token account rent and closing',
    apply: (db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS sim_solana_records (
        network TEXT NOT NULL,
        signature TEXT NOT NULL,
        payer TEXT NOT NULL,
        fee_units TEXT NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (network, signature)
      ) WITHOUT ROWID`)
      const columns = db.prepare('SELECT name FROM pragma_table_info(?)').all('sim_token_accounts')
      // a token account opened from outside (openTokenAccount) was given its rent-exempt minimum
      if (!columns.some((column) => column.name === 'outside_lamports')) {
        db.exec("ALTER TABLE sim_token_accounts ADD COLUMN outside_lamports TEXT NOT NULL DEFAULT '2039280'")
      }
      if (!columns.some((column) => column.name === 'closed')) {
        db.exec('ALTER TABLE sim_token_accounts ADD COLUMN closed INTEGER NOT NULL DEFAULT 0')
      }
      db.exec('CREATE INDEX IF NOT EXISTS sim_transfers_by_to ON sim_transfers (network, to_address)')
      db.exec('CREATE INDEX IF NOT EXISTS sim_transfers_by_from ON sim_transfers (network, from_address)')
      db.exec(`CREATE TABLE IF NOT EXISTS sim_solana_nonces (
        network TEXT NOT NULL,
        address TEXT NOT NULL,
        authority TEXT NOT NULL,
        nonce TEXT,
        PRIMARY KEY (network, address)
      ) WITHOUT ROWID`)
      db.exec('CREATE INDEX IF NOT EXISTS sim_solana_records_by_payer ON sim_solana_records (network, payer)')
      db.exec('CREATE INDEX IF NOT EXISTS sim_blocks_by_hash ON sim_blocks (network, hash)')
    },
  },
  {
    description: 'TRON signed transactions: fees, bandwidth and energy used, stakes and delegations',
    apply: (db) => {
      db.exec(`CREATE TABLE IF NOT EXISTS sim_tron_records (
        network TEXT NOT NULL,
        tx_id TEXT NOT NULL,
        owner TEXT NOT NULL,
        fee_units TEXT NOT NULL,
        free_bytes INTEGER NOT NULL,
        staked_energy INTEGER NOT NULL,
        frozen_units TEXT NOT NULL,
        receiver TEXT,
        delegated_units TEXT NOT NULL,
        submitted_ms INTEGER NOT NULL,
        record TEXT NOT NULL,
        PRIMARY KEY (network, tx_id)
      ) WITHOUT ROWID`)
      db.exec('CREATE INDEX IF NOT EXISTS sim_tron_records_by_owner ON sim_tron_records (network, owner)')
      db.exec(
        'CREATE INDEX IF NOT EXISTS sim_tron_records_by_receiver ON sim_tron_records (network, receiver)',
      )
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
              a.owner AS account_owner, a.mint AS account_mint, r.record AS solana_record,
              tr.record AS tron_record
       FROM sim_transfers t
       LEFT JOIN sim_token_accounts a ON a.network = t.network AND a.address = t.to_address
       LEFT JOIN sim_solana_records r ON r.network = t.network AND r.signature = t.tx_hash
       LEFT JOIN sim_tron_records tr ON tr.network = t.network AND tr.tx_id = t.tx_hash
       WHERE t.network = ? AND t.block_height BETWEEN ? AND ? ORDER BY t.block_height, t.seq`,
    ),
    insertTokenAccount: db.prepare(
      `INSERT INTO sim_token_accounts (network, address, owner, mint) VALUES (?, ?, ?, ?)
       ON CONFLICT (network, address) DO UPDATE SET owner = excluded.owner, mint = excluded.mint, closed = 0
       WHERE closed = 1`,
    ),
    openFundedTokenAccount: db.prepare(
      `INSERT INTO sim_token_accounts (network, address, owner, mint, outside_lamports) VALUES (?, ?, ?, ?, '0')
       ON CONFLICT (network, address) DO UPDATE SET owner = excluded.owner, mint = excluded.mint, closed = 0`,
    ),
    closeTokenAccount: db.prepare(
      'UPDATE sim_token_accounts SET closed = 1 WHERE network = ? AND address = ?',
    ),
    tokenAccount: db.prepare(
      'SELECT address, owner, mint FROM sim_token_accounts WHERE network = ? AND address = ? AND closed = 0',
    ),
    knownTokenAccount: db.prepare('SELECT 1 FROM sim_token_accounts WHERE network = ? AND address = ?'),
    tokenAccountsOf: db.prepare(
      `SELECT address, owner, mint FROM sim_token_accounts WHERE network = ? AND owner = ? AND closed = 0
       ORDER BY address`,
    ),
    outsideLamports: db.prepare(
      'SELECT outside_lamports FROM sim_token_accounts WHERE network = ? AND address = ?',
    ),
    // succeeded transfers, the mempool's included; amounts summed exactly in JavaScript
    transfersTo: db.prepare(
      `SELECT amount_units FROM sim_transfers
       WHERE network = ? AND to_address = ? AND contract IS ? AND failure IS NULL`,
    ),
    transfersFrom: db.prepare(
      `SELECT amount_units FROM sim_transfers
       WHERE network = ? AND from_address = ? AND contract IS ? AND failure IS NULL`,
    ),
    contractsReceived: db.prepare(
      `SELECT DISTINCT contract FROM sim_transfers
       WHERE network = ? AND to_address = ? AND contract IS NOT NULL AND failure IS NULL ORDER BY contract`,
    ),
    blockHeightOfHash: db.prepare('SELECT height FROM sim_blocks WHERE network = ? AND hash = ?'),
    insertSolanaRecord: db.prepare(
      'INSERT INTO sim_solana_records (network, signature, payer, fee_units, record) VALUES (?, ?, ?, ?, ?)',
    ),
    nonceAccount: db.prepare(
      'SELECT address, authority, nonce FROM sim_solana_nonces WHERE network = ? AND address = ?',
    ),
    putNonceAccount: db.prepare(
      `INSERT INTO sim_solana_nonces (network, address, authority, nonce) VALUES (?, ?, ?, ?)
       ON CONFLICT (network, address) DO UPDATE SET authority = excluded.authority, nonce = excluded.nonce`,
    ),
    // named: SQLite's planner prefers the primary key's network prefix, a scan of every record
    feesPaid: db.prepare(
      'SELECT fee_units FROM sim_solana_records INDEXED BY sim_solana_records_by_payer WHERE network = ? AND payer = ?',
    ),
    deleteSolanaRecord: db.prepare('DELETE FROM sim_solana_records WHERE network = ? AND signature = ?'),
    insertTronRecord: db.prepare(
      `INSERT INTO sim_tron_records (network, tx_id, owner, fee_units, free_bytes, staked_energy,
         frozen_units, receiver, delegated_units, submitted_ms, record)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    tronOwned: db.prepare(
      `SELECT fee_units, frozen_units, delegated_units, free_bytes, staked_energy, submitted_ms
       FROM sim_tron_records WHERE network = ? AND owner = ?`,
    ),
    tronReceived: db.prepare(
      'SELECT delegated_units FROM sim_tron_records WHERE network = ? AND receiver = ?',
    ),
    tronDelegated: db.prepare(
      'SELECT delegated_units FROM sim_tron_records WHERE network = ? AND owner = ? AND receiver = ?',
    ),
    deleteTronRecord: db.prepare('DELETE FROM sim_tron_records WHERE network = ? AND tx_id = ?'),
    receivedNative: db.prepare(
      `SELECT 1 FROM sim_transfers
       WHERE network = ? AND to_address = ? AND contract IS NULL AND failure IS NULL LIMIT 1`,
    ),
    rehashBlock: db.prepare(
      'UPDATE sim_blocks SET hash = ?, parent_hash = ? WHERE network = ? AND height = ?',
    ),
  }

  function netOf(network: string, address: string, contract: string | null): bigint {
    return (
      sumOf(statements.transfersTo.all(network, address, contract), 'amount_units') -
      sumOf(statements.transfersFrom.all(network, address, contract), 'amount_units')
    )
  }

  function solanaFeesPaid(network: string, address: string): bigint {
    return sumOf(statements.feesPaid.all(network, address), 'fee_units')
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
      for (const [index, transfer] of transfers.entries()) {
        const { to, contract, amountUnits, decimals, internal } = transfer
        const values: SQLInputValue[] = [
          network,
          txHash,
          index,
          transfer.from ?? from,
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
      statements.deleteSolanaRecord.run(network, txHash)
      statements.deleteTronRecord.run(network, txHash)
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
            ...(row.solana_record === null ? {} : { solanaRecord: String(row.solana_record) }),
            ...(row.tron_record === null ? {} : { tronRecord: String(row.tron_record) }),
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
    knownTokenAccount: (network, address) => statements.knownTokenAccount.get(network, address) !== undefined,
    tokenAccountsOf(network, owner) {
      return statements.tokenAccountsOf.all(network, owner).map((row) => ({
        address: String(row.address),
        owner: String(row.owner),
        mint: String(row.mint),
      }))
    },
    solanaLamports(network, address) {
      const outside = statements.outsideLamports.get(network, address)
      return (
        (outside === undefined ? 0n : BigInt(String(outside.outside_lamports))) +
        netOf(network, address, null) -
        solanaFeesPaid(network, address)
      )
    },
    solanaTokenAmount(network, address, mint) {
      return netOf(network, address, mint)
    },
    contractsReceived(network, address) {
      return statements.contractsReceived.all(network, address).map((row) => String(row.contract))
    },
    openFundedTokenAccount(network, { address, owner, mint }) {
      statements.openFundedTokenAccount.run(network, address, owner, mint)
    },
    closeTokenAccount(network, address) {
      statements.closeTokenAccount.run(network, address)
    },
    blockHeightOfHash(network, hash) {
      const row = statements.blockHeightOfHash.get(network, hash)
      return row === undefined ? undefined : Number(row.height)
    },
    nonceAccount(network, address) {
      const row = statements.nonceAccount.get(network, address)
      return (
        row && {
          address: String(row.address),
          authority: String(row.authority),
          nonce: row.nonce === null ? undefined : String(row.nonce),
        }
      )
    },
    putNonceAccount(network, { address, authority, nonce }) {
      statements.putNonceAccount.run(network, address, authority, nonce ?? null)
    },
    insertSolanaRecord(network, { signature, payer, feeUnits, record }) {
      statements.insertSolanaRecord.run(network, signature, payer, feeUnits.toString(), record)
    },
    insertTronRecord(network, record) {
      statements.insertTronRecord.run(
        network,
        record.txId,
        record.owner,
        record.feeUnits.toString(),
        record.freeBytes,
        record.stakedEnergy,
        record.frozenUnits.toString(),
        record.delegation?.receiver ?? null,
        (record.delegation?.units ?? 0n).toString(),
        record.submittedMs,
        record.record,
      )
    },
    tronResources(network, address, sinceMs) {
      const owned = statements.tronOwned.all(network, address)
      const recent = owned.filter((row) => Number(row.submitted_ms) >= sinceMs)
      return {
        feesPaid: sumOf(owned, 'fee_units'),
        frozen: sumOf(owned, 'frozen_units'),
        delegatedOut: sumOf(owned, 'delegated_units'),
        delegatedIn: sumOf(statements.tronReceived.all(network, address), 'delegated_units'),
        freeBytesSince: recent.reduce((total, row) => total + Number(row.free_bytes), 0),
        stakedEnergySince: recent.reduce((total, row) => total + Number(row.staked_energy), 0),
      }
    },
    netReceived: (network, address, contract) => netOf(network, address, contract),
    receivedNative: (network, address) => statements.receivedNative.get(network, address) !== undefined,
    tronDelegated: (network, owner, receiver) =>
      sumOf(statements.tronDelegated.all(network, owner, receiver), 'delegated_units'),
    rehashBlock(network, height, hash, parentHash) {
      statements.rehashBlock.run(hash, parentHash, network, height)
    },
  }
}

function sumOf(rows: Record<string, SQLOutputValue>[], column: string): bigint {
  return rows.reduce((total, row) => total + BigInt(String(row[column])), 0n)
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
    // a token account opened with an owner (Solana): the owner the node's token balances name
    ...(row.account_owner === null || row.account_owner === undefined
      ? {}
      : { owner: String(row.account_owner) }),
  }
}

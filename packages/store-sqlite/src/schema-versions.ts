import { type DatabaseSync, inTransaction } from './database.js'

/**
 * Versioned storage (docs/operations.md, "Upgrades and rollbacks"). One SQLite file holds the tables
 * of every store of an installation, and each store owns its tables alone: so each store is a
 * component with its own version, one row of table schema_versions (component, version). A store
 * brings its component forward when it is created, one numbered migration after the other, each in
 * a transaction of its own together with the new version: a migration that fails leaves the file
 * at the version before it, and the next start tries again.
 *
 * Migration 1 of each component is its schema as the release before versioned storage (commit
 * b991541) wrote it, created only where absent: a file of that release has every table but no
 * version row, and is taken as version 0. Later migrations are the changes since, each tolerant of
 * a file written between that release and this rule (which had some of them already).
 */
export interface SqliteMigration {
  /** what it changes, for the log and the error message */
  readonly description: string
  /** runs inside the migration's transaction; must be synchronous */
  readonly apply: (db: DatabaseSync) => void
}

/** a migration applied: its component, the version it brought the component to, and what it changes */
export interface AppliedMigration {
  component: string
  version: number
  description: string
}

/** who hears of each migration applied to a database (openSqliteDatabase's onMigration), per connection */
const migrationListeners = new WeakMap<DatabaseSync, (applied: AppliedMigration) => void>()

/** `listener` hears of each migration applied to `db` from now on, once it is committed */
export function onSqliteMigration(db: DatabaseSync, listener: (applied: AppliedMigration) => void): void {
  migrationListeners.set(db, listener)
}

/** the file was written by a newer build: this one does not know its schema, and stops */
export class SchemaTooNewError extends Error {
  constructor(
    readonly component: string,
    readonly fileVersion: number,
    readonly knownVersion: number,
    readonly where: string,
  ) {
    super(
      `${where}: schema of ${component} is at version ${fileVersion}, newer than the ${knownVersion} this build knows; ` +
        'the data was written by a newer build: run that build (or a newer one), or restore the backup taken before the upgrade ' +
        '(docs/operations.md, "Upgrades and rollbacks")',
    )
    this.name = 'SchemaTooNewError'
  }
}

const createVersionsTable = `
  CREATE TABLE IF NOT EXISTS schema_versions (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    migrated_at TEXT NOT NULL
  ) STRICT
`

/** the component's version in the file: 0 when it has none (a new file, or one older than versions) */
export function sqliteSchemaVersion(db: DatabaseSync, component: string): number {
  db.exec(createVersionsTable)
  const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(component)
  return row === undefined ? 0 : Number(row.version)
}

/**
 * Brings `component` to the last of `migrations` (migration i + 1 is `migrations[i]`), or throws
 * SchemaTooNewError when the file is ahead of them. Another process opening the same file at the
 * same time is harmless: each migration re-reads the version under the write lock.
 */
export function migrateSqliteComponent(
  db: DatabaseSync,
  component: string,
  migrations: readonly SqliteMigration[],
): void {
  const known = migrations.length
  const check = (version: number) => {
    if (version > known) throw new SchemaTooNewError(component, version, known, `SQLite file ${fileOf(db)}`)
  }
  const atStart = sqliteSchemaVersion(db, component)
  check(atStart)
  if (atStart === known) return
  const setVersion = db.prepare(`
    INSERT INTO schema_versions (component, version, migrated_at) VALUES (?, ?, ?)
    ON CONFLICT (component) DO UPDATE SET version = excluded.version, migrated_at = excluded.migrated_at
  `)
  for (let target = atStart + 1; target <= known; target++) {
    const applied = inTransaction(db, () => {
      const current = sqliteSchemaVersion(db, component)
      check(current)
      if (current >= target) return false
      migrations[target - 1]?.apply(db)
      setVersion.run(component, target, new Date().toISOString())
      return true
    })
    if (applied) {
      const description = migrations[target - 1]?.description ?? ''
      migrationListeners.get(db)?.({ component, version: target, description })
    }
  }
}

/** the names of a table's columns */
export function columnsOf(db: DatabaseSync, table: string): Set<string> {
  return new Set(
    db
      .prepare('SELECT name FROM pragma_table_info(?)')
      .all(table)
      .map((row) => row.name as string),
  )
}

function fileOf(db: DatabaseSync): string {
  const row = db.prepare("SELECT file FROM pragma_database_list WHERE name = 'main'").get()
  return (row?.file as string | undefined) || ':memory:'
}

import { type CheckpointStore, translateFailures } from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the checkpoints component's schema versions (schema-versions.ts) */
export const checkpointMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
    CREATE TABLE IF NOT EXISTS checkpoints (
      name TEXT PRIMARY KEY,
      position TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT
      `),
  },
]

/** Named positions on SQLite, one row per name, kept verbatim as text. */
export function createSqliteCheckpointStore(db: DatabaseSync): CheckpointStore {
  migrateSqliteComponent(db, 'checkpoints', checkpointMigrations)
  const load = db.prepare('SELECT position FROM checkpoints WHERE name = ?')
  const store = db.prepare(
    `INSERT INTO checkpoints (name, position, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
  )
  return translateFailures(
    {
      async load(name) {
        const row = load.get(name)
        return row === undefined ? null : String(row.position)
      },
      async store(name, position) {
        const updatedAt = new Date().toISOString()
        await groupCommitOf(db).run(() => store.run(name, position, updatedAt))
      },
    },
    translateSqliteFailure,
  )
}

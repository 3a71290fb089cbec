// The statements of a list whose SQL depends on its filters (a WHERE clause built per query): each
// distinct text is prepared once and kept, as the handful of filter combinations a list has allows.

import type { StatementSync } from 'node:sqlite'
import type { DatabaseSync } from './database.js'

/** the prepared statement of `sql`, prepared on its first use */
export function preparedStatements(db: DatabaseSync): (sql: string) => StatementSync {
  const statements = new Map<string, StatementSync>()
  return (sql) => {
    let prepared = statements.get(sql)
    if (prepared === undefined) {
      prepared = db.prepare(sql)
      statements.set(sql, prepared)
    }
    return prepared
  }
}

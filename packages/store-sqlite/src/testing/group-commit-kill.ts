// A process that appends to the SQLite event store from many writers at once, prints `acked <stream>`
// for each append once it is answered, and after `killAfter` answers kills itself with SIGKILL from
// inside a group commit, while that commit's transaction holds other writers' appends
// (group-commit.int.test.ts). Arguments: the database file, killAfter.

import { openSqliteDatabase } from '../database.js'
import { createSqliteEventStore } from '../event-store.js'
import { groupCommitOf } from '../group-commit.js'

const [path, killAfterText] = process.argv.slice(2)
if (path === undefined) throw new Error('usage: group-commit-kill <database file> <killAfter>')
const killAfter = Number(killAfterText ?? 100)
const WRITERS = 16

const db = openSqliteDatabase(path)
const store = createSqliteEventStore(db)
let next = 0
let acked = 0

async function writer(): Promise<void> {
  for (;;) {
    const streamId = `stream-${next++}`
    const event = { eventId: `event-of-${streamId}`, type: 'Written', data: { streamId } }
    await store.appendToStream(streamId, [event], 'no_stream')
    process.stdout.write(`acked ${streamId}\n`)
    acked += 1
    // queued behind the appends this turn already asked for: they are in its transaction, unanswered
    if (acked === killAfter) void groupCommitOf(db).run(() => process.kill(process.pid, 'SIGKILL'))
  }
}

for (let i = 0; i < WRITERS; i++) void writer()

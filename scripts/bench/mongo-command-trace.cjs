// Loaded into each service by the distributed benchmark (NODE_OPTIONS=--require), never in
// production: notes every MongoDB command the service sends, when it started and how long FerretDB
// took to answer it, one JSON line each in BENCH_MONGO_TRACE_FILE. The benchmark reads the lines of
// its confirmation → webhook phase to show where the services wait on FerretDB (docs/benchmarks.md).
// It resolves the same mongodb driver the adapters use and turns on command monitoring in every
// client before it connects.

const { createWriteStream } = require('node:fs')
const { createRequire } = require('node:module')
const { join } = require('node:path')

const file = process.env.BENCH_MONGO_TRACE_FILE
const root = process.env.BENCH_MONGO_TRACE_ROOT
if (file && root) {
  const out = createWriteStream(file, { flags: 'a' })
  const { MongoClient } = createRequire(join(root, 'packages/store-mongo/package.json'))('mongodb')
  const connect = MongoClient.prototype.connect
  const traced = new WeakSet()
  MongoClient.prototype.connect = function tracedConnect(...args) {
    if (!traced.has(this)) {
      traced.add(this)
      this.monitorCommands = true
      const started = new Map()
      this.on('commandStarted', (event) => {
        const target = event.command[event.commandName]
        started.set(event.requestId, {
          at: Date.now(),
          command: event.commandName,
          collection: typeof target === 'string' ? target : '',
        })
      })
      const finished = (event) => {
        const start = started.get(event.requestId)
        if (start === undefined) return
        started.delete(event.requestId)
        out.write(`${JSON.stringify({ ...start, ms: event.duration })}\n`)
      }
      this.on('commandSucceeded', finished)
      this.on('commandFailed', finished)
    }
    return connect.apply(this, args)
  }
}

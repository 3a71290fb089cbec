import { connect, createServer, type Socket } from 'node:net'
import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { StoreUnavailableError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { createMongoCheckpointStore } from './checkpoints.js'
import { openMongoDatabase } from './database.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describe('the MongoDB stores', () => {
  it('fail with StoreUnavailableError once their client is closed', async () => {
    const mongo = await freshTestDatabase('mongo-failures', [])
    const checkpoints = createMongoCheckpointStore(mongo.db)
    await checkpoints.store('relay', '7')
    await mongo.close()
    await expect(checkpoints.load('relay')).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(checkpoints.store('relay', '8')).rejects.toMatchObject({
      name: 'StoreUnavailableError',
      message: expect.stringMatching(/^MongoDB: /),
    })
    await dropTestDatabase(
      await openMongoDatabase({ url: testMongoDbUrl(), database: mongo.db.databaseName }),
    )
  })

  it('fail with StoreUnavailableError when the server goes silent on an open connection, not hang', async () => {
    // a relay to the test server that, once told, passes nothing more either way: a server that
    // accepted the connection and stopped answering (a restart behind a proxy, a half-open socket)
    const target = new URL(testMongoDbUrl())
    let silent = false
    const sockets: Socket[] = []
    const relay = createServer((client) => {
      const server = connect(Number(target.port), target.hostname)
      sockets.push(client, server)
      client.on('data', (chunk) => {
        if (!silent) server.write(chunk)
      })
      server.on('data', (chunk) => {
        if (!silent) client.write(chunk)
      })
      client.on('error', () => {})
      server.on('error', () => {})
    })
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve))
    const port = (relay.address() as { port: number }).port
    const url = new URL(testMongoDbUrl())
    url.host = `127.0.0.1:${port}`
    const database = `mongo-failures-silent-${process.pid}`
    const mongo = await openMongoDatabase({
      url: url.toString(),
      database,
      socketTimeoutMs: 500,
    })
    try {
      const checkpoints = createMongoCheckpointStore(mongo.db)
      await checkpoints.store('relay', '7')
      silent = true
      await expect(checkpoints.load('relay')).rejects.toBeInstanceOf(StoreUnavailableError)
    } finally {
      await mongo.close().catch(() => {})
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => relay.close(resolve))
      await dropTestDatabase(await openMongoDatabase({ url: testMongoDbUrl(), database }))
    }
  })
})

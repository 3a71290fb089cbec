import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freeLoopbackPort } from '@chainpay/local-servers'
import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { createRootLogger, readEnv } from '@chainpay/platform'
import { samplePaymentDocument } from '@chainpay/ports/testing'
import { MongoClient } from 'mongodb'
import { afterAll, describe, expect, it } from 'vitest'
import { openInfrastructure } from './infrastructure.js'
import { readInfrastructureConfig } from './infrastructure-config.js'

const logger = createRootLogger({ service: 'infrastructure-test', level: 'silent' })
const directory = mkdtempSync(join(tmpdir(), 'chainpay-infrastructure-'))
const databases: string[] = []
afterAll(async () => {
  rmSync(directory, { recursive: true, force: true })
  const client = new MongoClient(testMongoDbUrl())
  for (const name of databases) await client.db(name).dropDatabase()
  await client.close()
})

describe('openInfrastructure', () => {
  it('puts the stores on MongoDB and the bus on Kafka when both are named, and is ready while both answer', async () => {
    const database = uniqueName('infrastructure')
    databases.push(database)
    const infrastructure = await openInfrastructure({
      infrastructure: {
        kafkaBrokers: testKafkaBrokers(),
        mongodbUrl: testMongoDbUrl(),
        mongodbDatabase: database,
        busNamespace: database,
      },
      databaseFile: join(directory, 'unused.sqlite'),
      serviceName: 'infrastructure-test',
      logger,
    })
    try {
      expect(await infrastructure.answers()).toBe(true)
      const document = samplePaymentDocument('pay_infra', 2)
      expect(await infrastructure.stores.readModel().save(document)).toBe('applied')
      const client = new MongoClient(testMongoDbUrl())
      try {
        // on MongoDB, not in the SQLite file
        expect(await client.db(database).collection('payments_read').countDocuments({})).toBe(1)
      } finally {
        await client.close()
      }
      const received: string[] = []
      const bus = infrastructure.bus()
      const subscription = await bus.subscribe({
        topic: 'chainpay.payment-events',
        groupId: 'infrastructure-test',
        handle: async (message) => {
          received.push(message.key)
        },
      })
      await bus.publish('chainpay.payment-events', [{ key: 'pay_infra', value: '{}', headers: {} }])
      const deadline = Date.now() + 60_000
      while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(received).toEqual(['pay_infra'])
      await subscription.stop()
    } finally {
      await infrastructure.close()
    }
  })

  it('is not ready while Kafka does not answer, once it uses the bus', async () => {
    const database = uniqueName('infrastructure')
    databases.push(database)
    const infrastructure = await openInfrastructure({
      infrastructure: {
        kafkaBrokers: [`127.0.0.1:${await freeLoopbackPort()}`],
        mongodbUrl: testMongoDbUrl(),
        mongodbDatabase: database,
        busNamespace: null,
      },
      databaseFile: join(directory, 'unused.sqlite'),
      serviceName: 'infrastructure-test',
      logger,
    })
    try {
      // the gateway uses no bus: Kafka is not its dependency
      expect(await infrastructure.answers()).toBe(true)
      infrastructure.bus()
      expect(await infrastructure.answers()).toBe(false)
    } finally {
      await infrastructure.close()
    }
  })

  it('keeps everything in the SQLite file when no server is named', async () => {
    const infrastructure = await openInfrastructure({
      infrastructure: {
        kafkaBrokers: null,
        mongodbUrl: null,
        mongodbDatabase: 'chainpay',
        busNamespace: null,
      },
      databaseFile: join(directory, 'embedded.sqlite'),
      serviceName: 'infrastructure-test',
      logger,
    })
    try {
      expect(await infrastructure.answers()).toBe(true)
      await infrastructure.stores.readModel().save(samplePaymentDocument('pay_embedded', 0))
      const row = infrastructure.sqlite().prepare('SELECT count(*) AS n FROM payments_read').get()
      expect(row).toEqual({ n: 1 })
    } finally {
      await infrastructure.close()
    }
  })

  it('logs each schema migration it applies to the SQLite file at info, once', async () => {
    const openMerchants = async (lines: string[]) => {
      const infrastructure = await openInfrastructure({
        infrastructure: {
          kafkaBrokers: null,
          mongodbUrl: null,
          mongodbDatabase: 'chainpay',
          busNamespace: null,
        },
        databaseFile: join(directory, 'migrated.sqlite'),
        serviceName: 'infrastructure-test',
        logger: createRootLogger({
          service: 'infrastructure-test',
          level: 'info',
          destination: { write: (line: string) => void lines.push(line) },
        }),
      })
      try {
        infrastructure.stores.merchants()
        infrastructure.stores.allocator()
      } finally {
        await infrastructure.close()
      }
      return lines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg.startsWith('schema migration applied'))
    }
    const first = await openMerchants([])
    const allocator = first.filter((entry) => entry.component === 'address-allocator')
    expect(allocator.map((entry) => [entry.level, entry.version, entry.migration, entry.msg])).toEqual([
      [
        'info',
        1,
        'the schema of the release before versioned storage (b991541)',
        'schema migration applied: address-allocator to version 1 (the schema of the release before versioned storage (b991541))',
      ],
      [
        'info',
        2,
        'address indexes counted per chain family',
        'schema migration applied: address-allocator to version 2 (address indexes counted per chain family)',
      ],
    ])
    expect(first.some((entry) => entry.component === 'merchants')).toBe(true)
    expect(first[0]?.database).toBe(join(directory, 'migrated.sqlite'))
    // the file is at this build's versions: nothing to apply, nothing said
    expect(await openMerchants([])).toEqual([])
  })

  it('syncs every commit of the SQLite file to disk (synchronous FULL) unless SQLITE_SYNCHRONOUS=NORMAL says otherwise', async () => {
    const lines: string[] = []
    const synchronousWith = async (env: NodeJS.ProcessEnv, file: string) => {
      const read = readEnv(env)
      const config = readInfrastructureConfig(read)
      read.done()
      const infrastructure = await openInfrastructure({
        infrastructure: config,
        databaseFile: join(directory, file),
        serviceName: 'infrastructure-test',
        logger: createRootLogger({
          service: 'infrastructure-test',
          level: 'info',
          destination: { write: (line: string) => void lines.push(line) },
        }),
      })
      try {
        return infrastructure.sqlite().prepare('PRAGMA synchronous').get()?.synchronous
      } finally {
        await infrastructure.close()
      }
    }
    expect(await synchronousWith({}, 'full.sqlite')).toBe(2)
    expect(await synchronousWith({ SQLITE_SYNCHRONOUS: 'NORMAL' }, 'normal.sqlite')).toBe(1)
    // and says so at open, the NORMAL one as a warning
    const opened = lines.map((line) => JSON.parse(line)).filter((entry) => entry.file !== undefined)
    expect(opened.map((entry) => [entry.synchronous, entry.level])).toEqual([
      ['FULL', 'info'],
      ['NORMAL', 'warn'],
    ])
  })
})

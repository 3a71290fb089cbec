// What scripts/up and scripts/down read from the environment, and where they keep things in DATA_DIR.

import { join, resolve } from 'node:path'
import { ConfigError, readEnv } from '@chainpay/platform'
import type { ClusterPorts } from './cluster-plan.js'

export interface UpConfig {
  dataDir: string
  ports: ClusterPorts
  kafkaPort: number
  kafkaControllerPort: number
  ferretdbPort: number
  /** FERRETDB_BACKEND: FerretDB's SQLite files, or a PostgreSQL started beside it (on POSTGRES_PORT) */
  ferretdbBackend: 'sqlite' | 'postgresql'
  postgresPort: number
  /** servers to use instead of starting Kafka and FerretDB */
  kafkaBrokers: string | null
  mongodbUrl: string | null
  eventstoreUrl: string | null
  logLevel: string
}

export function clusterLayout(dataDir: string) {
  const servers = join(dataDir, 'servers')
  return {
    runDirectory: join(dataDir, 'run'),
    logDirectory: join(dataDir, 'logs'),
    kafkaDirectory: join(servers, 'kafka'),
    kafkaPidFile: join(servers, 'kafka', 'kafka.pid'),
    ferretdbDirectory: join(servers, 'ferretdb'),
    ferretdbPidFile: join(servers, 'ferretdb', 'ferretdb.pid'),
    postgresDirectory: join(servers, 'postgresql'),
    postgresPidFile: join(servers, 'postgresql', 'postgresql.pid'),
  }
}

/** the configuration, or null after printing every problem (exit code 1) */
export function readUpConfig(env: NodeJS.ProcessEnv = process.env): UpConfig | null {
  const read = readEnv(env)
  const port = (name: string, fallback: number) => read.int(name, { default: fallback, min: 1, max: 65535 })
  try {
    const config: UpConfig = {
      dataDir: resolve(read.string('DATA_DIR', { default: './data/distributed' })),
      ports: {
        gateway: port('PORT', 8080),
        admin: port('ADMIN_PORT', 8081),
        paymentCommand: port('PAYMENT_COMMAND_PORT', 8090),
        chainIndexer: port('CHAIN_INDEXER_PORT', 8092),
        projection: port('PROJECTION_PORT', 8093),
        notifier: port('NOTIFIER_PORT', 8094),
        // the services' own METRICS_PORT defaults (docs/operations.md, "Ports and endpoints")
        metrics: {
          gateway: port('GATEWAY_METRICS_PORT', 9464),
          'payment-command': port('PAYMENT_COMMAND_METRICS_PORT', 9465),
          'chain-indexer': port('CHAIN_INDEXER_METRICS_PORT', 9466),
          projection: port('PROJECTION_METRICS_PORT', 9467),
          notifier: port('NOTIFIER_METRICS_PORT', 9468),
        },
      },
      kafkaPort: port('KAFKA_PORT', 9092),
      kafkaControllerPort: port('KAFKA_CONTROLLER_PORT', 9093),
      ferretdbPort: port('FERRETDB_PORT', 27017),
      ferretdbBackend: read.oneOf('FERRETDB_BACKEND', ['sqlite', 'postgresql'] as const, {
        default: 'sqlite',
      }),
      postgresPort: port('POSTGRES_PORT', 5433),
      kafkaBrokers: read.optionalString('KAFKA_BROKERS') ?? null,
      mongodbUrl: read.optionalString('MONGODB_URL') ?? null,
      eventstoreUrl: read.optionalString('EVENTSTORE_URL') ?? null,
      logLevel: read.string('LOG_LEVEL', { default: 'info' }),
    }
    read.done()
    return config
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`chainpay up/down: ${error.message}\n`)
    process.exitCode = 1
    return null
  }
}

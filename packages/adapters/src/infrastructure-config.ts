// Which servers back the ports, read from the environment like every other setting. Each variable
// switches one port family from the embedded SQLite file to a server: the five services of one
// installation must agree, which the deployment (scripts/up, the Helm chart) takes care of.

import type { EnvReader } from '@chainpay/platform'

export interface InfrastructureConfig {
  /** KAFKA_BROKERS (host:port,...): the bus on Kafka; unset: the SQLite bus in DATA_DIR */
  kafkaBrokers: string[] | null
  /** MONGODB_URL: read model, deliveries, merchants, cursors, deadlines on MongoDB; unset: SQLite */
  mongodbUrl: string | null
  /** MONGODB_DATABASE, default chainpay */
  mongodbDatabase: string
  /** BUS_NAMESPACE: prefixes every topic and consumer group; null: the plain names */
  busNamespace: string | null
}

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/
const DATABASE_NAME = /^[A-Za-z0-9_-]{1,63}$/

export function readInfrastructureConfig(read: EnvReader): InfrastructureConfig {
  const brokers = read.list('KAFKA_BROKERS', { default: [] })
  for (const broker of brokers) {
    if (!HOST_PORT.test(broker))
      read.problem(`KAFKA_BROKERS: expected host:port[,host:port...], got '${broker}'`)
  }
  const mongodbUrl = read.optionalString('MONGODB_URL') ?? null
  if (mongodbUrl !== null && !/^mongodb(\+srv)?:\/\//.test(mongodbUrl)) {
    // the value may hold a password: name the variable, never echo it
    read.problem('MONGODB_URL: expected a mongodb:// or mongodb+srv:// connection string')
  }
  const mongodbDatabase = read.string('MONGODB_DATABASE', { default: 'chainpay' })
  if (!DATABASE_NAME.test(mongodbDatabase)) {
    read.problem(`MONGODB_DATABASE: expected 1-63 letters, digits, '_' or '-', got '${mongodbDatabase}'`)
  }
  const busNamespace = read.optionalString('BUS_NAMESPACE') ?? null
  if (busNamespace !== null && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(busNamespace)) {
    read.problem(`BUS_NAMESPACE: expected lower-case letters, digits and '-', got '${busNamespace}'`)
  }
  return { kafkaBrokers: brokers.length > 0 ? brokers : null, mongodbUrl, mongodbDatabase, busNamespace }
}

/** EVENTSTORE_URL (payment-command only): kurrentdb://host:2113?tls=false; unset: SQLite */
export function readEventStoreUrl(read: EnvReader): string | null {
  const url = read.optionalString('EVENTSTORE_URL') ?? null
  if (url !== null && !/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//.test(url)) {
    read.problem('EVENTSTORE_URL: expected a kurrentdb:// (or esdb://) connection string')
  }
  return url
}

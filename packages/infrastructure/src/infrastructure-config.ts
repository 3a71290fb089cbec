// Which servers back the ports, read from the environment like every other setting. Each variable
// switches one port family from the embedded SQLite file to a server: the five services of one
// installation must agree, which the deployment (scripts/up, the Helm chart) takes care of.

import {
  DEFAULT_CONSUMER_GROUP_TIMEOUTS,
  KAFKA_SASL_MECHANISMS,
  type KafkaConsumerGroupTimeouts,
  type KafkaSaslMechanism,
} from '@chainpay/bus-kafka'
import type { EnvReader } from '@chainpay/platform'
import { SQLITE_SYNCHRONOUS_MODES, type SqliteSynchronous } from '@chainpay/store-sqlite'

export interface InfrastructureConfig {
  /** KAFKA_BROKERS (host:port,...): the bus on Kafka; unset: the SQLite bus in DATA_DIR */
  kafkaBrokers: string[] | null
  /** KAFKA_TLS=true: TLS to the brokers; absent: plaintext */
  kafkaTls?: KafkaTlsConfig
  /** KAFKA_SASL_MECHANISM and its credentials; absent: no authentication */
  kafkaSasl?: KafkaSaslConfig
  /**
   * KAFKA_SESSION_TIMEOUT_MS, KAFKA_HEARTBEAT_INTERVAL_MS, KAFKA_REBALANCE_TIMEOUT_MS: the bus's
   * consumer group timeouts, those set only; absent: the bus's defaults (30 s, 3 s, 60 s)
   */
  kafkaConsumerGroup?: KafkaConsumerGroupTimeouts
  /**
   * KAFKA_PARTITIONS: the partitions of the topics the bus creates (topics that exist are left as
   * they are); absent: the bus's default, DEFAULT_PARTITIONS (6). A consumer group has at most this
   * many active members, so it bounds the replicas of each consumer (docs/deploy.md, "Kafka").
   */
  kafkaPartitions?: number
  /** MONGODB_URL: read model, deliveries, merchants, cursors, deadlines on MongoDB; unset: SQLite */
  mongodbUrl: string | null
  /** MONGODB_DATABASE, default chainpay */
  mongodbDatabase: string
  /** BUS_NAMESPACE: prefixes every topic and consumer group; null: the plain names */
  busNamespace: string | null
  /**
   * SQLITE_SYNCHRONOUS: how the embedded SQLite file syncs its commits; absent: FULL, every commit
   * survives power loss (docs/operations.md, "Environment variables")
   */
  sqliteSynchronous?: SqliteSynchronous
}

/**
 * Paths only: the files are read when the infrastructure opens (kafkaConnection), at start and before
 * any connection, so that the configuration can be checked where the mounted files do not exist.
 */
export interface KafkaTlsConfig {
  /** KAFKA_TLS_CA_FILE: PEM CA bundle; absent: the system's CAs */
  caFile?: string
  /** KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE, set together: a client certificate (mutual TLS) */
  certFile?: string
  keyFile?: string
  /** KAFKA_TLS_SERVERNAME: the name the brokers' certificates are checked against, when not their host */
  servername?: string
}

export interface KafkaSaslConfig {
  /** KAFKA_SASL_MECHANISM */
  mechanism: KafkaSaslMechanism
  /** KAFKA_SASL_USERNAME */
  username: string
  /** KAFKA_SASL_PASSWORD: never logged or repeated in a message */
  password: string
}

/** far beyond what a payment service needs; a typo of a few zeros would create that many per topic */
const MAX_KAFKA_PARTITIONS = 1000

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
  // only when set: absent is FULL, and keeps the value out of every service's configuration
  const sqliteSynchronous =
    read.optionalString('SQLITE_SYNCHRONOUS') === undefined
      ? undefined
      : read.oneOf('SQLITE_SYNCHRONOUS', SQLITE_SYNCHRONOUS_MODES)
  const kafkaTls = readKafkaTls(read)
  const kafkaSasl = readKafkaSasl(read)
  const consumerGroup = readKafkaConsumerGroup(read)
  // only when set: absent is the bus's default, and keeps the value out of every configuration
  const kafkaPartitions =
    read.optionalString('KAFKA_PARTITIONS') === undefined
      ? undefined
      : read.int('KAFKA_PARTITIONS', { min: 1, max: MAX_KAFKA_PARTITIONS })
  if (brokers.length === 0) {
    for (const name of [
      ...(kafkaTls ? ['KAFKA_TLS'] : []),
      ...(kafkaSasl ? ['KAFKA_SASL_MECHANISM'] : []),
      ...(kafkaPartitions !== undefined ? ['KAFKA_PARTITIONS'] : []),
      ...consumerGroup.variables,
    ]) {
      read.problem(`${name}: set, but KAFKA_BROKERS is not (the bus is embedded)`)
    }
  }
  return {
    kafkaBrokers: brokers.length > 0 ? brokers : null,
    ...(kafkaTls ? { kafkaTls } : {}),
    ...(kafkaSasl ? { kafkaSasl } : {}),
    ...(consumerGroup.variables.length > 0 ? { kafkaConsumerGroup: consumerGroup.timeouts } : {}),
    ...(kafkaPartitions !== undefined ? { kafkaPartitions } : {}),
    mongodbUrl,
    mongodbDatabase,
    busNamespace,
    ...(sqliteSynchronous !== undefined ? { sqliteSynchronous } : {}),
  }
}

const KAFKA_TLS_VARIABLES = {
  caFile: 'KAFKA_TLS_CA_FILE',
  certFile: 'KAFKA_TLS_CERT_FILE',
  keyFile: 'KAFKA_TLS_KEY_FILE',
  servername: 'KAFKA_TLS_SERVERNAME',
} as const satisfies Record<keyof KafkaTlsConfig, string>

function readKafkaTls(read: EnvReader): KafkaTlsConfig | undefined {
  const enabled = read.bool('KAFKA_TLS', { default: false })
  const tls: KafkaTlsConfig = {}
  for (const [key, variable] of Object.entries(KAFKA_TLS_VARIABLES) as [keyof KafkaTlsConfig, string][]) {
    const value = read.optionalString(variable)
    if (value === undefined) continue
    if (enabled) tls[key] = value
    else read.problem(`${variable}: set, but KAFKA_TLS is not true`)
  }
  if (!enabled) return undefined
  if (tls.certFile !== undefined && tls.keyFile === undefined) {
    read.problem('KAFKA_TLS_KEY_FILE: required with KAFKA_TLS_CERT_FILE (mutual TLS needs both)')
  }
  if (tls.keyFile !== undefined && tls.certFile === undefined) {
    read.problem('KAFKA_TLS_CERT_FILE: required with KAFKA_TLS_KEY_FILE (mutual TLS needs both)')
  }
  return tls
}

function readKafkaSasl(read: EnvReader): KafkaSaslConfig | undefined {
  const mechanismText = read.optionalString('KAFKA_SASL_MECHANISM')
  const username = read.optionalString('KAFKA_SASL_USERNAME')
  const password = read.optionalString('KAFKA_SASL_PASSWORD')
  if (mechanismText === undefined) {
    if (username !== undefined) read.problem('KAFKA_SASL_USERNAME: set, but KAFKA_SASL_MECHANISM is not')
    if (password !== undefined) read.problem('KAFKA_SASL_PASSWORD: set, but KAFKA_SASL_MECHANISM is not')
    return undefined
  }
  // Kafka spells them in capitals (SCRAM-SHA-512), kafkajs in small letters: either is fine
  const mechanism = KAFKA_SASL_MECHANISMS.find((known) => known === mechanismText.toLowerCase())
  if (mechanism === undefined) {
    read.problem(
      `KAFKA_SASL_MECHANISM: expected one of ${KAFKA_SASL_MECHANISMS.join(', ')}, got '${mechanismText}'`,
    )
  }
  if (username === undefined) read.problem('KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM')
  if (password === undefined) read.problem('KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM')
  if (mechanism === undefined || username === undefined || password === undefined) return undefined
  return { mechanism, username, password }
}

const KAFKA_CONSUMER_GROUP_VARIABLES = {
  sessionTimeoutMs: 'KAFKA_SESSION_TIMEOUT_MS',
  heartbeatIntervalMs: 'KAFKA_HEARTBEAT_INTERVAL_MS',
  rebalanceTimeoutMs: 'KAFKA_REBALANCE_TIMEOUT_MS',
} as const satisfies Record<keyof KafkaConsumerGroupTimeouts, string>

/** the ceiling of every one: a broker's group.max.session.timeout.ms is 30 min by default */
const MAX_GROUP_TIMEOUT_MS = 3_600_000

/**
 * The consumer group timeouts that are set, and which variables set them. Each within its range, and
 * the heartbeat interval below the session timeout (the broker drops a member that heartbeats less
 * often); with one of the two set, it is compared with the default of the other.
 */
function readKafkaConsumerGroup(read: EnvReader): {
  timeouts: KafkaConsumerGroupTimeouts
  variables: string[]
} {
  const timeouts: KafkaConsumerGroupTimeouts = {}
  const variables: string[] = []
  /** those whose value is a valid one, for the comparison (an invalid one is a problem already) */
  const valid = new Set<keyof KafkaConsumerGroupTimeouts>()
  const minimums: Record<keyof KafkaConsumerGroupTimeouts, number> = {
    sessionTimeoutMs: 1000,
    heartbeatIntervalMs: 100,
    rebalanceTimeoutMs: 1000,
  }
  for (const [key, variable] of Object.entries(KAFKA_CONSUMER_GROUP_VARIABLES) as [
    keyof KafkaConsumerGroupTimeouts,
    string,
  ][]) {
    const text = read.optionalString(variable)
    if (text === undefined) continue
    variables.push(variable)
    const value = read.int(variable, { min: minimums[key], max: MAX_GROUP_TIMEOUT_MS })
    timeouts[key] = value
    if (String(value) === text) valid.add(key)
  }
  const { sessionTimeoutMs: session, heartbeatIntervalMs: heartbeat } = {
    ...DEFAULT_CONSUMER_GROUP_TIMEOUTS,
    ...timeouts,
  }
  const comparable = (key: keyof KafkaConsumerGroupTimeouts) => valid.has(key) || timeouts[key] === undefined
  if (comparable('sessionTimeoutMs') && comparable('heartbeatIntervalMs') && heartbeat >= session) {
    if (timeouts.heartbeatIntervalMs !== undefined) {
      const of = timeouts.sessionTimeoutMs === undefined ? ' (its default)' : ''
      read.problem(
        `KAFKA_HEARTBEAT_INTERVAL_MS: expected less than KAFKA_SESSION_TIMEOUT_MS, ${session}${of}, got ${heartbeat}`,
      )
    } else {
      read.problem(
        `KAFKA_SESSION_TIMEOUT_MS: expected more than KAFKA_HEARTBEAT_INTERVAL_MS, ${heartbeat} (its default), got ${session}`,
      )
    }
  }
  return { timeouts, variables }
}

/** EVENTSTORE_URL (payment-command only): kurrentdb://host:2113?tls=false; unset: SQLite */
export function readEventStoreUrl(read: EnvReader): string | null {
  const url = read.optionalString('EVENTSTORE_URL') ?? null
  if (url !== null && !/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//.test(url)) {
    read.problem('EVENTSTORE_URL: expected a kurrentdb:// (or esdb://) connection string')
  }
  return url
}

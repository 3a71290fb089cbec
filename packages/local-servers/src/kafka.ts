// A single-node Apache Kafka (KRaft, broker and controller in one JVM) from Maven Central jars and
// the machine's Java: no Docker, no tarball. deploy/local/kafka/pom.xml names the version.

import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createKafkaTlsMaterial, type KafkaTlsMaterial } from './kafka-tls.js'
import { isAlive, readPid, startDetached, stopPidFile, tail, waitUntil } from './local-process.js'
import { cacheDirectory, repositoryRoot } from './paths.js'

const run = promisify(execFile)

export const KAFKA_VERSION = '4.1.1'
/** any fixed 16 bytes, base64url: a reformat of an existing directory then keeps its data */
const CLUSTER_ID = Buffer.from('chainpay-local!!').toString('base64url')
const START_TIMEOUT_MS = 120_000
const STARTED_LINE = 'Kafka Server started'

export interface LocalKafkaOptions {
  /** holds server.properties, the logs, the data and the pid file; created if missing */
  directory: string
  port: number
  controllerPort: number
  /** JVM heap, default 512m */
  heap?: string
  /**
   * For a broker that lives as long as a test: the JIT stops at its first tier (C1), which starts the
   * broker in about a third of the time and a fraction of the CPU, for less throughput than a test
   * needs. Default false: scripts/up and the benchmarks get the full JIT.
   */
  quickStart?: boolean
  /** a second client listener that speaks SASL over TLS, next to the PLAINTEXT one on `port` */
  saslSsl?: LocalKafkaSaslSslOptions
}

export interface LocalKafkaSaslSslOptions {
  port: number
  /** username -> password, accepted with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 */
  users: Record<string, string>
}

/** where a client finds the SASL_SSL listener and the files it needs to trust and be trusted */
export interface LocalKafkaSaslSsl {
  brokers: string
  /** PEM: the CA of the broker's certificate */
  caFile: string
  /** PEM: a client certificate and key the broker accepts (it asks for one, but does not require it) */
  clientCertFile: string
  clientKeyFile: string
}

export interface LocalKafka {
  brokers: string
  directory: string
  /** set when started with the `saslSsl` option */
  saslSsl?: LocalKafkaSaslSsl
  /** SIGTERM (a clean broker shutdown) and wait until it is gone */
  stop(): Promise<void>
  /** SIGKILL */
  kill(): Promise<void>
  /** starts it again on the same directory and ports */
  restart(): Promise<void>
}

/** the broker's classpath, resolved with Maven into the cache once */
export async function installKafka(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const libs = join(cacheDirectory(env), `kafka-${KAFKA_VERSION}`, 'libs')
  if (existsSync(join(libs, '.complete'))) return libs
  const staging = `${libs}.${process.pid}.partial`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const pom = join(repositoryRoot, 'deploy/local/kafka/pom.xml')
  try {
    await run('mvn', ['-B', '-q', '-f', pom, 'package', `-Dkafka.libs.dir=${staging}`], {
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    rmSync(staging, { recursive: true, force: true })
    const detail = error instanceof Error ? error.message : String(error)
    throw new Error(
      `could not resolve Apache Kafka ${KAFKA_VERSION} from Maven Central (needs Java 17+ and Maven on PATH, and access to repo.maven.apache.org): ${detail}`,
    )
  }
  writeFileSync(join(staging, '.complete'), `${KAFKA_VERSION}\n`)
  rmSync(libs, { recursive: true, force: true })
  renameSync(staging, libs)
  return libs
}

const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512']
/** what a properties file and a JAAS quoted string both take without escaping */
const PLAIN_WORD = /^[A-Za-z0-9_.-]+$/

function saslSslProperties(sasl: LocalKafkaSaslSslOptions, tls: KafkaTlsMaterial): string[] {
  const prefix = 'listener.name.sasl_ssl'
  const plainUsers = Object.entries(sasl.users)
    .map(([user, password]) => `user_${user}="${password}"`)
    .join(' ')
  return [
    `${prefix}.sasl.enabled.mechanisms=PLAIN,${SCRAM_MECHANISMS.join(',')}`,
    `${prefix}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${plainUsers};`,
    // SCRAM users live in the cluster metadata, written by the format step (--add-scram)
    ...SCRAM_MECHANISMS.map(
      (mechanism) =>
        `${prefix}.${mechanism.toLowerCase()}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
    ),
    `${prefix}.ssl.keystore.type=PKCS12`,
    `${prefix}.ssl.keystore.location=${tls.brokerKeystoreFile}`,
    `${prefix}.ssl.keystore.password=${tls.keystorePassword}`,
    `${prefix}.ssl.key.password=${tls.keystorePassword}`,
    `${prefix}.ssl.truststore.type=PEM`,
    `${prefix}.ssl.truststore.location=${tls.caFile}`,
    `${prefix}.ssl.client.auth=requested`,
  ]
}

function serverProperties(options: LocalKafkaOptions, tls: KafkaTlsMaterial | undefined): string {
  const { port, controllerPort, saslSsl } = options
  const saslListener = saslSsl ? `,SASL_SSL://127.0.0.1:${saslSsl.port}` : ''
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${port}${saslListener},CONTROLLER://127.0.0.1:${controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}${saslListener},CONTROLLER://127.0.0.1:${controllerPort}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${saslSsl ? ',SASL_SSL:SASL_SSL' : ''}`,
    ...(saslSsl && tls ? saslSslProperties(saslSsl, tls) : []),
    `log.dirs=${join(options.directory, 'data')}`,
    'num.partitions=1',
    // topics are created by the bus adapter with the partitions it wants
    'auto.create.topics.enable=false',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    // The test clusters' consumers take sessions of a few seconds (KAFKA_SESSION_TIMEOUT_MS,
    // docs/operations.md), so that a member killed -9 is dropped, and its partitions given to its
    // successor, in seconds; the broker's default floor is 6 s.
    'group.min.session.timeout.ms=1000',
    // A broker restarted after kill -9 is registered again only once the controller has given up on
    // its previous incarnation (broker.session.timeout.ms, default 9 s): alone in its cluster it has
    // nobody to wait for. Heartbeats follow the shorter session.
    'broker.heartbeat.interval.ms=500',
    'broker.session.timeout.ms=2000',
    'num.network.threads=2',
    'num.io.threads=2',
    'log.cleaner.dedupe.buffer.size=33554432',
    '',
  ].join('\n')
}

const LOG4J2 = [
  'status = warn',
  'appender.out.type = Console',
  'appender.out.name = out',
  'appender.out.layout.type = PatternLayout',
  'appender.out.layout.pattern = [%d] %p %m (%c)%n',
  'rootLogger.level = info',
  'rootLogger.appenderRef.out.ref = out',
  // the per-request and log-segment chatter hides what matters
  'logger.kafka.name = kafka',
  'logger.kafka.level = warn',
  'logger.apache.name = org.apache.kafka',
  'logger.apache.level = warn',
  'logger.server.name = kafka.server.KafkaRaftServer',
  'logger.server.level = info',
  'logger.broker.name = kafka.server.BrokerServer',
  'logger.broker.level = info',
  '',
].join('\n')

function jvmArgs(options: LocalKafkaOptions, libs: string): string[] {
  const heap = options.heap ?? '512m'
  return [
    `-Xms${heap}`,
    `-Xmx${heap}`,
    '-XX:+UseSerialGC',
    ...(options.quickStart ? ['-XX:TieredStopAtLevel=1'] : []),
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(options.directory, 'log4j2.properties')}`,
    `-Dkafka.logs.dir=${join(options.directory, 'logs')}`,
    '-cp',
    `${libs}/*`,
  ]
}

/** starts the broker (formatting its directory the first time) and resolves once it serves */
export async function startKafka(options: LocalKafkaOptions): Promise<LocalKafka> {
  const libs = await installKafka()
  const { directory } = options
  mkdirSync(join(directory, 'logs'), { recursive: true })
  const { saslSsl } = options
  for (const [user, password] of Object.entries(saslSsl?.users ?? {})) {
    if (!(PLAIN_WORD.test(user) && PLAIN_WORD.test(password))) {
      throw new Error(`local Kafka: SASL user names and passwords must match ${PLAIN_WORD}`)
    }
  }
  const tls = saslSsl ? await createKafkaTlsMaterial(join(directory, 'tls')) : undefined
  const properties = join(directory, 'server.properties')
  writeFileSync(properties, serverProperties(options, tls))
  const scramUsers = Object.entries(saslSsl?.users ?? {}).flatMap(([user, password]) =>
    SCRAM_MECHANISMS.flatMap((mechanism) => [
      '--add-scram',
      `${mechanism}=[name=${user},password=${password}]`,
    ]),
  )
  writeFileSync(join(directory, 'log4j2.properties'), LOG4J2)
  const pidFile = join(directory, 'kafka.pid')
  const logFile = join(directory, 'kafka.log')

  const format = () =>
    run(
      'java',
      [
        ...jvmArgs({ ...options, heap: '256m' }, libs),
        'kafka.tools.StorageTool',
        'format',
        '-t',
        CLUSTER_ID,
        '-c',
        properties,
        '-g',
        ...scramUsers,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    )

  const launch = async () => {
    const pid = readPid(pidFile)
    if (pid !== null && isAlive(pid)) throw new Error(`Kafka already runs in ${directory} (pid ${pid})`)
    // formatted before: a restart keeps its data (and SCRAM users), and saves a JVM start
    if (!existsSync(join(directory, 'data', 'meta.properties'))) await format()
    const before = existsSync(logFile) ? readFileSync(logFile, 'utf8').length : 0
    const started = startDetached({
      command: 'java',
      args: [...jvmArgs(options, libs), 'kafka.Kafka', properties],
      logFile,
      pidFile,
    })
    await waitUntil(
      async () => {
        return readFileSync(logFile, 'utf8').slice(before).includes(STARTED_LINE)
      },
      {
        timeoutMs: START_TIMEOUT_MS,
        giveUpIf: () => !isAlive(started.pid),
        describe: () =>
          `Kafka did not start on 127.0.0.1:${options.port}; last lines of ${logFile}:\n${tail(logFile)}`,
      },
    ).catch(async (error) => {
      await stopPidFile(pidFile, 'SIGKILL')
      if (!isAlive(started.pid)) {
        throw new Error(`Kafka exited while starting; last lines of ${logFile}:\n${tail(logFile)}`)
      }
      throw error
    })
  }

  await launch()
  return {
    brokers: `127.0.0.1:${options.port}`,
    directory,
    ...(saslSsl && tls
      ? {
          saslSsl: {
            brokers: `127.0.0.1:${saslSsl.port}`,
            caFile: tls.caFile,
            clientCertFile: tls.clientCertFile,
            clientKeyFile: tls.clientKeyFile,
          },
        }
      : {}),
    stop: () => stopPidFile(pidFile, 'SIGTERM'),
    kill: () => stopPidFile(pidFile, 'SIGKILL'),
    restart: launch,
  }
}

// How the five deployables are started side by side on one machine: each one's build, environment
// and readiness URL. Pure, so that scripts/up and the cross-process tests start exactly the same
// system.

import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** mainnet names, so that merchants integrate exactly as they will in production */
const SIMULATED_NETWORKS = 'TRON,SOLANA'

export const SERVICE_NAMES = [
  'payment-command',
  'projection',
  'notifier',
  'chain-indexer',
  'gateway',
] as const
export type ServiceName = (typeof SERVICE_NAMES)[number]

const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

/** the deployable's build, as an operator runs it */
export const mainScriptOf = (name: ServiceName): string =>
  join(repositoryRoot, 'services', name, 'dist', 'main.js')

export interface ClusterPorts {
  gateway: number
  admin: number
  /** payment-command's command API, with its /healthz and /readyz */
  paymentCommand: number
  chainIndexer: number
  projection: number
  notifier: number
  /** each service's METRICS_PORT: /metrics, on a listener of its own */
  metrics: Record<ServiceName, number>
}

export interface ClusterSecrets {
  encryptionKey: string
  adminToken: string
  /** COMMAND_API_TOKEN, given to the gateway and payment-command: the command API's path as in production */
  commandApiToken: string
}

export interface ClusterPlanOptions {
  dataDir: string
  ports: ClusterPorts
  kafkaBrokers: string
  mongodbUrl: string
  mongodbDatabase?: string
  /** BUS_NAMESPACE: prefixes topics and groups, so that test clusters can share one Kafka */
  busNamespace?: string
  /** payment-command's event store; null: the embedded one in its data directory */
  eventstoreUrl?: string | null
  secrets: ClusterSecrets
  walletFile: string
  logLevel?: string
  blockIntervalMs?: { TRON: number; SOLANA: number }
  /** SOLANA_CHECK_INTERVAL_MS: how soon the late funds of a final Solana payment are found */
  solanaCheckIntervalMs?: number
  /** WEBHOOK_RETRY_SCHEDULE for the notifier, e.g. '100ms,200ms' */
  webhookRetrySchedule?: string
  /** the interface the services listen on (127.0.0.1 on a developer machine) */
  host?: string
  /** the gateway's RATE_LIMIT_MAX; its default when undefined */
  rateLimitMax?: number
  /** the simulated networks (default TRON and SOLANA) and confirmation requirements other than theirs */
  chains?: { networks: readonly string[]; requiredConfirmations?: Readonly<Record<string, number>> }
  /**
   * KAFKA_SESSION_TIMEOUT_MS, KAFKA_HEARTBEAT_INTERVAL_MS, KAFKA_REBALANCE_TIMEOUT_MS of every service;
   * unset: the production defaults (docs/operations.md)
   */
  kafkaConsumerGroup?: { sessionTimeoutMs: number; heartbeatIntervalMs: number; rebalanceTimeoutMs: number }
}

export interface PlannedService {
  name: ServiceName
  mainScript: string
  env: Record<string, string>
  readyUrl: string
  /** where its /healthz and /readyz are */
  baseUrl: string
  /** where its /metrics is (METRICS_PORT) */
  metricsUrl: string
  /** its own directory: payment-command's embedded event store, the chain simulator's chains */
  dataDir: string
}

export interface ClusterPlan {
  services: PlannedService[]
  urls: { gateway: string; admin: string; paymentCommand: string; chainSimulator: string }
}

export function planCluster(options: ClusterPlanOptions): ClusterPlan {
  const { ports, secrets } = options
  const host = options.host ?? '127.0.0.1'
  const local = (port: number) => `http://127.0.0.1:${port}`
  const urls = {
    gateway: local(ports.gateway),
    admin: local(ports.admin),
    paymentCommand: local(ports.paymentCommand),
    chainSimulator: local(ports.chainIndexer),
  }
  const group = options.kafkaConsumerGroup
  const common = {
    HOST: host,
    LOG_LEVEL: options.logLevel ?? 'info',
    KAFKA_BROKERS: options.kafkaBrokers,
    KAFKA_SESSION_TIMEOUT_MS: group && String(group.sessionTimeoutMs),
    KAFKA_HEARTBEAT_INTERVAL_MS: group && String(group.heartbeatIntervalMs),
    KAFKA_REBALANCE_TIMEOUT_MS: group && String(group.rebalanceTimeoutMs),
    MONGODB_URL: options.mongodbUrl,
    MONGODB_DATABASE: options.mongodbDatabase ?? 'chainpay',
    BUS_NAMESPACE: options.busNamespace,
  }
  // payment-command, the chain-indexer and the gateway agree on the networks served and their needs
  const chainNetworks = options.chains?.networks.join(',') ?? SIMULATED_NETWORKS
  const chainEnv = {
    CHAIN_NETWORKS: chainNetworks,
    ...Object.fromEntries(
      Object.entries(options.chains?.requiredConfirmations ?? {}).map(([network, count]) => [
        `${network}_REQUIRED_CONFIRMATIONS`,
        String(count),
      ]),
    ),
  }
  const service = (
    name: ServiceName,
    port: number,
    env: Record<string, string | undefined>,
  ): PlannedService => {
    const dataDir = join(options.dataDir, name)
    const metricsPort = ports.metrics[name]
    // METRICS_HOST stays loopback (the default) whatever HOST is: nothing here needs METRICS_TOKEN
    const defined = Object.fromEntries(
      Object.entries({ ...common, DATA_DIR: dataDir, METRICS_PORT: String(metricsPort), ...env }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    )
    return {
      name,
      mainScript: mainScriptOf(name),
      env: defined,
      readyUrl: `${local(port)}/readyz`,
      baseUrl: local(port),
      metricsUrl: local(metricsPort),
      dataDir,
    }
  }
  const blocks = options.blockIntervalMs
  return {
    urls,
    services: [
      service('payment-command', ports.paymentCommand, {
        PORT: String(ports.paymentCommand),
        COMMAND_API_TOKEN: secrets.commandApiToken,
        // seals merchants' own Solana seeds (docs/security.md, "Merchant wallets")
        CHAINPAY_ENCRYPTION_KEY: secrets.encryptionKey,
        WALLET_FILE: options.walletFile,
        CALLBACK_URL_POLICY: 'development',
        EVENTSTORE_URL: options.eventstoreUrl ?? undefined,
        // simulated chains, simulated rates: moved through the gateway's /dev/rates (docs/api.md, "Development endpoints")
        RATE_SOURCES: 'simulated',
        // the networks the chain-indexer below simulates and watches
        ...chainEnv,
      }),
      service('projection', ports.projection, { HEALTH_PORT: String(ports.projection) }),
      service('notifier', ports.notifier, {
        HEALTH_PORT: String(ports.notifier),
        CHAINPAY_ENCRYPTION_KEY: secrets.encryptionKey,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: options.webhookRetrySchedule,
        // webhooks' checkout_url, as the gateway writes checkoutUrl
        PUBLIC_URL: urls.gateway,
      }),
      service('chain-indexer', ports.chainIndexer, {
        PORT: String(ports.chainIndexer),
        CHAIN_MODE: 'simulator',
        ...chainEnv,
        TRON_BLOCK_INTERVAL_MS: blocks ? String(blocks.TRON) : undefined,
        SOLANA_BLOCK_INTERVAL_MS: blocks ? String(blocks.SOLANA) : undefined,
        SOLANA_CHECK_INTERVAL_MS:
          options.solanaCheckIntervalMs === undefined ? undefined : String(options.solanaCheckIntervalMs),
      }),
      service('gateway', ports.gateway, {
        PORT: String(ports.gateway),
        ADMIN_PORT: String(ports.admin),
        ADMIN_HOST: '127.0.0.1',
        PAYMENT_COMMAND_URL: urls.paymentCommand,
        COMMAND_API_TOKEN: secrets.commandApiToken,
        CHAINPAY_ENCRYPTION_KEY: secrets.encryptionKey,
        ADMIN_TOKEN: secrets.adminToken,
        CHAIN_SIMULATOR_URL: urls.chainSimulator,
        CALLBACK_URL_POLICY: 'development',
        PUBLIC_URL: urls.gateway,
        CHAIN_NETWORKS: chainNetworks,
        RATE_LIMIT_MAX: options.rateLimitMax === undefined ? undefined : String(options.rateLimitMax),
      }),
    ],
  }
}

// The distributed shape built inside the test's own process: the five deployables' contexts, each
// from its own config reader and context factory as its ten-line main builds it (services/*), on
// the run's Kafka and MongoDB-wire server (FerretDB) with a bus namespace and a database of the
// test's own; payment-command's event store the embedded one in its DATA_DIR, the chain-indexer's
// chains simulated in its DATA_DIR, the gateway reaching payment-command over the command API. The
// environment is the one packages/local-cluster's planCluster gives the spawned services; in one
// process a test reads the stores directly and pays no process start-up.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildChainIndexerContext, readChainIndexerConfig } from '@chainpay/chain-indexer'
import { buildGatewayContext, readGatewayConfig } from '@chainpay/gateway'
import { buildNotifierContext, readNotifierConfig } from '@chainpay/notifier'
import { buildPaymentCommandContext, readPaymentCommandConfig } from '@chainpay/payment-command'
import {
  type Clock,
  createRootLogger,
  createServiceRunner,
  generateAdminToken,
  generateSecretKey,
  type Logger,
  randomToken,
  type ServiceRunner,
} from '@chainpay/platform'
import { buildProjectionContext, readProjectionConfig } from '@chainpay/projection'
import type { ServiceContext } from '@chainpay/service-kit'
import { freePort } from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'

export interface InProcessDistributedOptions {
  kafkaBrokers: string
  mongodbUrl: string
  /** unique per test file: the MongoDB database and the bus namespace */
  name: string
  /** the simulated networks (CHAIN_NETWORKS of payment-command, the chain-indexer and the gateway) */
  networks?: readonly string[]
  /**
   * the chain-indexer's clock, which its simulator stamps blocks and transactions with (a test moves
   * the chains' time, e.g. past a TRON transaction's expiration); the system's otherwise
   */
  chainClock?: Clock
  /** more of the chain-indexer's environment (SOLANA_DEPOSIT_CHECK_INTERVAL_MS, say) */
  chainIndexerEnv?: Record<string, string>
}

export interface InProcessDistributed {
  /** the gateway's merchant port, where /dev/chains/* reaches the chain-indexer's simulator */
  baseUrl: string
  adminUrl: string
  adminToken: string
  /** payment-command's DATA_DIR: its embedded event store is chainpay.sqlite there */
  paymentCommandDataDir: string
  mongodbDatabase: string
  createMerchant(name: string): Promise<{ merchantId: string; apiKey: string; apiSecret: string }>
  /** what the services logged (warn and above) */
  output(): string
  stop(): Promise<void>
}

/** the consumer groups' timeouts of packages/local-cluster's test clusters */
const KAFKA_GROUP_ENV = {
  KAFKA_SESSION_TIMEOUT_MS: '3000',
  KAFKA_HEARTBEAT_INTERVAL_MS: '500',
  KAFKA_REBALANCE_TIMEOUT_MS: '10000',
}

export async function startInProcessDistributed(
  options: InProcessDistributedOptions,
): Promise<InProcessDistributed> {
  // a port found free can be taken before a service listens on it: planned again once on others
  for (let attempt = 1; ; attempt++) {
    const dataDir = mkdtempSync(join(tmpdir(), `chainpay-distributed-${options.name}-`))
    const lines: string[] = []
    try {
      return await startIn(options, dataDir, lines)
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true })
      const portTaken = lines.join('').includes('EADDRINUSE')
      if (!portTaken || attempt === 2) {
        throw new Error(`the distributed shape did not start: ${(error as Error).message}\n${lines.join('')}`)
      }
    }
  }
}

async function startIn(
  options: InProcessDistributedOptions,
  dataDir: string,
  lines: string[],
): Promise<InProcessDistributed> {
  const ports = await Promise.all(Array.from({ length: 11 }, () => freePort()))
  const port = () => String(ports.pop())
  const [gatewayPort, adminPort, commandPort, indexerPort] = [port(), port(), port(), port()]
  const wallet = createDevelopmentWallet()
  const encryptionKey = generateSecretKey()
  const adminToken = generateAdminToken()
  const commandApiToken = randomToken('cmd', 32)
  const networks = (options.networks ?? ['TRON']).join(',')
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`
  const common = {
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    KAFKA_BROKERS: options.kafkaBrokers,
    ...KAFKA_GROUP_ENV,
    MONGODB_URL: options.mongodbUrl,
    MONGODB_DATABASE: options.name,
    BUS_NAMESPACE: options.name,
  }
  /** the service's DATA_DIR and METRICS_PORT */
  const own = (service: string) => {
    const directory = join(dataDir, service)
    mkdirSync(directory, { recursive: true })
    return { DATA_DIR: directory, METRICS_PORT: port() }
  }
  const loggerOf = (service: string): Logger =>
    createRootLogger({
      service,
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    })

  const contexts: ServiceContext[] = []
  let runner: ServiceRunner | undefined
  const stop = async () => {
    await runner?.stop('test over')
    for (const context of contexts.splice(0).reverse()) await context.close()
  }
  try {
    contexts.push(
      await buildPaymentCommandContext(
        readPaymentCommandConfig({
          ...common,
          ...own('payment-command'),
          PORT: commandPort,
          COMMAND_API_TOKEN: commandApiToken,
          CHAINPAY_ENCRYPTION_KEY: encryptionKey,
          TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
          SOLANA_SEED: wallet.solanaSeed,
          CALLBACK_URL_POLICY: 'development',
          CHAIN_NETWORKS: networks,
        }),
        loggerOf('payment-command'),
      ),
    )
    contexts.push(
      await buildProjectionContext(
        readProjectionConfig({ ...common, ...own('projection'), HEALTH_PORT: port() }),
        loggerOf('projection'),
      ),
    )
    contexts.push(
      await buildNotifierContext(
        readNotifierConfig({
          ...common,
          ...own('notifier'),
          HEALTH_PORT: port(),
          CHAINPAY_ENCRYPTION_KEY: encryptionKey,
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms,800ms',
          PUBLIC_URL: gatewayUrl,
        }),
        loggerOf('notifier'),
      ),
    )
    contexts.push(
      await buildChainIndexerContext(
        readChainIndexerConfig({
          ...common,
          ...own('chain-indexer'),
          PORT: indexerPort,
          CHAIN_MODE: 'simulator',
          CHAIN_NETWORKS: networks,
          TRON_BLOCK_INTERVAL_MS: '40',
          SOLANA_BLOCK_INTERVAL_MS: '40',
          ...options.chainIndexerEnv,
        }),
        loggerOf('chain-indexer'),
        options.chainClock ? { clock: options.chainClock } : {},
      ),
    )
    contexts.push(
      await buildGatewayContext(
        readGatewayConfig({
          ...common,
          ...own('gateway'),
          PORT: gatewayPort,
          ADMIN_PORT: adminPort,
          ADMIN_HOST: '127.0.0.1',
          PAYMENT_COMMAND_URL: `http://127.0.0.1:${commandPort}`,
          COMMAND_API_TOKEN: commandApiToken,
          CHAINPAY_ENCRYPTION_KEY: encryptionKey,
          ADMIN_TOKEN: adminToken,
          CHAIN_SIMULATOR_URL: `http://127.0.0.1:${indexerPort}`,
          CALLBACK_URL_POLICY: 'development',
          PUBLIC_URL: gatewayUrl,
          CHAIN_NETWORKS: networks,
          RATE_LIMIT_MAX: '1000000',
        }),
        loggerOf('gateway'),
      ),
    )
    // in the deployables' order (payment-command first: the gateway's readiness asks it)
    runner = createServiceRunner({
      logger: loggerOf('in-process-distributed'),
      services: contexts.flatMap((context) => context.services),
      setExitCode: () => {},
    })
    if (!(await runner.start())) throw new Error('a service did not start')
  } catch (error) {
    await stop()
    throw error
  }
  const adminUrl = `http://127.0.0.1:${adminPort}`
  return {
    baseUrl: gatewayUrl,
    adminUrl,
    adminToken,
    paymentCommandDataDir: join(dataDir, 'payment-command'),
    mongodbDatabase: options.name,
    async createMerchant(name) {
      const response = await fetch(`${adminUrl}/admin/v1/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      })
      const body = (await response.json()) as {
        merchant: { merchantId: string }
        apiKey: string
        apiSecret: string
      }
      if (response.status !== 201) throw new Error(`merchant not created: ${JSON.stringify(body)}`)
      return { merchantId: body.merchant.merchantId, apiKey: body.apiKey, apiSecret: body.apiSecret }
    },
    output: () => lines.join(''),
    async stop() {
      await stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

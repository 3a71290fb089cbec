// The distributed system for a cross-process test: the five services as child processes of the test
// (so that it can kill -9 and restart any one), on the run's Kafka and MongoDB-wire server, with a
// database and a bus namespace of the test's own.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateAdminToken, generateSecretKey, randomToken } from '@chainpay/platform'
import { freePort, type NodeProcess, nodeProcess } from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { type CreatedMerchant, createMerchant } from '../admin-client.js'
import {
  type ClusterPlan,
  type ClusterPlanOptions,
  planCluster,
  SERVICE_NAMES,
  type ServiceName,
} from '../cluster-plan.js'
import { type ClusterSlot, takeClusterSlot } from './cluster-slots.js'

export interface TestClusterOptions {
  kafkaBrokers: string
  mongodbUrl: string
  /** unique per test file: the MongoDB database and the bus namespace */
  name: string
  eventstoreUrl?: string | null
  blockIntervalMs?: { TRON: number; SOLANA: number }
  webhookRetrySchedule?: string
  logLevel?: string
  chains?: ClusterPlanOptions['chains']
  /**
   * data an earlier run left (an upgrade fixture): its directory, holding dev-wallet.json and each
   * service's directory, and the secrets it ran with; else a new directory, wallet and secrets
   */
  existing?: { dataDir: string; secrets: { encryptionKey: string; adminToken: string } }
}

export interface TestCluster {
  urls: ClusterPlan['urls']
  /** each service's /healthz and /readyz (payment-command's: its command port) */
  serviceUrls: Record<ServiceName, string>
  /** each service's /metrics, on its METRICS_PORT */
  metricsUrls: Record<ServiceName, string>
  adminToken: string
  /** what payment-command's command API (urls.paymentCommand) requires as the bearer */
  commandApiToken: string
  dataDir: string
  service(name: ServiceName): NodeProcess
  createMerchant(name?: string): Promise<CreatedMerchant>
  /** every service's output, for a failing test's message */
  output(): string
  /** kill -9 everything and delete the data directory */
  destroy(): Promise<void>
}

/**
 * The consumer group timeouts of a test cluster. A service killed -9 leaves its consumers' members in
 * their groups until their sessions time out, and its restarted successor gets no partition before:
 * with the production default of 30 s (docs/operations.md) each kill costs half a minute of waiting.
 * A few seconds here (the local Kafka accepts sessions from 1 s: packages/local-servers/src/kafka.ts)
 * still leaves several heartbeats per session on a busy machine.
 */
export const TEST_CONSUMER_GROUP_TIMEOUTS = {
  sessionTimeoutMs: 3000,
  heartbeatIntervalMs: 500,
  rebalanceTimeoutMs: 10_000,
} as const

export async function startTestCluster(options: TestClusterOptions): Promise<TestCluster> {
  // a port found free can be taken by another test's process before the service binds it: a fresh
  // cluster is planned again on other ports, once (one on an existing data directory is not)
  for (let attempt = 1; ; attempt++) {
    const slot = await takeClusterSlot()
    try {
      return await startInSlot(options, slot)
    } catch (error) {
      slot.release()
      const portTaken = error instanceof Error && error.message.includes('EADDRINUSE')
      if (!portTaken || options.existing || attempt >= 2) throw error
    }
  }
}

async function startInSlot(options: TestClusterOptions, slot: ClusterSlot): Promise<TestCluster> {
  const dataDir =
    options.existing?.dataDir ?? mkdtempSync(join(tmpdir(), `chainpay-cluster-${options.name}-`))
  const walletFile = join(dataDir, 'dev-wallet.json')
  if (!options.existing) writeFileSync(walletFile, JSON.stringify(createDevelopmentWallet()), { mode: 0o600 })
  const secrets = {
    encryptionKey: options.existing?.secrets.encryptionKey ?? generateSecretKey(),
    adminToken: options.existing?.secrets.adminToken ?? generateAdminToken(),
    commandApiToken: randomToken('cmd', 32),
  }
  const [gateway, admin, paymentCommand, chainIndexer, projection, notifier, ...metricsPorts] =
    await Promise.all(Array.from({ length: 6 + SERVICE_NAMES.length }, () => freePort()))
  const plan = planCluster({
    dataDir,
    ports: {
      gateway: gateway ?? 0,
      admin: admin ?? 0,
      paymentCommand: paymentCommand ?? 0,
      chainIndexer: chainIndexer ?? 0,
      projection: projection ?? 0,
      notifier: notifier ?? 0,
      metrics: Object.fromEntries(
        SERVICE_NAMES.map((name, index) => [name, metricsPorts[index] ?? 0]),
      ) as Record<ServiceName, number>,
    },
    kafkaBrokers: options.kafkaBrokers,
    mongodbUrl: options.mongodbUrl,
    mongodbDatabase: options.name,
    busNamespace: options.name,
    eventstoreUrl: options.eventstoreUrl ?? null,
    secrets,
    walletFile,
    logLevel: options.logLevel ?? 'warn',
    blockIntervalMs: options.blockIntervalMs ?? { TRON: 40, SOLANA: 40 },
    // blocks ten times as fast as mainnet's, and late funds found as soon (docs/chains.md)
    solanaCheckIntervalMs: 2_000,
    webhookRetrySchedule: options.webhookRetrySchedule ?? '100ms,200ms,400ms,800ms',
    // the tests retry creates quickly through outages; rate limiting has tests of its own
    rateLimitMax: 1_000_000,
    kafkaConsumerGroup: TEST_CONSUMER_GROUP_TIMEOUTS,
    ...(options.chains ? { chains: options.chains } : {}),
  })
  const processes = new Map<ServiceName, NodeProcess>()
  for (const service of plan.services) {
    mkdirSync(service.dataDir, { recursive: true })
    processes.set(
      service.name,
      nodeProcess({
        name: service.name,
        mainScript: service.mainScript,
        env: service.env,
        readyUrl: service.readyUrl,
      }),
    )
  }
  const service = (name: ServiceName) => {
    const found = processes.get(name)
    if (!found) throw new Error(`no service ${name}`)
    return found
  }
  const destroy = async () => {
    await Promise.all([...processes.values()].map((running) => running.kill()))
    rmSync(dataDir, { recursive: true, force: true })
    slot.release()
  }
  try {
    // payment-command first: the gateway's readiness asks it
    for (const name of SERVICE_NAMES) await service(name).start()
  } catch (error) {
    await destroy()
    throw error
  }
  return {
    urls: plan.urls,
    serviceUrls: Object.fromEntries(
      plan.services.map((planned) => [planned.name, planned.baseUrl]),
    ) as Record<ServiceName, string>,
    metricsUrls: Object.fromEntries(
      plan.services.map((planned) => [planned.name, planned.metricsUrl]),
    ) as Record<ServiceName, string>,
    adminToken: secrets.adminToken,
    commandApiToken: secrets.commandApiToken,
    dataDir,
    service,
    createMerchant: (name = 'Test merchant') => createMerchant(plan.urls.admin, secrets.adminToken, { name }),
    output: () => [...processes.values()].map((running) => running.output()).join('\n'),
    destroy,
  }
}

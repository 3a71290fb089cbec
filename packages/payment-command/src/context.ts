// What payment-command runs on, built from its configuration: the command handler (the only writer
// of the event store), its event relay, the consumers of chain observations and deadlines, expiry,
// the internal command API the gateway calls (with health), and /metrics on a listener of its own. Which adapters back the ports (the embedded SQLite file, or EventStoreDB, Kafka and
// MongoDB) is @chainpay/infrastructure' choice, from the environment; in standalone, the process's shared
// ones, and the gateway calls the handler directly.

import { join } from 'node:path'
import { addressFamily, applyNetworkSettings } from '@chainpay/domain'
import { infrastructureFor, openEventStore, type SharedRuntime } from '@chainpay/infrastructure'
import { type Clock, createSecretBox, type Logger, readinessOf, systemClock } from '@chainpay/platform'
import type {
  DepositAddressCommands,
  DepositSweepCommands,
  InvoiceCommands,
  MerchantWallets,
  OutgoingCommands,
  PaymentCommands,
} from '@chainpay/ports'
import { createRateService, createRateSources, type SimulatedRateSource } from '@chainpay/rates'
import {
  createServiceMetrics,
  healthRoutes,
  httpService,
  metricsService,
  type ServiceContext,
} from '@chainpay/service-kit'
import { createAddressDeriver, merchantWalletPublicParts, walletKeyIdOf } from '@chainpay/wallet'
import { ADDRESS_MARKS_FILE, createAddressMarks } from './address-marks.js'
import { addressPoolName, createAddressPool } from './address-pool.js'
import { createChainTimeTracker } from './chain-times.js'
import { createPaymentCommandHandler } from './command-handler.js'
import type { PaymentCommandConfig } from './config.js'
import { createDepositAddressHandler } from './deposit-address-handler.js'
import { createDepositObservationHandler } from './deposit-observation-handler.js'
import { paymentTransferOf } from './deposit-or-payment.js'
import { createDepositRelay } from './deposit-relay.js'
import { createDepositSweepHandler } from './deposit-sweep-handler.js'
import { createDeadlineKeeper, createExpiryScheduler } from './expiry.js'
import { buildCommandApi } from './http/command-api.js'
import { createInvoiceCommandHandler } from './invoice-handler.js'
import {
  createInvoiceDeadlineKeeper,
  createInvoiceExpiryScheduler,
  createInvoicePaymentKeeper,
  createInvoiceRelay,
} from './invoice-keeper.js'
import { createMerchantWallets } from './merchant-wallets.js'
import { createObservationConsumer } from './observation-consumer.js'
import { createOutgoingCommandHandler } from './outgoing-command-handler.js'
import { loadPayment } from './payment-stream.js'
import { createEventRelay } from './relay.js'

export interface PaymentCommandContextOptions {
  clock?: Clock
  /** standalone: the process's infrastructure and metrics; then no command API of its own */
  shared?: SharedRuntime
}

export interface PaymentCommandContext extends ServiceContext {
  /** the commands, for a gateway in the same process (standalone) */
  commands: PaymentCommands
  /** the invoices' commands, for a gateway in the same process (standalone) */
  invoiceCommands: InvoiceCommands
  /** customers' deposit addresses (docs/api.md, "Deposit addresses"), for a gateway in the same process */
  depositAddresses: DepositAddressCommands
  /** the operator's sweeps of customers' deposits, for an admin API in the same process (standalone) */
  depositSweeps: DepositSweepCommands
  /** refunds and payouts, for a gateway in the same process (standalone) */
  outgoing: OutgoingCommands
  /** merchants' own wallets, for an admin API in the same process (standalone) */
  merchantWallets: MerchantWallets
  /** the simulated rate source when RATE_SOURCES names it, moved by the dev routes (POST /dev/rates) */
  simulatedRates: SimulatedRateSource | null
}

export async function buildPaymentCommandContext(
  config: PaymentCommandConfig,
  logger: Logger,
  options: PaymentCommandContextOptions = {},
): Promise<PaymentCommandContext> {
  const { shared, clock = systemClock } = options
  const metrics = shared?.metrics ?? createServiceMetrics('payment-command')
  const { infrastructure, release } = await infrastructureFor({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'payment-command',
    logger,
    metrics: metrics.registry,
    shared,
  })
  const { stores } = infrastructure
  const eventStore = openEventStore({ eventstoreUrl: config.eventstoreUrl, infrastructure, logger })
  const bus = infrastructure.bus()
  const deadlines = stores.deadlines()
  const chainTimes = createChainTimeTracker()
  // the seeds are sealed and opened here only, where addresses are derived (docs/security.md)
  const merchantWallets = createMerchantWallets({
    store: stores.merchantWallets(),
    secretBox: createSecretBox(config.encryptionKeys),
    operatorWallet: config.keys,
    merchants: stores.merchants(),
    clock,
  })
  // only the networks a chain-indexer watches: a payment elsewhere would never be seen
  const registry = applyNetworkSettings(config.registry, config.chains)
  const operatorKeys = merchantWalletPublicParts(config.keys)
  // the restore guard: counters past, and pooled addresses below, every index handed out before
  // (docs/operations.md, "Backup and restore"); before anything allocates
  const addressMarks = createAddressMarks({
    file: join(config.dataDir, ADDRESS_MARKS_FILE),
    allocator: stores.allocator(),
    // in payment-command's own file whatever backs the other stores (docs/capacity.md)
    pool: infrastructure.addressPool(),
    registry: config.registry,
    poolOf: (chain) => addressPoolName(chain, walletKeyIdOf(operatorKeys, chain)),
    logger,
  })
  await addressMarks.guard()
  const { allocator } = addressMarks
  const deriver = createAddressDeriver(config.keys)
  const addressPool = createAddressPool({
    store: addressMarks.pool,
    allocator,
    deriver,
    families: [...new Set(registry.assets.map((asset) => asset.chain))].map((chain) =>
      addressFamily(config.registry, chain),
    ),
    keyIdOf: (chain) => walletKeyIdOf(operatorKeys, chain),
    size: config.addressPoolSize,
    logger,
  })
  // prices in fiat: the rate is locked here, in both shapes, and comes to the decider with the command
  // (docs/architecture.md, "Prices in fiat")
  const rateSources = createRateSources(config.rates, clock)
  const rates = createRateService({
    sources: rateSources.sources,
    policy: config.rates.policy,
    clock,
    logger,
    registry: metrics.registry,
  })
  // customers' deposit addresses: streams of their own, on the wallet's deposit branch (docs/treasury.md)
  const depositAddresses = createDepositAddressHandler({
    eventStore,
    merchants: stores.merchants(),
    allocator,
    operator: {
      deriveDepositAddress: deriver.deriveDepositAddress,
      keyIdOf: (chain) => walletKeyIdOf(operatorKeys, chain),
    },
    merchantWallets,
    registry,
    familyRegistry: config.registry,
    clock,
    logger,
  })
  const depositSweeps = createDepositSweepHandler({ eventStore, registry: config.registry, clock, logger })
  const handler = createPaymentCommandHandler({
    eventStore,
    merchants: stores.merchants(),
    allocator,
    deriver,
    addressPool,
    merchantWallets,
    registry,
    // a network not served still shares its chain's addresses
    familyRegistry: config.registry,
    policy: {
      allowInsecureCallbackUrls: config.callbackUrlPolicy === 'development',
      priceCurrencies: config.rates.priceCurrencies,
    },
    rates,
    depositAddresses,
    clock,
    logger,
  })
  // invoices: their own streams, written here like the payments' (docs/architecture.md, "Invoices")
  const invoices = createInvoiceCommandHandler({
    eventStore,
    merchants: stores.merchants(),
    registry,
    policy: {
      allowInsecureCallbackUrls: config.callbackUrlPolicy === 'development',
      priceCurrencies: config.rates.priceCurrencies,
    },
    payments: handler,
    clock,
    logger,
  })
  const invoiceRelay = createInvoiceRelay({ eventStore, bus, checkpoints: stores.checkpoints(), logger })
  const depositRelay = createDepositRelay({ eventStore, bus, checkpoints: stores.checkpoints(), logger })
  const invoiceExpiry = createInvoiceExpiryScheduler({ deadlines, invoices, clock, logger })
  // refunds and payouts (docs/api.md, "Refunds and payouts"): merchants' ledgers serialize their creates
  const outgoing = createOutgoingCommandHandler({
    eventStore,
    receivedNet: stores.receivedNet(),
    merchants: stores.merchants(),
    merchantWallets,
    registry: config.registry,
    clock,
    logger,
  })
  const relay = createEventRelay({
    eventStore,
    bus,
    checkpoints: stores.checkpoints(),
    logger,
    metrics: metrics.relay,
  })
  const expiry = createExpiryScheduler({ deadlines, handler, chainTimes, clock, logger })
  // the stores, the bus and its consumers, the event store (apart from them with EventStoreDB, or
  // when only it is in the SQLite file), and the relay and expiry loops (docs/operations.md, "Health")
  const readiness = readinessOf(
    async () => (await infrastructure.answers()) && (await eventStore.answers()),
    [relay, expiry, invoiceRelay, depositRelay],
  )

  const commandApi = httpService({
    name: 'command API',
    host: config.host,
    port: config.port,
    portVariable: 'PORT',
    logger,
    limits: config.httpLimits,
    build: async () => {
      const app = buildCommandApi({
        handler,
        invoices,
        depositAddresses,
        depositSweeps,
        merchantWallets,
        outgoing,
        logger,
        requestMetrics: metrics.http,
        token: config.commandApiToken,
        simulatedRates: rateSources.simulated ?? undefined,
      })
      // health for the gateway's readiness and the probes; no /metrics next to the commands
      await app.register(healthRoutes, { readiness })
      return app
    },
  })
  const metricsPort = metricsService({ config, registry: metrics.registry, logger })

  return {
    commands: handler,
    invoiceCommands: invoices,
    depositAddresses,
    depositSweeps,
    outgoing,
    merchantWallets,
    simulatedRates: rateSources.simulated,
    // the command API first: creates only need the event store, while the consumers below may wait
    // for their groups (after a crash, until the dead member's session times out)
    services: [
      ...(shared ? [] : [commandApi, metricsPort]),
      relay,
      addressPool,
      createDeadlineKeeper({
        bus,
        deadlines,
        paymentState: async (paymentId) => (await loadPayment(eventStore, paymentId)).state,
        logger,
      }),
      createObservationConsumer({
        bus,
        handler,
        deposits: createDepositObservationHandler({
          eventStore,
          merchants: stores.merchants(),
          registry,
          clock,
          logger,
        }),
        paymentTransferOf: (observation) => paymentTransferOf(eventStore, clock, observation),
        chainTimes,
        deadlines,
        logger,
      }),
      expiry,
      invoiceRelay,
      createInvoiceDeadlineKeeper({ bus, deadlines, logger }),
      createInvoicePaymentKeeper({
        bus,
        invoices,
        paymentState: async (paymentId) => (await loadPayment(eventStore, paymentId)).state,
        logger,
      }),
      invoiceExpiry,
      depositRelay,
    ],
    readiness,
    async close() {
      // every service has stopped: nothing allocates any more
      addressMarks.close()
      await rates.close()
      await eventStore.close()
      await release()
    },
  }
}

// The command side on a fresh SQLite file, wired as standalone wires it, for integration tests.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type AssetRegistry, defaultAssetRegistry, type FeePolicy } from '@chainpay/domain'
import {
  type Clock,
  createRootLogger,
  createSecretBox,
  type DestinationStream,
  generateSecretKey,
  type Logger,
  type SecretBox,
  systemClock,
} from '@chainpay/platform'
import type { AddressIndexAllocator, EventStore, MerchantStore } from '@chainpay/ports'
import {
  createSqliteAddressAllocator,
  createSqliteEventStore,
  createSqliteMerchantStore,
  createSqliteMerchantWalletStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import {
  type AddressDeriver,
  createAddressDeriver,
  merchantWalletPublicParts,
  walletFromMnemonic,
  walletKeyIdOf,
} from '@chainpay/wallet'
import {
  createPaymentCommandHandler,
  type PaymentCommandHandler,
  type PaymentCommandHandlerDeps,
} from '../command-handler.js'
import { createDepositAddressHandler } from '../deposit-address-handler.js'
import {
  createDepositObservationHandler,
  type DepositObservationHandler,
} from '../deposit-observation-handler.js'
import { createMerchantWallets, type MerchantWalletKeeper } from '../merchant-wallets.js'

export const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

export interface SqliteCommandSide {
  dir: string
  db: DatabaseSync
  eventStore: EventStore
  /** the real allocator, counting its calls */
  allocator: AddressIndexAllocator & {
    /** keyId null: the operator's keys */
    allocations: Array<{ family: string; keyId: string | null; index: number }>
  }
  deriver: AddressDeriver
  /** the merchants the handler knows: it refuses a create for any other */
  merchants: MerchantStore
  /** registers a merchant (fee 1 % by default) whose payments the handler then takes */
  addMerchant(merchantId: string, feePolicy?: FeePolicy): Promise<void>
  /** merchants' own wallets, in the same file, sealed with `secretBox` */
  merchantWallets: MerchantWalletKeeper
  secretBox: SecretBox
  /** the key `secretBox` seals with */
  secretKey: string
  handler: PaymentCommandHandler
  /** deposits at customers' deposit addresses, on the same event store */
  deposits: DepositObservationHandler
  logger: Logger
  close(): Promise<void>
}

export const TEST_FEE_POLICY: FeePolicy = { feeBps: 100, fixedFees: {} }

/** a merchant as the admin API stores it, for tests of the command side (no usable secrets) */
export async function addTestMerchant(
  merchants: MerchantStore,
  merchantId: string,
  feePolicy: FeePolicy = TEST_FEE_POLICY,
): Promise<void> {
  const now = new Date().toISOString()
  await merchants.createMerchant(
    {
      merchantId,
      name: merchantId,
      webhookUrl: null,
      webhookSecret: 'sealed',
      feePolicy,
      createdAt: now,
      updatedAt: now,
    },
    { apiKey: `key-${merchantId}`, merchantId, secret: 'sealed', createdAt: now, revokedAt: null },
  )
}

export function openSqliteCommandSide(
  options: {
    clock?: Clock
    registry?: AssetRegistry
    /** the whole registry, when `registry` is narrowed to the networks served */
    familyRegistry?: AssetRegistry
    /** where log lines go; silent when absent */
    logDestination?: DestinationStream
    /** the rate service that prices payments in fiat; none when absent */
    rates?: PaymentCommandHandlerDeps['rates']
  } = {},
): SqliteCommandSide {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-command-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  const eventStore = createSqliteEventStore(db)
  const sqliteAllocator = createSqliteAddressAllocator(db)
  const allocations: SqliteCommandSide['allocator']['allocations'] = []
  const allocator: SqliteCommandSide['allocator'] = {
    allocations,
    async allocate(family, keyId) {
      const index = await sqliteAllocator.allocate(family, keyId)
      allocations.push({ family: family.chain, keyId: keyId ?? null, index })
      return index
    },
    raiseTo: (family, next, keyId) => sqliteAllocator.raiseTo(family, next, keyId),
  }
  const operatorWallet = walletFromMnemonic(TEST_MNEMONIC)
  const deriver = createAddressDeriver(operatorWallet)
  const logger = options.logDestination
    ? createRootLogger({
        service: 'payment-command-test',
        level: 'debug',
        destination: options.logDestination,
      })
    : createRootLogger({ service: 'payment-command-test', level: 'silent' })
  const merchants = createSqliteMerchantStore(db)
  const clock = options.clock ?? systemClock
  const secretKey = generateSecretKey()
  const secretBox = createSecretBox(secretKey)
  const merchantWallets = createMerchantWallets({
    store: createSqliteMerchantWalletStore(db),
    merchants,
    secretBox,
    operatorWallet,
    clock,
  })
  const handler = createPaymentCommandHandler({
    eventStore,
    merchants,
    allocator,
    deriver,
    merchantWallets,
    registry: options.registry ?? defaultAssetRegistry,
    ...(options.familyRegistry ? { familyRegistry: options.familyRegistry } : {}),
    policy: { allowInsecureCallbackUrls: false },
    ...(options.rates ? { rates: options.rates } : {}),
    // customers' deposit addresses, for PER_USER payments (docs/api.md, "Deposit addresses")
    depositAddresses: createDepositAddressHandler({
      eventStore,
      merchants,
      allocator,
      operator: {
        deriveDepositAddress: deriver.deriveDepositAddress,
        keyIdOf: (chain) => walletKeyIdOf(merchantWalletPublicParts(operatorWallet), chain),
      },
      merchantWallets,
      registry: options.registry ?? defaultAssetRegistry,
      clock,
      logger,
    }),
    clock,
    logger,
  })
  return {
    dir,
    db,
    eventStore,
    allocator,
    deriver,
    merchants,
    addMerchant: (merchantId, feePolicy) => addTestMerchant(merchants, merchantId, feePolicy),
    merchantWallets,
    secretBox,
    secretKey,
    handler,
    deposits: createDepositObservationHandler({
      eventStore,
      merchants,
      registry: options.registry ?? defaultAssetRegistry,
      clock,
      logger,
    }),
    logger,
    async close() {
      await eventStore.close()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

// payment-command as production wires it (packages/payment-command/src/context.ts), on an in-memory
// SQLite file and the benchmark's stepped bus: the real command handler decides every payment event
// (creates, cancels, the chain indexer's observations, expiries), the real observation consumer,
// deadline keeper and expiry scheduler run on the simulated clock, and the relay's own conversion
// (toPaymentEventMessage, paymentEventBusMessage) puts each stored event on the bus in order.
// Customers' deposit addresses are created by the real deposit address handler on the operator's
// wallet's deposit branch, their DepositAddressCreated put on the deposit events' topic as the
// deposit relay converts it (deposit-relay.ts), and deposit observations recorded by the real
// deposit observation handler (docs/api.md, "Deposit addresses").

import {
  depositAddressEventBusMessage,
  paymentEventBusMessage,
} from '../../../packages/contracts/dist/index.js'
import { DEPOSIT_ADDRESS_STREAM_PREFIX, depositIdOf } from '../../../packages/domain/dist/index.js'
// not in the package's index: the deposit observation consumer's own file (as context.ts wires it)
import {
  createDepositObservationHandler,
  loadDeposit,
} from '../../../packages/payment-command/dist/deposit-observation-handler.js'
import { paymentTransferOf } from '../../../packages/payment-command/dist/deposit-or-payment.js'
import {
  createChainTimeTracker,
  createDeadlineKeeper,
  createDepositAddressHandler,
  createExpiryScheduler,
  createObservationConsumer,
  createPaymentCommandHandler,
  loadPayment,
  storedSchemaVersion,
  toDepositAddressEvent,
  toPaymentEventMessage,
} from '../../../packages/payment-command/dist/index.js'
import { addTestMerchant, TEST_MNEMONIC } from '../../../packages/payment-command/dist/testing/index.js'
import { Topics } from '../../../packages/ports/dist/index.js'
import {
  createSqliteAddressAllocator,
  createSqliteDeadlineStore,
  createSqliteEventStore,
  createSqliteMerchantStore,
  openSqliteDatabase,
} from '../../../packages/store-sqlite/dist/index.js'
import {
  createAddressDeriver,
  merchantWalletPublicParts,
  walletFromMnemonic,
  walletKeyIdOf,
} from '../../../packages/wallet/dist/index.js'

export const MERCHANT_ID = 'bench-shop'
const PAYMENT_STREAM_PREFIX = 'payment-'
/** the relay's batch (relay.ts) */
const RELAY_BATCH = 200

export async function createPaymentSide({ bus, registry, clock, logger }) {
  const db = openSqliteDatabase(':memory:')
  const eventStore = createSqliteEventStore(db)
  const merchants = createSqliteMerchantStore(db)
  await addTestMerchant(merchants, MERCHANT_ID)
  const deadlines = createSqliteDeadlineStore(db)
  const chainTimes = createChainTimeTracker()
  const keys = walletFromMnemonic(TEST_MNEMONIC)
  const deriver = createAddressDeriver(keys)
  const allocator = createSqliteAddressAllocator(db)
  const operatorKeys = merchantWalletPublicParts(keys)
  // as payment-command's context wires it: the operator's wallet's deposit branch
  const depositAddresses = createDepositAddressHandler({
    eventStore,
    merchants,
    allocator,
    operator: {
      deriveDepositAddress: deriver.deriveDepositAddress,
      keyIdOf: (chain) => walletKeyIdOf(operatorKeys, chain),
    },
    registry,
    clock,
    logger,
  })
  const handler = createPaymentCommandHandler({
    eventStore,
    merchants,
    allocator,
    deriver,
    registry,
    depositAddresses,
    policy: { allowInsecureCallbackUrls: false },
    clock,
    logger,
  })
  const consumers = [
    createObservationConsumer({
      bus,
      handler,
      deposits: createDepositObservationHandler({ eventStore, merchants, registry, clock, logger }),
      paymentTransferOf: (observation) => paymentTransferOf(eventStore, clock, observation),
      chainTimes,
      deadlines,
      logger,
    }),
    createDeadlineKeeper({
      bus,
      deadlines,
      paymentState: async (paymentId) => (await loadPayment(eventStore, paymentId)).state,
      logger,
    }),
  ]
  for (const consumer of consumers) await consumer.start()
  const expiry = createExpiryScheduler({ deadlines, handler, chainTimes, clock, logger })
  let position = null
  // the relay is woken by the event store's appends (relay.ts), not by a poll
  let appended = true
  eventStore.onAppended(() => {
    appended = true
  })

  return {
    handler,
    /** a create as the gateway passes the merchant's body on */
    async create(body) {
      const { payment } = await handler.createPayment({ merchantId: MERCHANT_ID, request: body })
      return payment
    },
    cancel: (paymentId) => handler.cancelPayment({ merchantId: MERCHANT_ID, paymentId }),
    /** a customer's deposit address, as the gateway's POST /v1/deposit-addresses asks for it */
    async depositAddress(merchantUserId, network) {
      const { depositAddress } = await depositAddresses.ensureDepositAddress({
        merchantId: MERCHANT_ID,
        request: { merchantUserId, network },
      })
      return depositAddress
    },
    /** what payment-command recorded of a deposit: none, detected, confirmed, in_doubt, dropped */
    async depositStatus(network, txHash, transferIndex) {
      return (await loadDeposit(eventStore, depositIdOf(network, txHash, transferIndex))).state.status
    },
    /** what the relay does when an append wakes it: every new event on the bus, in order */
    async relay() {
      let relayed = 0
      if (!appended) return relayed
      appended = false
      for (;;) {
        const batch = await eventStore.readAll(position, RELAY_BATCH)
        if (batch.length === 0) return relayed
        const messages = batch
          .filter((event) => event.streamId.startsWith(PAYMENT_STREAM_PREFIX))
          .map((event) => paymentEventBusMessage(toPaymentEventMessage(event)))
        if (messages.length > 0) await bus.publish(Topics.paymentEvents, messages)
        // the deposit relay's part the chain indexer reads: the deposit address streams
        const depositAddressMessages = batch
          .filter((event) => event.streamId.startsWith(DEPOSIT_ADDRESS_STREAM_PREFIX))
          .map((event) =>
            depositAddressEventBusMessage({
              eventId: event.eventId,
              streamId: event.streamId,
              revision: event.revision,
              schemaVersion: storedSchemaVersion(event),
              recordedAt: event.recordedAt,
              ...toDepositAddressEvent(event),
            }),
          )
        if (depositAddressMessages.length > 0) await bus.publish(Topics.depositEvents, depositAddressMessages)
        position = batch.at(-1).position
        relayed += messages.length + depositAddressMessages.length
      }
    },
    /** one pass of the expiry scheduler (it runs every second) */
    expire: () => expiry.tick(),
    async close() {
      for (const consumer of consumers) await consumer.stop()
      await eventStore.close()
      db.close()
    },
  }
}

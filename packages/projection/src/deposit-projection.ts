// Builds the deposit addresses' read model from Topics.depositEvents (docs/api.md, "Deposit
// addresses"): an address is written once, so a replay, or the gateway's write-through before it,
// changes nothing.

import {
  isDepositEventType,
  PaymentEventHeaders,
  parseDepositAddressEventMessage,
  parseDepositEventMessage,
} from '@chainpay/contracts'
import { evolveDeposit, initialDepositState } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type DepositAddressReadModel,
  type DepositReadModel,
  type ReceivedNetTotals,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface DepositProjectionOptions {
  bus: Bus
  depositAddresses: DepositAddressReadModel
  /** deposits at the addresses (docs/api.md, "Deposits"); their events are skipped without it */
  deposits?: DepositReadModel
  /** the merchants' running received net (GET /balances): a confirmed deposit's net counts in it */
  receivedNet?: Pick<ReceivedNetTotals, 'count'>
  logger: Logger
  groupId?: string
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

/**
 * folds a deposit event into the deposit as the read model keeps it: once per stream revision (a
 * replay changes nothing), in the stream's order (the topic is keyed by deposit)
 */
export async function projectDeposit(
  deposits: DepositReadModel,
  value: string,
  logger: Logger,
  receivedNet?: Pick<ReceivedNetTotals, 'count'>,
): Promise<void> {
  const message = parseDepositEventMessage(value)
  const stored = await deposits.get(message.depositId)
  if (stored !== null && stored.revision >= message.revision) return
  const before = message.type === 'DepositDetected' ? initialDepositState : stored?.state
  if (before === undefined) {
    logger.warn(
      { depositId: message.depositId, type: message.type, revision: message.revision },
      'deposit event before its DepositDetected: skipped; replay the topic from the start to rebuild the deposits',
    )
    return
  }
  const state = evolveDeposit(before, message)
  if (state.status === 'none') return
  // A confirmed deposit is final (section 11): its net joins the merchant's received net, counted
  // before the save so that a crash in between counts it on the redelivery (once: count is
  // idempotent on the revision, keyed by the deposit's id beside the payments' ids)
  if (state.status === 'confirmed' && receivedNet !== undefined) {
    const { detected } = state
    await receivedNet.count({
      paymentId: message.depositId,
      merchantId: detected.merchantId,
      network: detected.network,
      currency: detected.currency,
      decimals: detected.decimals,
      netUnits: BigInt(detected.netUnits),
      revision: message.revision,
    })
  }
  await deposits.save({ depositId: message.depositId, revision: message.revision, state })
}

export function createDepositProjection(options: DepositProjectionOptions): Service {
  const { bus, depositAddresses, logger } = options
  return consumerService(bus, {
    name: 'deposit projection',
    logger,
    topic: Topics.depositEvents,
    groupId: options.groupId ?? 'projection-deposits',
    ...options.retry,
    handle: async (consumed) => {
      // the topic carries the deposits' events too (deposit-relay.ts)
      const type = consumed.headers[PaymentEventHeaders.eventType]
      if (type !== undefined && isDepositEventType(type)) {
        if (options.deposits !== undefined) {
          await projectDeposit(options.deposits, consumed.value, logger, options.receivedNet)
        }
        return
      }
      if (type !== undefined && type !== 'DepositAddressCreated') return
      const message = parseDepositAddressEventMessage(consumed.value)
      switch (message.type) {
        case 'DepositAddressCreated': {
          const { merchantId, merchantUserId, chain, address, derivationPath, walletId, createdAt } =
            message.data
          await depositAddresses.save({
            merchantId,
            merchantUserId,
            chain,
            address,
            derivationPath,
            walletId,
            createdAt,
          })
          return
        }
      }
    },
  })
}

// Builds the deposit addresses' read model from Topics.depositEvents (docs/api.md, "Deposit
// addresses"): an address is written once, so a replay, or the gateway's write-through before it,
// changes nothing.

import { PaymentEventHeaders, parseDepositAddressEventMessage } from '@chainpay/contracts'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type DepositAddressReadModel,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface DepositProjectionOptions {
  bus: Bus
  depositAddresses: DepositAddressReadModel
  logger: Logger
  groupId?: string
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
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
      // the topic carries the deposits' events too (deposit-relay.ts): not the addresses' read model's
      const type = consumed.headers[PaymentEventHeaders.eventType]
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

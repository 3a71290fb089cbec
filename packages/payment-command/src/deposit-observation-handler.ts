// Records the chain indexer's deposit observations (docs/api.md, "Deposits"; decisions.md section
// 22) through the deposit decider, on one stream per transfer (network, txHash, index): a transfer
// is a deposit once, and a redelivered observation decides nothing new. Fee and net come from the
// merchant's policy when the deposit is first detected.

import { randomUUID } from 'node:crypto'
import { DEPOSIT_EVENT_SCHEMA_VERSION, type DepositObservation, parseDepositEvent } from '@chainpay/contracts'
import {
  type AssetRegistry,
  type DepositEvent,
  type DepositState,
  decideDeposit,
  depositIdOf,
  evolveDeposit,
  initialDepositState,
  toDepositStreamId,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import { type EventStore, type MerchantStore, WrongExpectedRevisionError } from '@chainpay/ports'
import { storedSchemaVersion } from './payment-stream.js'

export interface DepositObservationHandler {
  /** the events appended (none for a redelivery or an observation that changes nothing) */
  record(observation: DepositObservation): Promise<DepositEvent[]>
}

const MAX_CONFLICT_RETRIES = 5

export async function loadDeposit(
  eventStore: EventStore,
  depositId: string,
): Promise<{ state: DepositState; revision: number }> {
  const recorded = await eventStore.readStream(toDepositStreamId(depositId))
  const state = recorded
    .map((event) => parseDepositEvent(event.type, storedSchemaVersion(event), event.data))
    .reduce(evolveDeposit, initialDepositState)
  return { state, revision: recorded.at(-1)?.revision ?? -1 }
}

export function createDepositObservationHandler(deps: {
  eventStore: EventStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  registry: AssetRegistry
  clock: Clock
  logger: Logger
  newId?: () => string
}): DepositObservationHandler {
  const { eventStore, merchants, registry, clock, logger } = deps
  const newId = deps.newId ?? randomUUID
  return {
    async record(observation) {
      const asset = registry.assets.find(
        (candidate) =>
          candidate.network === observation.network && candidate.currency === observation.currency,
      )
      if (asset === undefined) {
        logger.warn(
          { network: observation.network, currency: observation.currency, txHash: observation.txHash },
          'deposit of an asset this registry does not serve ignored: check ASSET_REGISTRY of the indexer and payment-command',
        )
        return []
      }
      const merchant = await merchants.getMerchant(observation.merchantId)
      if (merchant === null) {
        logger.warn(
          { merchantId: observation.merchantId, txHash: observation.txHash },
          'deposit of an unknown merchant ignored',
        )
        return []
      }
      const depositId = depositIdOf(observation.network, observation.txHash, observation.transferIndex)
      for (let attempt = 0; ; attempt++) {
        const { state, revision } = await loadDeposit(eventStore, depositId)
        const events = decideDeposit(
          {
            type: 'RecordDepositObservation',
            data: {
              depositId,
              merchantId: observation.merchantId,
              merchantUserId: observation.merchantUserId,
              asset: { network: asset.network, currency: asset.currency, decimals: asset.decimals },
              address: observation.address,
              feePolicy: merchant.feePolicy,
              requiredConfirmations: observation.requiredConfirmations,
              observation: {
                status: observation.status,
                dropReason: observation.dropReason,
                confirmations: observation.confirmations,
                final: observation.final,
                blockHeight: observation.blockHeight,
                blockTime: observation.blockTime,
                amountUnits: observation.amountUnits,
                txHash: observation.txHash,
                transferIndex: observation.transferIndex,
              },
              now: isoNow(clock),
            },
          },
          state,
        )
        if (events.length === 0) return []
        try {
          await eventStore.appendToStream(
            toDepositStreamId(depositId),
            events.map((event) => ({
              eventId: newId(),
              type: event.type,
              data: event.data,
              metadata: { schemaVersion: DEPOSIT_EVENT_SCHEMA_VERSION },
            })),
            revision === -1 ? 'no_stream' : revision,
          )
          return events
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error
        }
      }
    },
  }
}

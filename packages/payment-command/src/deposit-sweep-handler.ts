// Records the operator's sweeps of customers' deposits (docs/treasury.md, "Customers' deposit
// addresses in a plan"; docs/api.md, "Balances and sweeps") on the deposit's own stream, through the
// deposit decider, as sweeps of a payment's funds are recorded on the payment's: once per transaction
// and currency, never more than the confirmed deposit's amount less what sweeps took of it.

import { randomUUID } from 'node:crypto'
import { DEPOSIT_EVENT_SCHEMA_VERSION } from '@chainpay/contracts'
import {
  type AssetRegistry,
  DomainError,
  decideDeposit,
  evolveDeposit,
  type Sweep,
  toDepositStreamId,
} from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import { type DepositSweepCommands, type EventStore, WrongExpectedRevisionError } from '@chainpay/ports'
import { loadDeposit } from './deposit-observation-handler.js'

const MAX_CONFLICT_RETRIES = 5

export function createDepositSweepHandler(deps: {
  eventStore: EventStore
  /** the whole registry: a deposit's network stays known after it stops being served */
  registry: AssetRegistry
  clock: Clock
  logger: Logger
  newId?: () => string
}): DepositSweepCommands {
  const { eventStore, registry, clock, logger } = deps
  const newId = deps.newId ?? randomUUID
  return {
    async recordDepositSweep(input) {
      const { depositId } = input
      for (let attempt = 0; ; attempt++) {
        const { state, revision } = await loadDeposit(eventStore, depositId)
        const native =
          state.status === 'none'
            ? undefined
            : registry.assets.find(
                (asset) => asset.network === state.detected.network && asset.tokenStandard === 'NATIVE',
              )
        const events = decideDeposit(
          {
            type: 'RecordDepositSweep',
            data: {
              ...input,
              nativeAsset:
                native === undefined ? null : { currency: native.currency, decimals: native.decimals },
              now: isoNow(clock),
            },
          },
          state,
        )
        if (events.length > 0) {
          try {
            await eventStore.appendToStream(
              toDepositStreamId(depositId),
              events.map((event) => ({
                eventId: newId(),
                type: event.type,
                data: event.data,
                metadata: { schemaVersion: DEPOSIT_EVENT_SCHEMA_VERSION },
              })),
              revision,
            )
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CONFLICT_RETRIES) throw error
            continue
          }
        }
        const deposit = events.reduce(evolveDeposit, state)
        if (deposit.status === 'none') throw new DomainError('NOT_FOUND', `deposit ${depositId} not found`)
        const sweep = (deposit.sweeps ?? []).find(
          (recorded: Sweep) => recorded.txHash === input.txHash && recorded.currency === input.currency,
        )
        // the decider either recorded the sweep, found the same one, or threw
        if (sweep === undefined) throw new DomainError('INTERNAL_ERROR', 'the recorded sweep is missing')
        if (events.length > 0) {
          logger.info(
            { depositId, txHash: sweep.txHash, currency: sweep.currency, amountUnits: sweep.amountUnits },
            'deposit sweep recorded',
          )
        }
        return { outcome: events.length > 0 ? 'recorded' : 'replayed', sweep, deposit }
      }
    },
  }
}

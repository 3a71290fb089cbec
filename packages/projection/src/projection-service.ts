// Builds the payment read model from the payment events on the bus, one message at a time, in
// order per payment. Idempotent by stream revision: replays and write-throughs are skipped. A read
// model that fails is retried by the bus until it works, holding the events after it; only a message
// that can never apply (malformed, or a revision gap: BrokenPaymentStreamError) is poison and dead-lettered.
// With `receivedNet`, each payment's final net is counted into its merchant's running total after its
// document is saved (docs/capacity.md, "Refunds and payouts"); a redelivery after a crash in between
// finds the document saved and counts it then (a count is idempotent per revision).

import { parsePaymentEventMessage } from '@chainpay/contracts'
import { foldPaymentEvent } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type PaymentDocument,
  type PaymentReadModel,
  type ReceivedNetTotals,
  receivedNetCountOf,
  rememberingReadModel,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface ProjectionServiceOptions {
  bus: Bus
  readModel: PaymentReadModel
  /** each merchant's received net per asset, counted from the documents saved; none when absent */
  receivedNet?: ReceivedNetTotals
  logger: Logger
  groupId?: string
  /** how the bus paces retries while the read model fails; the bus's defaults unless given */
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

const netOf = (document: Pick<PaymentDocument, 'state' | 'revision'>) => receivedNetCountOf(document).netUnits

export function createProjectionService(options: ProjectionServiceOptions): Service {
  const { bus, logger, receivedNet } = options
  const count = async (document: PaymentDocument) => {
    if (receivedNet !== undefined) await receivedNet.count(receivedNetCountOf(document))
  }
  // each event is folded onto the document saved last: no read of the store per event
  const readModel = rememberingReadModel(options.readModel)
  return consumerService(bus, {
    name: 'projection',
    logger,
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'projection',
    ...options.retry,
    handle: async (consumed) => {
      const message = parsePaymentEventMessage(consumed.value)
      const before = await readModel.documentBefore(message.paymentId, message.revision)
      const projected = foldPaymentEvent(before, message)
      if (projected === 'skip') {
        // saved already (a replay, a write-through, or a crash before the count): count what is stored
        if (before !== null) await count(before)
        logger.debug(
          { paymentId: message.paymentId, revision: message.revision },
          'payment event already in the read model',
        )
        return
      }
      // 'stale' means a write-through saved a newer revision meanwhile: it already covers this one
      await readModel.save(projected)
      // only when the net moved: the document before was counted when it was handled (its event's
      // offset moved only after), so an event that leaves the net as it was (a confirmation count,
      // most events) costs no read of the totals (docs/capacity.md, "Per payment")
      const net = netOf(projected)
      if (before === null ? net !== 0n : netOf(before) !== net) await count(projected)
    },
  })
}

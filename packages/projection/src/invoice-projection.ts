// Builds the invoices' read model from the invoice events on the bus (docs/api.md, "Invoices"), one
// message at a time, in order per invoice; idempotent by stream revision, as the payments' projection
// (projection-service.ts): replays and write-throughs are skipped, a gap is poison.

import { parseInvoiceEventMessage } from '@chainpay/contracts'
import { foldInvoiceEvent } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type InvoiceReadModel,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface InvoiceProjectionOptions {
  bus: Bus
  readModel: InvoiceReadModel
  logger: Logger
  groupId?: string
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

export function createInvoiceProjection(options: InvoiceProjectionOptions): Service {
  const { bus, readModel, logger } = options
  return consumerService(bus, {
    name: 'invoice projection',
    logger,
    topic: Topics.invoiceEvents,
    groupId: options.groupId ?? 'projection-invoices',
    ...options.retry,
    handle: async (consumed) => {
      const message = parseInvoiceEventMessage(consumed.value)
      const projected = foldInvoiceEvent(await readModel.get(message.invoiceId), message)
      if (projected === 'skip') return
      await readModel.save(projected)
    },
  })
}

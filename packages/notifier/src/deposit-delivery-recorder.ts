// Turns deposits' events into webhook deliveries (docs/api.md, "Deposits"; decisions.md section 22):
// DepositDetected as deposit.detected, DepositConfirmed as deposit.confirmed, to the merchant's
// default URL and every enabled endpoint subscribed to the kind, with the deposit as it was right
// after the event (the deposit relay folds it into the message). Deliveries are keyed by the event
// id and the target, as a payment's, so a replayed message records nothing twice; they are ordered
// per deposit (their `paymentId` is the deposit's id, `sequence` its stream revision).

import {
  type DepositEventMessage,
  type DepositWebhookKind,
  isDepositEventType,
  PaymentEventHeaders,
  parseDepositEventMessage,
  type WebhookDepositFields,
} from '@chainpay/contracts'
import { formatUnits, type OpenDeposit } from '@chainpay/domain'
import { type Clock, type Logger, moduleLogger, type Service } from '@chainpay/platform'
import {
  type Bus,
  type ConsumedMessage,
  consumerService,
  type MerchantStore,
  type SubscribeOptions,
  Topics,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { deliveryTargetsOf, recordDeliveries } from './delivery-targets.js'

export interface DepositDeliveryRecorderOptions {
  bus: Bus
  deliveries: WebhookDeliveryStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
  clock: Clock
  logger: Logger
  groupId?: string
  onRecorded?: (deliveryIds: string[]) => void
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

export interface DepositDeliveryRecorder extends Service {
  handle(message: ConsumedMessage): Promise<void>
}

/** the webhook kind of a deposit event; null for the events merchants do not get */
export function depositWebhookKindOf(type: string): DepositWebhookKind | null {
  if (type === 'DepositDetected') return 'deposit.detected'
  if (type === 'DepositConfirmed') return 'deposit.confirmed'
  return null
}

/** the deposit of its webhooks: the API's deposit in snake_case, amounts as decimal strings */
export function webhookDepositFields(depositId: string, deposit: OpenDeposit): WebhookDepositFields {
  const { detected } = deposit
  const decimal = (units: string) => formatUnits(units, detected.decimals)
  return {
    id: depositId,
    status: deposit.status.toUpperCase(),
    merchant_user_id: detected.merchantUserId,
    network: detected.network,
    currency: detected.currency,
    address: detected.address,
    tx_hash: detected.txHash,
    transfer_index: detected.transferIndex,
    amount: decimal(detected.amountUnits),
    fee_amount: decimal(detected.feeUnits),
    net_amount: decimal(detected.netUnits),
    confirmations: deposit.confirmations,
    required_confirmations: detected.requiredConfirmations,
    detected_at: detected.detectedAt,
    confirmed_at: deposit.confirmedAt,
  }
}

export function createDepositDeliveryRecorder(
  options: DepositDeliveryRecorderOptions,
): DepositDeliveryRecorder {
  const { bus, deliveries, merchants, webhookEndpoints, clock } = options
  const logger = moduleLogger(options.logger, 'deposit-delivery-recorder')

  async function record(message: DepositEventMessage, kind: DepositWebhookKind): Promise<void> {
    const { deposit } = message
    if (deposit === undefined) {
      logger.warn(
        { depositId: message.depositId, type: message.type, revision: message.revision },
        'deposit event without its deposit (relayed by an older payment-command): no webhook recorded; upgrade payment-command',
      )
      return
    }
    const merchantId = deposit.detected.merchantId
    const targets = await deliveryTargetsOf({
      eventId: message.eventId,
      merchantId,
      kind,
      // a deposit has no callbackUrl of its own
      callbackUrl: null,
      merchants,
      webhookEndpoints,
    })
    const results = await recordDeliveries(deliveries, clock, {
      eventId: message.eventId,
      // ordered per deposit: no payment's delivery waits for it, nor it for one
      paymentId: message.depositId,
      merchantId,
      eventType: kind,
      sequence: message.revision,
      payload: { event: kind, deposit: webhookDepositFields(message.depositId, deposit) },
      targets,
    })
    const recordedIds: string[] = []
    for (const { deliveryId, endpointId, targetUrl, recorded } of results) {
      if (recorded && targetUrl !== null) recordedIds.push(deliveryId)
      if (recorded) {
        logger.debug(
          { deliveryId, endpointId, depositId: message.depositId, eventType: kind },
          'webhook recorded',
        )
      }
    }
    if (recordedIds.length > 0) options.onRecorded?.(recordedIds)
  }

  async function handle(consumed: ConsumedMessage): Promise<void> {
    // the topic carries the deposit addresses' events too (DepositAddressCreated): not the merchant's news
    const type = consumed.headers[PaymentEventHeaders.eventType]
    if (type === undefined || !isDepositEventType(type)) return
    const kind = depositWebhookKindOf(type)
    if (kind === null) return
    await record(parseDepositEventMessage(consumed.value), kind)
  }

  const consumer = consumerService(bus, {
    name: 'deposit webhook recorder',
    logger,
    topic: Topics.depositEvents,
    groupId: options.groupId ?? 'notifier-deposits',
    ...options.retry,
    handle,
  })
  return { ...consumer, handle }
}

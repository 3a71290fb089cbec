import { randomUUID } from 'node:crypto'
import { type DepositEventMessage, depositEventBusMessage } from '@chainpay/contracts'
import {
  type DepositDetectedData,
  type DepositEvent,
  type DepositState,
  evolveDeposit,
  initialDepositState,
  type OpenDeposit,
} from '@chainpay/domain'
import { type ConsumedMessage, Topics } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDepositDeliveryRecorder } from './deposit-delivery-recorder.js'
import { createWebhookDispatcher } from './dispatcher.js'
import {
  createNotifierHarness,
  type NotifierHarness,
  startReceiver,
  testLogger,
} from './testing/notifier-harness.js'

let harness: NotifierHarness
let stops: Array<() => Promise<void>>

beforeEach(() => {
  harness = createNotifierHarness()
  stops = []
})

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
  await harness.close()
})

const depositId = 'a1'.repeat(16)

function detectedData(merchantId: string): DepositDetectedData {
  return {
    depositId,
    merchantId,
    merchantUserId: 'customer-8841',
    network: 'TRON',
    currency: 'USDT',
    decimals: 6,
    address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
    txHash: 'ab'.repeat(32),
    transferIndex: 0,
    amountUnits: '12500000',
    feeUnits: '125000',
    netUnits: '12375000',
    feeBps: 100,
    fixedFeeUnits: '0',
    blockHeight: 100,
    blockTime: '2026-11-28T10:00:00.000Z',
    confirmations: 1,
    requiredConfirmations: 20,
    detectedAt: '2026-11-28T10:00:03.000Z',
  }
}

/** a deposit's stream as the deposit relay publishes it: each event with the deposit folded up to it */
function depositMessages(events: DepositEvent[]): DepositEventMessage[] {
  let state: DepositState = initialDepositState
  return events.map((event, revision) => {
    state = evolveDeposit(state, event)
    return {
      eventId: randomUUID(),
      streamId: `deposit-${depositId}`,
      depositId,
      revision,
      schemaVersion: 1,
      recordedAt: '2026-11-28T10:01:00.000Z',
      ...event,
      deposit: state as OpenDeposit,
    }
  })
}

function detectedThenConfirmed(merchantId: string): DepositEventMessage[] {
  return depositMessages([
    { type: 'DepositDetected', data: detectedData(merchantId) },
    {
      type: 'DepositConfirmationsUpdated',
      data: { confirmations: 10, blockHeight: 100, at: '2026-11-28T10:00:30.000Z' },
    },
    { type: 'DepositConfirmed', data: { confirmations: 20, confirmedAt: '2026-11-28T10:01:00.000Z' } },
  ])
}

const consumed = (message: DepositEventMessage): ConsumedMessage => ({
  topic: Topics.depositEvents,
  offset: String(message.revision),
  ...depositEventBusMessage(message),
})

function recorder(onRecorded: (ids: string[]) => void = () => {}) {
  const created = createDepositDeliveryRecorder({
    bus: harness.bus,
    deliveries: harness.deliveries,
    merchants: harness.merchants,
    webhookEndpoints: harness.webhookEndpoints,
    clock: harness.clock,
    logger: testLogger,
    onRecorded,
  })
  stops.push(() => created.stop())
  return created
}

describe('createDepositDeliveryRecorder', () => {
  it('records deposit.detected and deposit.confirmed with the deposit, its fee and net, and nothing twice', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const messages = detectedThenConfirmed(merchantId)
    let recorded = 0
    const deposits = recorder((ids) => {
      recorded += ids.length
    })
    for (const message of messages) await deposits.handle(consumed(message))

    const deliveries = await harness.deliveries.listByPayment(depositId)
    expect(deliveries.map(({ eventType, sequence, status }) => [eventType, sequence, status])).toEqual([
      ['deposit.detected', 0, 'pending'],
      ['deposit.confirmed', 2, 'pending'],
    ])
    const common = {
      id: depositId,
      merchant_user_id: 'customer-8841',
      network: 'TRON',
      currency: 'USDT',
      address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
      tx_hash: 'ab'.repeat(32),
      transfer_index: 0,
      amount: '12.5',
      fee_amount: '0.125',
      net_amount: '12.375',
      required_confirmations: 20,
      detected_at: '2026-11-28T10:00:03.000Z',
    }
    expect(deliveries.map((delivery) => delivery.payload)).toEqual([
      {
        event: 'deposit.detected',
        deposit: { ...common, status: 'DETECTED', confirmations: 1, confirmed_at: null },
      },
      {
        event: 'deposit.confirmed',
        deposit: {
          ...common,
          status: 'CONFIRMED',
          confirmations: 20,
          confirmed_at: '2026-11-28T10:01:00.000Z',
        },
      },
    ])
    expect(deliveries.map((delivery) => delivery.targetUrl)).toEqual([
      'https://shop.example/default',
      'https://shop.example/default',
    ])
    expect(recorded).toBe(2)

    // a redelivery of the same events records nothing new
    harness.clock.advance(60_000)
    for (const message of messages) await deposits.handle(consumed(message))
    expect(await harness.deliveries.listByPayment(depositId)).toEqual(deliveries)
    expect(recorded).toBe(2)
  })

  it('skips the deposit addresses’ events on the topic and a deposit event without its folded deposit', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const [detected] = detectedThenConfirmed(merchantId)
    const { deposit: _, ...bare } = detected as DepositEventMessage
    const deposits = recorder()
    await deposits.handle(consumed(bare as DepositEventMessage))
    await deposits.handle({
      topic: Topics.depositEvents,
      offset: '0',
      key: 'address',
      value: '{}',
      headers: { 'event-type': 'DepositAddressCreated' },
    })
    expect(await harness.deliveries.listByPayment(depositId)).toEqual([])
  })

  it('follows the deposit events on the bus and, with the dispatcher, reaches the merchant signed', async () => {
    const merchant = await harness.addMerchant({ webhookUrl: null })
    const receiver = await startReceiver(merchant.secret)
    stops.push(() => receiver.close())
    await harness.merchants.updateMerchant(
      merchant.merchantId,
      { webhookUrl: `${receiver.origin}/hooks` },
      'now',
    )
    const dispatcher = createWebhookDispatcher({
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      secretBox: harness.secretBox,
      clock: harness.clock,
      logger: testLogger,
      allowPrivateTargets: true,
      pollIntervalMs: 60_000,
    })
    // as the notifier's context wires it: what is recorded is claimed at once, by id
    const deposits = recorder((ids) => dispatcher.dispatchRecorded(ids))
    await dispatcher.start()
    stops.push(() => dispatcher.stop())
    await deposits.start()

    await harness.bus.publish(
      Topics.depositEvents,
      detectedThenConfirmed(merchant.merchantId).map(depositEventBusMessage),
    )

    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2)
    expect(receiver.received.map(({ eventType, verified }) => [eventType, verified])).toEqual([
      ['deposit.detected', true],
      ['deposit.confirmed', true],
    ])
    const body = JSON.parse(receiver.received[1]?.body ?? '{}')
    expect(body).toMatchObject({
      event: 'deposit.confirmed',
      deposit: {
        id: depositId,
        status: 'CONFIRMED',
        amount: '12.5',
        fee_amount: '0.125',
        net_amount: '12.375',
      },
    })
  })
})

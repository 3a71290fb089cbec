import { paymentId, samplePaymentEvents } from '@chainpay/domain/testing'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import {
  type ChainProgressObservation,
  type ForeignFundsObservation,
  PaymentEventHeaders,
  type PaymentEventMessage,
  paymentEventBusMessage,
  type TransferObservation,
} from './bus-messages.js'
import {
  ChainObservationMessageSchema,
  PaymentEventMessageSchema,
  parseChainObservationMessage,
  parsePaymentEventMessage,
} from './bus-schemas.js'
import { paymentEventMessages } from './testing/index.js'

const messages = paymentEventMessages(samplePaymentEvents)

const firstMessage = messages[0] as PaymentEventMessage

describe('parsePaymentEventMessage', () => {
  it.each(messages.map((message) => [message.type, message] as const))(
    'round-trips a %s message',
    (_type, message) => {
      expect(parsePaymentEventMessage(JSON.stringify(message))).toEqual(message)
    },
  )

  it('agrees with PaymentEventMessageSchema', () => {
    const validator = Compile(PaymentEventMessageSchema)
    for (const message of messages) expect(validator.Check(message)).toBe(true)
    expect(validator.Check({ ...firstMessage, type: 'PaymentExpired' })).toBe(false)
  })

  it('rejects text that is not JSON', () => {
    expect(() => parsePaymentEventMessage('{"eventId":')).toThrow(/^payment event message: not JSON: /)
  })

  it.each([
    ['a missing envelope field', { ...firstMessage, streamId: undefined }, /streamId/],
    ['a negative revision', { ...firstMessage, revision: -1 }, /\/revision: must be >= 0/],
    ['schema version 0', { ...firstMessage, schemaVersion: 0 }, /\/schemaVersion/],
    ['an extra envelope field', { ...firstMessage, partition: 3 }, /partition/],
  ])('rejects an envelope with %s', (_case, message, problem) => {
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(/^payment event message: /)
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(problem)
  })

  it('rejects an unknown event type, naming the event', () => {
    const message = { ...firstMessage, type: 'PaymentRefunded' }
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(
      `payment event message ${firstMessage.eventId}: payment event: unknown type 'PaymentRefunded'`,
    )
  })

  it('rejects a future schema version', () => {
    const message = { ...firstMessage, schemaVersion: 5 }
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(/unsupported schema version 5/)
  })

  it('rejects data that does not fit its type', () => {
    const message = { ...firstMessage, data: { ...firstMessage.data, amount: '1e3' } }
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(
      /payment event PaymentCreated \(schema version 4\): invalid data: \/amount: must match pattern/,
    )
  })

  it('rejects a message whose key and data name different payments', () => {
    const message = { ...firstMessage, paymentId: 'another-payment' }
    expect(() => parsePaymentEventMessage(JSON.stringify(message))).toThrow(/differs from the data's/)
  })
})

describe('paymentEventBusMessage', () => {
  it('keys the message by payment and repeats the envelope in headers', () => {
    const message = messages[3] as PaymentEventMessage
    const published = paymentEventBusMessage(message)
    expect(published.key).toBe(paymentId)
    expect(published.headers).toEqual({
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: 'TransferWithdrawn',
      [PaymentEventHeaders.streamRevision]: '3',
    })
    expect(parsePaymentEventMessage(published.value)).toEqual(message)
  })
})

const transferObservation: TransferObservation = {
  kind: 'transfer',
  network: 'TRON',
  paymentId,
  txHash: '5f2c9a',
  transferIndex: 0,
  address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  amountUnits: '10500000',
  blockHeight: 67_123_456,
  blockTime: '2026-11-21T14:04:00.000Z',
  confirmations: 3,
  status: 'seen',
  dropReason: null,
  observedAt: '2026-11-21T14:04:09.000Z',
}

const progressObservation: ChainProgressObservation = {
  kind: 'progress',
  network: 'SOLANA',
  height: 301_000_000,
  blockTime: '2026-11-21T14:04:00.000Z',
  observedAt: '2026-11-21T14:04:01.000Z',
}

describe('parseChainObservationMessage', () => {
  it('round-trips a transfer, one in doubt, a dropped one, foreign funds and a progress observation', () => {
    const inDoubt: TransferObservation = { ...transferObservation, status: 'in_doubt' }
    const dropped: TransferObservation = { ...transferObservation, status: 'dropped', dropReason: 'EXPIRED' }
    const { status: _status, dropReason: _reason, kind: _kind, ...transferFields } = transferObservation
    const foreignFunds: ForeignFundsObservation = {
      ...transferFields,
      kind: 'foreign_funds',
      currency: 'TRX',
      decimals: 6,
      amountUnits: '7000000',
    }
    for (const observation of [transferObservation, inDoubt, dropped, foreignFunds, progressObservation]) {
      expect(parseChainObservationMessage(JSON.stringify(observation))).toEqual(observation)
    }
  })

  it('reads a withdrawn transfer of the version before in-doubt: a rollback in doubt, a failed one dropped', () => {
    const { dropReason: _reason, ...older } = transferObservation
    const withdrawn = (withdrawReason: string) =>
      parseChainObservationMessage(JSON.stringify({ ...older, status: 'withdrawn', withdrawReason }))
    expect(withdrawn('DROPPED')).toEqual({ ...transferObservation, status: 'in_doubt', dropReason: null })
    expect(withdrawn('REVERTED')).toEqual({
      ...transferObservation,
      status: 'dropped',
      dropReason: 'REVERTED',
    })
  })

  it('agrees with ChainObservationMessageSchema', () => {
    const validator = Compile(ChainObservationMessageSchema)
    expect(validator.Check(transferObservation)).toBe(true)
    expect(validator.Check(progressObservation)).toBe(true)
    expect(validator.Check({ ...progressObservation, kind: 'transfer' })).toBe(false)
  })

  it('rejects text that is not JSON', () => {
    expect(() => parseChainObservationMessage('nope')).toThrow(/^chain observation message: not JSON: /)
  })

  it.each([
    [
      'no kind',
      { ...progressObservation, kind: undefined },
      "kind must be 'transfer', 'foreign_funds', 'progress', 'watching' or 'deposit', got undefined",
    ],
    [
      'an unknown kind',
      { ...progressObservation, kind: 'reorg' },
      `kind must be 'transfer', 'foreign_funds', 'progress', 'watching' or 'deposit', got "reorg"`,
    ],
  ])('rejects a message with %s', (_case, message, problem) => {
    expect(() => parseChainObservationMessage(JSON.stringify(message))).toThrow(problem)
  })

  it('rejects a non-object message', () => {
    expect(() => parseChainObservationMessage('[1,2]')).toThrow(/kind must be/)
  })

  it.each([
    ['a fractional amount', { amountUnits: '10.5' }, /\/amountUnits/],
    ['an unknown status', { status: 'pending' }, /\/status/],
    ['an unknown drop reason', { dropReason: 'LOST' }, /\/dropReason/],
    ['a withdrawn status without its reason', { status: 'withdrawn' }, /\/status/],
    ['a negative confirmation count', { confirmations: -1 }, /\/confirmations/],
    ['an extra field', { memo: 'x' }, /memo/],
  ])('rejects a transfer with %s', (_case, fields, problem) => {
    const json = JSON.stringify({ ...transferObservation, ...fields })
    expect(() => parseChainObservationMessage(json)).toThrow(/^chain observation message \(transfer\): /)
    expect(() => parseChainObservationMessage(json)).toThrow(problem)
  })

  it('rejects a progress observation without a height', () => {
    const json = JSON.stringify({ ...progressObservation, height: undefined })
    expect(() => parseChainObservationMessage(json)).toThrow(
      /^chain observation message \(progress\): .*height/,
    )
  })
})

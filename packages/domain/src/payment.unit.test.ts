import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry, resolveAsset } from './assets.js'
import type { CreatePaymentRequest } from './create-request.js'
import { defaultFeePolicy } from './fees.js'
import {
  decidePayment,
  evolvePayment,
  initialPaymentState,
  type PaymentCommand,
  type PaymentEvent,
  type PaymentStatus,
} from './payment.js'
import { deciderSpecification } from './testing/decider-specification.js'
import {
  at,
  confirmationsUpdated,
  dropped,
  eventsFor,
  fingerprint,
  foreignFunds,
  foreignObserved,
  fundsSwept,
  lateFunds,
  merchantId,
  observed,
  paymentCreated,
  paymentId,
  required,
  settled,
  sweepRecorded,
  transferDetected,
  underpaidFinalized,
  usdtOnTron,
  withdrawn,
} from './testing/payment-fixtures.js'

/** the event as a watcher reports a transfer at its count that the chain has not made final yet */
function notFinal(event: PaymentEvent): PaymentEvent {
  return event.type === 'TransferDetected' ? { ...event, data: { ...event.data, final: false } } : event
}

const given = deciderSpecification({
  decide: decidePayment,
  evolve: evolvePayment,
  initialState: initialPaymentState,
})

describe('CreatePayment', () => {
  describe('when no payment exists', () => {
    it('creates a pending payment with its fee, a 30 minute expiry and nulls for what was not sent', () => {
      given([]).when(createPayment()).then([paymentCreated()])
    })

    it('records every optional field and the requested expiry', () => {
      const request: CreatePaymentRequest = {
        amount: '10.50',
        currency: 'USDT',
        network: 'TRON',
        tokenStandard: 'TRC20',
        addressMode: 'PER_PAYMENT',
        description: 'Order 42',
        metadata: { orderId: 42, 'a.b': 'x' },
        callbackUrl: 'https://shop.example.com/hook',
        successRedirectUrl: 'https://shop.example.com/ok',
        cancelRedirectUrl: 'https://shop.example.com/cancel',
        expiresInMinutes: 1440,
        idempotencyKey: 'order-42',
      }
      given([])
        .when(createPayment({ request }))
        .then([
          paymentCreated({
            amount: '10.50',
            idempotencyKey: 'order-42',
            description: 'Order 42',
            metadata: { orderId: 42, 'a.b': 'x' },
            callbackUrl: 'https://shop.example.com/hook',
            successRedirectUrl: 'https://shop.example.com/ok',
            cancelRedirectUrl: 'https://shop.example.com/cancel',
            expiresAt: at(1440),
          }),
        ])
    })

    it('takes decimals, standard and token account from the asset and the receiving address', () => {
      const usdc = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' })
      const receivingAddress = {
        address: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
        tokenAccount: 'Bx7TgmNJfjbh7rhMTVY4Ex3jkvHWa5Tj9fy1e4QA9Thz',
        derivationPath: "m/44'/501'/7'/0'",
        walletId: 'wallet-of-merchant-1',
      }
      given([])
        .when(
          createPayment({
            asset: usdc,
            request: { amount: '1', currency: 'USDC', network: 'SOLANA' },
            receivingAddress,
            requiredConfirmations: 32,
            feePolicy: { feeBps: 250, fixedFees: { 'SOLANA:USDC': '0.1' } },
          }),
        )
        .then([
          paymentCreated({
            network: 'SOLANA',
            currency: 'USDC',
            tokenStandard: 'SPL',
            amount: '1',
            amountUnits: '1000000',
            feeUnits: '125000',
            netUnits: '875000',
            feeBps: 250,
            fixedFeeUnits: '100000',
            ...receivingAddress,
            requiredConfirmations: 32,
          }),
        ])
    })
  })

  describe('when the payment exists', () => {
    it('replays the same request as nothing new', () => {
      given([paymentCreated()]).when(createPayment()).thenNothingHappens()
    })

    it('replays the same request after the payment settled', () => {
      given(eventsFor('confirmed')).when(createPayment()).thenNothingHappens()
    })

    it('rejects the key with a different request', () => {
      given([paymentCreated()])
        .when(createPayment({ requestFingerprint: 'e'.repeat(64) }))
        .thenThrows('IDEMPOTENCY_KEY_REUSED', 'idempotencyKey: already used with a different request')
    })
  })
})

describe('CancelPayment', () => {
  const cancel = (by = merchantId): PaymentCommand => ({
    type: 'CancelPayment',
    data: { paymentId, merchantId: by, canceledBy: 'merchant', now: at(3) },
  })

  describe('when no payment exists', () => {
    it('is not found', () => {
      given([]).when(cancel()).thenThrows('PAYMENT_NOT_FOUND')
    })
  })

  describe('when pending', () => {
    it('cancels a payment with no transfer seen', () => {
      given([paymentCreated()])
        .when(cancel())
        .then([{ type: 'PaymentCanceled', data: { paymentId, canceledAt: at(3), canceledBy: 'merchant' } }])
    })

    it('records that the customer canceled, from the payment page', () => {
      given([paymentCreated()])
        .when({ type: 'CancelPayment', data: { paymentId, merchantId, canceledBy: 'customer', now: at(3) } })
        .then([{ type: 'PaymentCanceled', data: { paymentId, canceledAt: at(3), canceledBy: 'customer' } }])
    })

    it("is not found for another merchant's payment", () => {
      given([paymentCreated()]).when(cancel('merchant-2')).thenThrows('PAYMENT_NOT_FOUND')
    })

    it('refuses once a transfer was seen, even unconfirmed', () => {
      given([paymentCreated(), transferDetected()])
        .when(cancel())
        .thenThrows('PAYMENT_NOT_CANCELABLE', /^payment is pending with a transfer already seen; /)
    })

    it('refuses once late funds were seen', () => {
      given([paymentCreated(), lateFunds('pending')])
        .when(cancel())
        .thenThrows('PAYMENT_NOT_CANCELABLE')
    })
  })

  describe('when canceled', () => {
    it('is idempotent', () => {
      given(eventsFor('canceled')).when(cancel()).thenNothingHappens()
    })

    it("is not found for another merchant's payment", () => {
      given(eventsFor('canceled')).when(cancel('merchant-2')).thenThrows('PAYMENT_NOT_FOUND')
    })
  })

  describe.each<PaymentStatus>(['confirmed', 'underpaid', 'overpaid', 'expired', 'failed'])(
    'when %s',
    (status) => {
      it('refuses and says the status', () => {
        given(eventsFor(status))
          .when(cancel())
          .thenThrows(
            'PAYMENT_NOT_CANCELABLE',
            `payment is ${status}; only a pending payment with no transfer seen can be canceled`,
          )
      })
    },
  )
})

describe('ExpirePayment', () => {
  const expire = (now: string, chainTime = now): PaymentCommand => ({
    type: 'ExpirePayment',
    data: { paymentId, now, chainTime },
  })

  describe('when no payment exists', () => {
    it('does nothing', () => {
      given([])
        .when(expire(at(31)))
        .thenNothingHappens()
    })
  })

  describe('when pending', () => {
    it('expires at expiresAt once the chain has been scanned that far', () => {
      given([paymentCreated()])
        .when(expire(at(30)))
        .then([{ type: 'PaymentExpired', data: { paymentId, expiredAt: at(30) } }])
    })

    it('expires later with the time the command runs', () => {
      given([paymentCreated()])
        .when(expire(at(45), at(31)))
        .then([{ type: 'PaymentExpired', data: { paymentId, expiredAt: at(45) } }])
    })

    it('waits before expiresAt', () => {
      given([paymentCreated()])
        .when(expire(at(29.99), at(31)))
        .thenNothingHappens()
    })

    it('waits while the chain watcher is behind expiresAt', () => {
      given([paymentCreated()])
        .when(expire(at(40), at(29)))
        .thenNothingHappens()
    })

    it('does not expire while a seen transfer awaits its confirmations', () => {
      given([paymentCreated(), transferDetected()])
        .when(expire(at(40)))
        .thenNothingHappens()
    })

    it('expires despite late funds, which arrived after expiresAt', () => {
      given([paymentCreated(), lateFunds('pending')])
        .when(expire(at(40)))
        .then([{ type: 'PaymentExpired', data: { paymentId, expiredAt: at(40) } }])
    })
  })

  describe('when underpaid', () => {
    const underpaid = eventsFor('underpaid') // 10 of 10.5 received through tx-1

    it('becomes final at expiresAt once the chain has been scanned that far', () => {
      given(underpaid)
        .when(expire(at(30)))
        .then([underpaidFinalized({ receivedUnits: '10000000', finalizedAt: at(30) })])
    })

    it('waits before expiresAt, and while the chain watcher is behind it', () => {
      given(underpaid)
        .when(expire(at(29.99), at(31)))
        .thenNothingHappens()
      given(underpaid)
        .when(expire(at(40), at(29)))
        .thenNothingHappens()
    })

    it('waits while a further transfer counted before expiresAt awaits its confirmations', () => {
      given([
        ...underpaid,
        transferDetected({ txHash: 'tx-2', amountUnits: '100000', blockHeight: 130, confirmations: 1 }),
      ])
        .when(expire(at(40)))
        .thenNothingHappens()
    })

    it('is final with the total once that transfer is final too', () => {
      given([
        ...underpaid,
        transferDetected({ txHash: 'tx-2', amountUnits: '100000', blockHeight: 130, confirmations: 1 }),
        confirmationsUpdated({ txHash: 'tx-2', confirmations: required }),
      ])
        .when(expire(at(40)))
        .then([underpaidFinalized({ receivedUnits: '10100000', finalizedAt: at(40) })])
    })

    it('becomes final once only', () => {
      given([...underpaid, underpaidFinalized()])
        .when(expire(at(60)))
        .thenNothingHappens()
    })

    it('counts no transfer once final, even one in a block before expiresAt', () => {
      given([...underpaid, underpaidFinalized()])
        .when(
          observed({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockTime: at(20),
            confirmations: required,
            now: at(31),
          }),
        )
        .then([
          lateFunds('underpaid', {
            txHash: 'tx-2',
            amountUnits: '500000',
            blockTime: at(20),
            receivedAt: at(31),
          }),
        ])
    })
  })

  describe.each<PaymentStatus>(['confirmed', 'overpaid', 'canceled', 'expired', 'failed'])(
    'when %s',
    (status) => {
      it('does nothing', () => {
        given(eventsFor(status))
          .when(expire(at(60)))
          .thenNothingHappens()
      })
    },
  )
})

describe('RecordTransferObservation: seen', () => {
  describe('when no payment exists', () => {
    it('is not found', () => {
      given([]).when(observed()).thenThrows('PAYMENT_NOT_FOUND')
    })
  })

  describe('when pending', () => {
    it('counts a transfer in a block before expiresAt and waits for its confirmations', () => {
      given([paymentCreated()])
        .when(observed({ confirmations: 3 }))
        .then([transferDetected({ confirmations: 3, detectedAt: at(6) })])
    })

    it('confirms when a final transfer pays the exact amount', () => {
      given([paymentCreated()])
        .when(observed({ confirmations: required }))
        .then([
          transferDetected({ confirmations: required, detectedAt: at(6) }),
          settled('PaymentConfirmed', { confirmedAt: at(6) }),
        ])
    })

    it('is overpaid when a final transfer pays more', () => {
      given([paymentCreated()])
        .when(observed({ amountUnits: '10500001', confirmations: 25 }))
        .then([
          transferDetected({ amountUnits: '10500001', confirmations: 25, detectedAt: at(6) }),
          settled('PaymentOverpaid', { receivedUnits: '10500001', confirmedAt: at(6) }),
        ])
    })

    it('is underpaid when a final transfer pays less', () => {
      given([paymentCreated()])
        .when(observed({ amountUnits: '10499999', confirmations: required }))
        .then([
          transferDetected({ amountUnits: '10499999', confirmations: required, detectedAt: at(6) }),
          settled('PaymentUnderpaid', { receivedUnits: '10499999', confirmedAt: at(6) }),
        ])
    })

    it('records more confirmations of a counted transfer', () => {
      given([paymentCreated(), transferDetected()])
        .when(observed({ confirmations: 7, now: at(7) }))
        .then([confirmationsUpdated({ confirmations: 7, updatedAt: at(7) })])
    })

    it('settles when the counted transfer reaches the required confirmations', () => {
      given([paymentCreated(), transferDetected({ confirmations: 19 })])
        .when(observed({ confirmations: required, now: at(7) }))
        .then([
          confirmationsUpdated({ confirmations: required, updatedAt: at(7) }),
          settled('PaymentConfirmed', { confirmedAt: at(7) }),
        ])
    })

    it('settles a transfer in a block before expiresAt that becomes final after it', () => {
      given([paymentCreated(), transferDetected({ blockTime: at(29.9) })])
        .when(observed({ blockTime: at(29.9), confirmations: required, now: at(31) }))
        .then([
          confirmationsUpdated({ confirmations: required, updatedAt: at(31) }),
          settled('PaymentConfirmed', { confirmedAt: at(31) }),
        ])
    })

    it("settles on the watcher's word that the transfer is final, not on its count", () => {
      // docs/chains.md, "Confirmations and finality": the count is what the merchant sees
      given([paymentCreated(), transferDetected({ confirmations: required })].map(notFinal))
        .when(observed({ confirmations: required, final: true, now: at(7) }))
        .then([
          confirmationsUpdated({ confirmations: required, final: true, updatedAt: at(7) }),
          settled('PaymentConfirmed', { confirmedAt: at(7) }),
        ])
    })

    it('does not settle a transfer at the required count that is not final yet', () => {
      given([paymentCreated(), transferDetected({ confirmations: 3 })])
        .when(observed({ confirmations: required, final: false, now: at(7) }))
        .then([confirmationsUpdated({ confirmations: required, final: false, updatedAt: at(7) })])
    })

    it('keeps a transfer final and its count once reported so', () => {
      given([paymentCreated(), transferDetected({ confirmations: 2, final: true })])
        .when(observed({ confirmations: 1, final: false }))
        .thenNothingHappens()
    })

    it('reads final from the count at the requirement from a watcher that does not say (before v1.2)', () => {
      const { final: _final, ...legacy } = observed({ confirmations: required, now: at(7) }).data
      given([paymentCreated(), transferDetected({ confirmations: 19 })])
        .when({ type: 'RecordTransferObservation', data: legacy })
        .then([
          confirmationsUpdated({ confirmations: required, final: true, updatedAt: at(7) }),
          settled('PaymentConfirmed', { confirmedAt: at(7) }),
        ])
    })

    it('reads a transfer recorded before TransferDetected v2 (final null) as final at the requirement', () => {
      given([
        paymentCreated(),
        transferDetected({ amountUnits: '5000000', confirmations: required, final: null }),
      ])
        .when(observed({ txHash: 'tx-2', amountUnits: '5500000', confirmations: required, final: true }))
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '5500000',
            confirmations: required,
            final: true,
            detectedAt: at(6),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-2', confirmedAt: at(6) }),
        ])
    })

    it('ignores a report with the same or fewer confirmations', () => {
      given([paymentCreated(), transferDetected({ confirmations: 5 })])
        .when(observed({ confirmations: 5 }))
        .thenNothingHappens()
      given([paymentCreated(), transferDetected({ confirmations: 5 })])
        .when(observed({ confirmations: 4 }))
        .thenNothingHappens()
    })

    it('waits until every counted transfer is final, then settles on the total', () => {
      const first = transferDetected({ amountUnits: '5000000', confirmations: required })
      const second = transferDetected({
        txHash: 'tx-2',
        amountUnits: '5500000',
        blockHeight: 110,
        confirmations: 2,
      })
      given([paymentCreated(), first])
        .when(observed({ txHash: 'tx-2', amountUnits: '5500000', blockHeight: 110, confirmations: 2 }))
        .then([{ ...second, data: { ...second.data, detectedAt: at(6) } } as PaymentEvent])
      given([paymentCreated(), first, second])
        .when(observed({ txHash: 'tx-2', amountUnits: '5500000', blockHeight: 110, confirmations: required }))
        .then([
          {
            type: 'TransferConfirmationsUpdated',
            data: {
              paymentId,
              txHash: 'tx-2',
              transferIndex: 0,
              confirmations: required,
              final: true,
              updatedAt: at(6),
            },
          },
          settled('PaymentConfirmed', { txHash: 'tx-2', confirmedAt: at(6) }),
        ])
    })

    it('names the transfer in the highest block as txHash, whatever the detection order', () => {
      const later = transferDetected({
        txHash: 'tx-late-block',
        amountUnits: '5000000',
        blockHeight: 120,
        confirmations: required,
      })
      given([paymentCreated(), later])
        .when(
          observed({
            txHash: 'tx-early-block',
            amountUnits: '5500000',
            blockHeight: 90,
            confirmations: required,
          }),
        )
        .then([
          transferDetected({
            txHash: 'tx-early-block',
            amountUnits: '5500000',
            blockHeight: 90,
            confirmations: required,
            detectedAt: at(6),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-late-block', confirmedAt: at(6) }),
        ])
    })

    it('tells a second transfer of the same transaction apart by its index, and breaks a block tie by detection order', () => {
      given([paymentCreated(), transferDetected({ amountUnits: '5000000', confirmations: required })])
        .when(observed({ transferIndex: 1, amountUnits: '5500000', confirmations: required }))
        .then([
          transferDetected({
            transferIndex: 1,
            amountUnits: '5500000',
            confirmations: required,
            detectedAt: at(6),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-1', confirmedAt: at(6) }),
        ])
    })

    it('ignores a zero-value transfer', () => {
      given([paymentCreated()])
        .when(observed({ amountUnits: '0', confirmations: required }))
        .thenNothingHappens()
    })

    it('records a final transfer in a block at or after expiresAt as late funds', () => {
      given([paymentCreated()])
        .when(observed({ blockTime: at(30), confirmations: required, now: at(32) }))
        .then([lateFunds('pending', { blockTime: at(30), receivedAt: at(32) })])
    })

    it('waits for a late transfer to become final before recording it', () => {
      given([paymentCreated()])
        .when(observed({ blockTime: at(31), confirmations: 3 }))
        .thenNothingHappens()
      given([paymentCreated()])
        .when(observed({ blockTime: at(31), confirmations: required, final: false }))
        .thenNothingHappens()
    })

    it('ignores late funds it already recorded', () => {
      given([paymentCreated(), lateFunds('pending')])
        .when(observed({ blockTime: at(31), confirmations: 40 }))
        .thenNothingHappens()
    })
  })

  describe('when underpaid', () => {
    const underpaid = eventsFor('underpaid') // 10 of 10.5 received through tx-1

    it('confirms when a further final transfer before expiresAt completes the amount', () => {
      given(underpaid)
        .when(
          observed({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockHeight: 130,
            blockTime: at(20),
            confirmations: required,
            now: at(21),
          }),
        )
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockHeight: 130,
            blockTime: at(20),
            confirmations: required,
            detectedAt: at(21),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-2', receivedUnits: '10500000', confirmedAt: at(21) }),
        ])
    })

    it('becomes overpaid when a further transfer pays more than the rest', () => {
      given(underpaid)
        .when(observed({ txHash: 'tx-2', amountUnits: '600000', blockHeight: 130, confirmations: required }))
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '600000',
            blockHeight: 130,
            confirmations: required,
            detectedAt: at(6),
          }),
          settled('PaymentOverpaid', { txHash: 'tx-2', receivedUnits: '10600000', confirmedAt: at(6) }),
        ])
    })

    it('stays underpaid, without a second event, while the total is still short', () => {
      given(underpaid)
        .when(observed({ txHash: 'tx-2', amountUnits: '100000', blockHeight: 130, confirmations: required }))
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '100000',
            blockHeight: 130,
            confirmations: required,
            detectedAt: at(6),
          }),
        ])
    })

    it('waits for a further transfer to become final', () => {
      given(underpaid)
        .when(observed({ txHash: 'tx-2', amountUnits: '500000', blockHeight: 130, confirmations: 1 }))
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockHeight: 130,
            confirmations: 1,
            detectedAt: at(6),
          }),
        ])
    })

    it('records a transfer after expiresAt as late funds: underpaid is then final', () => {
      given(underpaid)
        .when(
          observed({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockTime: at(30),
            confirmations: required,
            now: at(35),
          }),
        )
        .then([
          lateFunds('underpaid', {
            txHash: 'tx-2',
            amountUnits: '500000',
            blockTime: at(30),
            receivedAt: at(35),
          }),
        ])
    })
  })

  describe.each<PaymentStatus>(['confirmed', 'overpaid'])('when %s', (status) => {
    it('records a new final transfer as late funds', () => {
      given(eventsFor(status))
        .when(observed({ txHash: 'tx-2', blockTime: at(10), confirmations: required, now: at(12) }))
        .then([lateFunds(status, { txHash: 'tx-2', blockTime: at(10), receivedAt: at(12) })])
    })

    it('records further confirmations of the counted transfer without settling again', () => {
      given(eventsFor(status))
        .when(observed({ confirmations: 40, now: at(20) }))
        .then([confirmationsUpdated({ confirmations: 40, updatedAt: at(20) })])
    })
  })

  describe.each<PaymentStatus>(['expired', 'canceled', 'failed'])('when %s', (status) => {
    it('records a final transfer as late funds with the status at arrival', () => {
      given(eventsFor(status))
        .when(observed({ txHash: 'tx-9', blockTime: at(2), confirmations: required, now: at(40) }))
        .then([lateFunds(status, { txHash: 'tx-9', blockTime: at(2), receivedAt: at(40) })])
    })

    it('waits for late funds to become final', () => {
      given(eventsFor(status))
        .when(observed({ txHash: 'tx-9', confirmations: required - 1 }))
        .thenNothingHappens()
    })

    it('records late funds once', () => {
      given([...eventsFor(status), lateFunds(status, { txHash: 'tx-9' })])
        .when(observed({ txHash: 'tx-9', confirmations: 50 }))
        .thenNothingHappens()
    })
  })
})

describe('RecordTransferObservation: a withdrawn transfer the chain includes again', () => {
  // tx-1 (5 USDT) was dropped by a reorg; tx-2 (5.5 USDT) still counts.
  const half = '5000000'
  const rest = '5500000'
  const afterDrop = [
    paymentCreated(),
    transferDetected({ amountUnits: half }),
    transferDetected({ txHash: 'tx-2', amountUnits: rest, blockHeight: 101 }),
    withdrawn(),
  ]
  const reincluded = (data: Parameters<typeof observed>[0] = {}) =>
    observed({ amountUnits: half, blockHeight: 103, blockTime: at(7), now: at(9), ...data })

  describe('when pending', () => {
    it('counts it again with its new block', () => {
      given(afterDrop)
        .when(reincluded())
        .then([
          transferDetected({ amountUnits: half, blockHeight: 103, blockTime: at(7), detectedAt: at(9) }),
        ])
    })

    it('counts it again final at once and settles on the total', () => {
      const tx2Final = confirmationsUpdated({ txHash: 'tx-2', confirmations: required })
      given([...afterDrop, tx2Final])
        .when(reincluded({ confirmations: required }))
        .then([
          transferDetected({
            amountUnits: half,
            blockHeight: 103,
            blockTime: at(7),
            confirmations: required,
            detectedAt: at(9),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-1', receivedUnits: '10500000', confirmedAt: at(9) }),
        ])
    })

    it('settles once the counted-again transfer becomes final', () => {
      const counted = transferDetected({ amountUnits: half, blockHeight: 103, blockTime: at(7) })
      const tx2Final = confirmationsUpdated({ txHash: 'tx-2', confirmations: required })
      given([...afterDrop, counted, tx2Final])
        .when(reincluded({ confirmations: required, now: at(12) }))
        .then([
          confirmationsUpdated({ confirmations: required, updatedAt: at(12) }),
          settled('PaymentConfirmed', { txHash: 'tx-1', receivedUnits: '10500000', confirmedAt: at(12) }),
        ])
    })

    it('counts it again when its new block is at or after expiresAt: it came in time', () => {
      given(afterDrop)
        .when(reincluded({ blockTime: at(31), now: at(33) }))
        .then([
          transferDetected({ amountUnits: half, blockHeight: 103, blockTime: at(31), detectedAt: at(33) }),
        ])
    })
  })

  describe('when underpaid', () => {
    it('counts it again and confirms when it completes the amount', () => {
      given([
        ...eventsFor('underpaid'),
        transferDetected({ txHash: 'tx-2', amountUnits: '500000', blockHeight: 130 }),
        withdrawn({ txHash: 'tx-2' }),
      ])
        .when(observed({ txHash: 'tx-2', amountUnits: '500000', blockHeight: 140, confirmations: required }))
        .then([
          transferDetected({
            txHash: 'tx-2',
            amountUnits: '500000',
            blockHeight: 140,
            confirmations: required,
            detectedAt: at(6),
          }),
          settled('PaymentConfirmed', { txHash: 'tx-2', receivedUnits: '10500000', confirmedAt: at(6) }),
        ])
    })
  })

  describe('when failed because it was dropped', () => {
    const failed = eventsFor('failed') // tx-1 counted, in doubt, dropped, payment failed

    it('waits for it to become final', () => {
      given(failed)
        .when(observed({ blockHeight: 102 }))
        .thenNothingHappens()
    })

    it('records it as late funds once final; the payment stays failed', () => {
      given(failed)
        .when(observed({ blockHeight: 102, confirmations: required, now: at(12) }))
        .then([lateFunds('failed', { blockHeight: 102, blockTime: at(5), receivedAt: at(12) })])
    })

    it('records it once', () => {
      given([...failed, lateFunds('failed', { blockHeight: 102, blockTime: at(5) })])
        .when(observed({ blockHeight: 102, confirmations: 40 }))
        .thenNothingHappens()
    })
  })

  describe('when settled without it', () => {
    it('records it as late funds once final', () => {
      const confirmedByTx2 = [
        paymentCreated(),
        transferDetected({ amountUnits: half }),
        transferDetected({
          txHash: 'tx-2',
          amountUnits: '10500000',
          blockHeight: 101,
          confirmations: required,
        }),
        withdrawn(),
        settled('PaymentConfirmed', { txHash: 'tx-2', confirmedAt: at(8) }),
      ]
      given(confirmedByTx2)
        .when(reincluded({ confirmations: required }))
        .then([
          lateFunds('confirmed', {
            amountUnits: half,
            blockHeight: 103,
            blockTime: at(7),
            receivedAt: at(9),
          }),
        ])
    })
  })
})

describe('RecordTransferObservation: in doubt (docs/api.md, "Transfers the chain takes back")', () => {
  const inDoubt = (data: Parameters<typeof observed>[0] = {}) =>
    observed({ status: 'in_doubt', now: at(8), ...data })

  describe('when no payment exists', () => {
    it('is not found', () => {
      given([]).when(inDoubt()).thenThrows('PAYMENT_NOT_FOUND')
    })
  })

  describe('when pending', () => {
    it('leaves its only counted transfer out of the total and keeps waiting: no failure', () => {
      given([paymentCreated(), transferDetected()]).when(inDoubt()).then([withdrawn()])
    })

    it('does not expire while the transfer is in doubt', () => {
      given([paymentCreated(), transferDetected(), withdrawn()])
        .when({ type: 'ExpirePayment', data: { paymentId, now: at(40), chainTime: at(40) } })
        .thenNothingHappens()
    })

    it('does not settle on what remains while one is in doubt', () => {
      given([
        paymentCreated(),
        transferDetected({ amountUnits: '500000' }),
        transferDetected({
          txHash: 'tx-2',
          amountUnits: '10500000',
          blockHeight: 101,
          confirmations: required,
        }),
      ])
        .when(inDoubt())
        .then([withdrawn()])
    })

    it('ignores a transfer it never counted, one already in doubt, and late funds', () => {
      given([paymentCreated(), transferDetected()])
        .when(inDoubt({ txHash: 'tx-unknown' }))
        .thenNothingHappens()
      given([paymentCreated(), transferDetected(), withdrawn()]).when(inDoubt()).thenNothingHappens()
      given([paymentCreated(), lateFunds('pending')])
        .when(inDoubt())
        .thenNothingHappens()
    })

    it('counts it again, once, when the chain includes it again, even in a block after expiresAt', () => {
      given([paymentCreated(), transferDetected(), withdrawn()])
        .when(observed({ blockHeight: 140, blockTime: at(31), confirmations: required, now: at(33) }))
        .then([
          transferDetected({
            blockHeight: 140,
            blockTime: at(31),
            confirmations: required,
            detectedAt: at(33),
          }),
          settled('PaymentConfirmed', { confirmedAt: at(33) }),
        ])
    })
  })

  describe('when underpaid', () => {
    it('takes a further transfer out of the total and stays underpaid', () => {
      given([
        ...eventsFor('underpaid'),
        transferDetected({ txHash: 'tx-2', amountUnits: '100000', blockHeight: 130 }),
      ])
        .when(inDoubt({ txHash: 'tx-2' }))
        .then([withdrawn({ txHash: 'tx-2' })])
    })
  })

  describe.each<PaymentStatus>(['confirmed', 'overpaid', 'expired', 'canceled', 'failed'])(
    'when %s',
    (status) => {
      it('ignores it', () => {
        given(eventsFor(status)).when(inDoubt()).thenNothingHappens()
      })
    },
  )
})

describe('RecordTransferObservation: dropped for good', () => {
  const drop = (data: Parameters<typeof observed>[0] = {}) =>
    observed({ status: 'dropped', dropReason: 'EXPIRED', now: at(20), ...data })
  const inDoubtOnly = [paymentCreated(), transferDetected(), withdrawn()]

  describe('when pending before expiresAt', () => {
    it('is as if the transfer never came: pending with nothing seen', () => {
      given(inDoubtOnly)
        .when(drop())
        .then([dropped({ droppedAt: at(20) })])
      const state = [...inDoubtOnly, dropped({ droppedAt: at(20) })].reduce(
        evolvePayment,
        initialPaymentState,
      )
      expect(state).toMatchObject({ status: 'pending', transfers: [], receivedUnits: null, txHash: null })
    })

    it('then expires at expiresAt like a payment that saw nothing', () => {
      given([...inDoubtOnly, dropped({ droppedAt: at(20) })])
        .when({ type: 'ExpirePayment', data: { paymentId, now: at(30), chainTime: at(30) } })
        .then([{ type: 'PaymentExpired', data: { paymentId, expiredAt: at(30) } }])
    })

    it('can still be paid', () => {
      given([...inDoubtOnly, dropped({ droppedAt: at(20) })])
        .when(observed({ txHash: 'tx-2', blockTime: at(21), now: at(22) }))
        .then([transferDetected({ txHash: 'tx-2', blockTime: at(21), detectedAt: at(22) })])
    })

    it('keeps the reason the chain watcher gives', () => {
      given([paymentCreated(), transferDetected()])
        .when(drop({ dropReason: 'REVERTED' }))
        .then([dropped({ reason: 'REVERTED', droppedAt: at(20) })])
    })
  })

  describe('when pending after expiresAt', () => {
    it('fails the payment, saying that the chain dropped the transfer', () => {
      given(inDoubtOnly)
        .when(drop({ now: at(32) }))
        .then([
          dropped(),
          { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_DROPPED', failedAt: at(32) } },
        ])
    })

    it('settles on the other transfers when they are final', () => {
      given([
        paymentCreated(),
        transferDetected({ amountUnits: '500000' }),
        transferDetected({
          txHash: 'tx-2',
          amountUnits: '10500000',
          blockHeight: 101,
          confirmations: required,
        }),
        withdrawn(),
      ])
        .when(drop({ now: at(32) }))
        .then([dropped(), settled('PaymentConfirmed', { txHash: 'tx-2', confirmedAt: at(32) })])
    })
  })

  describe('when underpaid', () => {
    it('drops a further transfer and stays underpaid without a second event', () => {
      given([
        ...eventsFor('underpaid'),
        transferDetected({ txHash: 'tx-2', amountUnits: '100000', blockHeight: 130 }),
        withdrawn({ txHash: 'tx-2' }),
      ])
        .when(drop({ txHash: 'tx-2', now: at(32) }))
        .then([dropped({ txHash: 'tx-2' })])
    })
  })

  it('ignores a transfer it never counted', () => {
    given([paymentCreated(), transferDetected()])
      .when(drop({ txHash: 'tx-unknown' }))
      .thenNothingHappens()
  })

  describe.each<PaymentStatus>(['confirmed', 'overpaid', 'expired', 'canceled', 'failed'])(
    'when %s',
    (status) => {
      it('ignores it', () => {
        given(eventsFor(status)).when(drop()).thenNothingHappens()
      })
    },
  )
})

describe('RecordForeignFunds (docs/api.md, "Foreign funds")', () => {
  describe.each<PaymentStatus>(['pending', 'confirmed', 'underpaid', 'expired', 'canceled', 'failed'])(
    'when %s',
    (status) => {
      it('records final funds of another asset once; the status does not change', () => {
        given(eventsFor(status)).when(foreignObserved()).then([foreignFunds()])
        given([...eventsFor(status), foreignFunds()])
          .when(foreignObserved({ confirmations: 40 }))
          .thenNothingHappens()
      })
    },
  )

  it('waits until they are final', () => {
    given([paymentCreated()])
      .when(foreignObserved({ confirmations: required - 1 }))
      .thenNothingHappens()
    given([paymentCreated()])
      .when(foreignObserved({ confirmations: required, final: false }))
      .thenNothingHappens()
  })

  it('ignores zero-value transfers', () => {
    given([paymentCreated()])
      .when(foreignObserved({ amountUnits: '0' }))
      .thenNothingHappens()
  })

  it('is not found without a payment', () => {
    given([]).when(foreignObserved()).thenThrows('PAYMENT_NOT_FOUND')
  })
})

describe('RecordSweep (docs/api.md, "Balances and sweeps")', () => {
  describe.each<PaymentStatus>(['confirmed', 'underpaid', 'overpaid'])('when %s', (status) => {
    it('records a sweep of what the address received, with its fee in the native coin', () => {
      const received = status === 'underpaid' ? '10' : status === 'overpaid' ? '11' : '10.5'
      const units = status === 'underpaid' ? '10000000' : status === 'overpaid' ? '11000000' : '10500000'
      given(eventsFor(status))
        .when(sweepRecorded({ amount: received }))
        .then([fundsSwept({ amountUnits: units })])
    })
  })

  describe('when the payment received funds', () => {
    it('records the same sweep once: the same transaction again changes nothing', () => {
      given([...eventsFor('confirmed'), fundsSwept()])
        .when(sweepRecorded())
        .thenNothingHappens()
    })

    it('refuses the same transaction and currency recorded with other figures', () => {
      given([...eventsFor('confirmed'), fundsSwept({ amountUnits: '5000000' })])
        .when(sweepRecorded({ amount: '5', fee: '1' }))
        .thenThrows('SWEEP_TX_REUSED', /^txHash: .*USDT/)
    })

    it('sweeps in parts, never more than what remains unswept', () => {
      const firstHalf = fundsSwept({ txHash: 'tx-a', amountUnits: '5000000' })
      given([...eventsFor('confirmed'), firstHalf])
        .when(sweepRecorded({ txHash: 'tx-b', amount: '5.5' }))
        .then([fundsSwept({ txHash: 'tx-b', amountUnits: '5500000' })])
      given([...eventsFor('confirmed'), firstHalf])
        .when(sweepRecorded({ txHash: 'tx-b', amount: '5.500001' }))
        .thenThrows(
          'SWEEP_EXCEEDS_UNSWEPT',
          'amount: 5.500001 USDT is more than the 5.5 USDT received and not swept yet',
        )
    })

    it('sweeps foreign funds and late funds as what the address received', () => {
      given([...eventsFor('confirmed'), foreignFunds()])
        .when(sweepRecorded({ txHash: 'tx-trx-sweep', currency: 'TRX', amount: '7', fee: '0.268' }))
        .then([
          fundsSwept({
            txHash: 'tx-trx-sweep',
            currency: 'TRX',
            amountUnits: '7000000',
            feeUnits: '268000',
          }),
        ])
      given([...eventsFor('expired'), lateFunds('expired')])
        .when(sweepRecorded())
        .then([fundsSwept()])
    })

    it('records one transaction moving two currencies as two sweeps', () => {
      given([...eventsFor('confirmed'), foreignFunds(), fundsSwept()])
        .when(sweepRecorded({ currency: 'TRX', amount: '7', fee: '0' }))
        .then([fundsSwept({ currency: 'TRX', amountUnits: '7000000', feeUnits: '0' })])
    })
  })

  describe('when the address holds nothing final', () => {
    it('refuses a sweep of a transfer still awaiting its confirmations', () => {
      given([paymentCreated(), transferDetected({ confirmations: required - 1 })])
        .when(sweepRecorded())
        .thenThrows(
          'SWEEP_EXCEEDS_UNSWEPT',
          "currency: the payment's address received no final USDT to sweep",
        )
    })

    it('refuses a currency the address never received', () => {
      given(eventsFor('confirmed'))
        .when(sweepRecorded({ currency: 'USDC' }))
        .thenThrows('SWEEP_EXCEEDS_UNSWEPT', /received no final USDC/)
    })

    it('is not found without a payment', () => {
      given([]).when(sweepRecorded()).thenThrows('PAYMENT_NOT_FOUND')
    })
  })

  describe('refuses bad input (VALIDATION_ERROR), naming the field', () => {
    it.each([
      [{ amount: '0' }, /^amount: must be more than 0/],
      [{ amount: '-1' }, /^amount: expected a decimal amount/],
      [{ amount: '1.0000001' }, /^amount: at most 6 decimal places/],
      [{ fee: 'free' }, /^fee: expected a decimal amount/],
      [{ feeCurrency: 'USDT' }, /^feeCurrency: expected TRX/],
      [{ txHash: '' }, /^txHash: expected 1 to 128 characters/],
      [{ txHash: 'a b' }, /^txHash: /],
      [{ treasury: 'T'.repeat(129) }, /^treasury: expected 1 to 128 characters/],
    ])('%o', (input, message) => {
      given(eventsFor('confirmed')).when(sweepRecorded(input)).thenThrows('VALIDATION_ERROR', message)
    })
  })
})

describe('CreatePayment with addressMode PER_USER (decisions.md section 22)', () => {
  it("records the mode and the customer, on the customer's deposit address the command brings", () => {
    const receivingAddress = {
      address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
      tokenAccount: null,
      derivationPath: "m/44'/195'/0'/2/3",
      walletId: 'operator',
    }
    given([])
      .when(
        createPayment({
          request: {
            amount: '10.5',
            currency: 'USDT',
            network: 'TRON',
            addressMode: 'PER_USER',
            merchantUserId: 'customer-8841',
          },
          receivingAddress,
        }),
      )
      .then([
        paymentCreated({
          address: receivingAddress.address,
          derivationPath: receivingAddress.derivationPath,
          addressMode: 'PER_USER',
          merchantUserId: 'customer-8841',
        }),
      ])
  })
})

//////// Fixtures

function createPayment(
  data: Partial<Extract<PaymentCommand, { type: 'CreatePayment' }>['data']> = {},
): PaymentCommand {
  return {
    type: 'CreatePayment',
    data: {
      paymentId,
      merchantId,
      request: { amount: '10.5', currency: 'USDT', network: 'TRON' },
      requestFingerprint: fingerprint,
      asset: usdtOnTron,
      feePolicy: defaultFeePolicy,
      receivingAddress: {
        address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
        tokenAccount: null,
        derivationPath: "m/44'/195'/0'/0/7",
        walletId: 'operator',
      },
      requiredConfirmations: required,
      now: at(0),
      ...data,
    },
  }
}

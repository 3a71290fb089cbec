// One function per payment command; decidePayment in payment.ts dispatches to them. The lifecycle
// rules are docs/api.md, "Lifecycle".

import { createRequestLimits, validateFiatAmountUnits } from './create-request.js'
import { DomainError } from './errors.js'
import { computeFee, fixedFeeUnitsOf } from './fees.js'
import { formatUnits, toUnits } from './money.js'
import { paymentBalances } from './payment-balances.js'
import {
  activeTransfers,
  evolvePayment,
  isFinalTransfer,
  latestTransfer,
  sameTransfer,
  totalUnits,
} from './payment-evolve.js'
import type {
  OpenPayment,
  PaymentCommand,
  PaymentEvent,
  PaymentState,
  PaymentStatus,
} from './payment-types.js'
import { fiatAmountUnits, type LockedRate, withinUnderpaymentTolerance } from './rates.js'
import { decideSweepRecord } from './sweep-record.js'

type CommandData<Type extends PaymentCommand['type']> = Extract<PaymentCommand, { type: Type }>['data']
type TransferObservation = CommandData<'RecordTransferObservation'>
type ForeignFundsObservation = CommandData<'RecordForeignFunds'>
type SweepRecord = CommandData<'RecordSweep'>

export function createPayment(command: CommandData<'CreatePayment'>, state: PaymentState): PaymentEvent[] {
  if (state.status !== 'none') {
    const created = state.created
    const replay =
      created.merchantId === command.merchantId && created.requestFingerprint === command.requestFingerprint
    if (replay) return []
    throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'idempotencyKey: already used with a different request')
  }
  const { request, asset, receivingAddress, now } = command
  const priced = createdAmount(command)
  const { amountUnits } = priced
  const { feeUnits, netUnits } = computeFee(amountUnits, asset, command.feePolicy)
  const minutes = request.expiresInMinutes ?? createRequestLimits.expiresInMinutes.default
  return [
    {
      type: 'PaymentCreated',
      data: {
        paymentId: command.paymentId,
        merchantId: command.merchantId,
        idempotencyKey: request.idempotencyKey ?? null,
        requestFingerprint: command.requestFingerprint,
        network: asset.network,
        currency: asset.currency,
        tokenStandard: asset.tokenStandard,
        decimals: asset.decimals,
        amount: priced.amount,
        amountUnits: amountUnits.toString(),
        feeUnits: feeUnits.toString(),
        netUnits: netUnits.toString(),
        feeBps: command.feePolicy.feeBps,
        fixedFeeUnits: fixedFeeUnitsOf(asset, command.feePolicy).toString(),
        address: receivingAddress.address,
        tokenAccount: receivingAddress.tokenAccount,
        derivationPath: receivingAddress.derivationPath,
        walletId: receivingAddress.walletId,
        addressMode: request.addressMode === 'PER_USER' ? 'PER_USER' : 'PER_PAYMENT',
        // only on PER_USER payments: the events of other payments stay as they were
        ...(request.merchantUserId === undefined ? {} : { merchantUserId: request.merchantUserId }),
        requiredConfirmations: command.requiredConfirmations,
        description: request.description ?? null,
        metadata: { ...request.metadata },
        callbackUrl: request.callbackUrl ?? null,
        successRedirectUrl: request.successRedirectUrl ?? null,
        cancelRedirectUrl: request.cancelRedirectUrl ?? null,
        createdAt: now,
        expiresAt: command.invoice?.expiresAt ?? new Date(Date.parse(now) + minutes * 60_000).toISOString(),
        priceAmount: request.priceAmount ?? null,
        priceCurrency: request.priceCurrency ?? null,
        rate: priced.rate,
        underpaymentTolerancePercent: command.underpaymentTolerancePercent ?? '0',
        ...(command.invoice === undefined ? {} : { invoiceId: command.invoice.invoiceId }),
      },
    },
  ]
}

/**
 * The amount as sent, or, for a price in fiat, priceAmount / rate rounded up to the asset's
 * decimals at the rate that came with the command (docs/api.md, "Prices in fiat"), written canonical.
 */
function createdAmount(command: CommandData<'CreatePayment'>): {
  amount: string
  amountUnits: bigint
  rate: LockedRate | null
} {
  const { request, asset, rate } = command
  if (request.priceAmount === undefined) {
    // validated (validateCreatePaymentRequest): the amount is a positive number of the asset's units
    const amount = request.amount as string
    return { amount, amountUnits: toUnits(amount, asset.decimals), rate: null }
  }
  if (rate === undefined) {
    throw new DomainError(
      'RATE_UNAVAILABLE',
      `no rate of ${asset.currency} in ${request.priceCurrency} to price the payment with; try again shortly`,
    )
  }
  const amountUnits = fiatAmountUnits(request.priceAmount, rate.value, asset.decimals)
  validateFiatAmountUnits(amountUnits, asset)
  const locked = { value: rate.value, sources: [...rate.sources], at: rate.at }
  return { amount: formatUnits(amountUnits, asset.decimals), amountUnits, rate: locked }
}

export function cancelPayment(command: CommandData<'CancelPayment'>, state: PaymentState): PaymentEvent[] {
  if (state.status === 'none' || state.created.merchantId !== command.merchantId) {
    throw new DomainError('PAYMENT_NOT_FOUND', `payment ${command.paymentId} not found`)
  }
  if (state.status === 'canceled') return []
  if (isCancelable(state)) {
    return [
      {
        type: 'PaymentCanceled',
        data: { paymentId: state.created.paymentId, canceledAt: command.now, canceledBy: command.canceledBy },
      },
    ]
  }
  const why = state.status === 'pending' ? 'pending with a transfer already seen' : state.status
  throw new DomainError(
    'PAYMENT_NOT_CANCELABLE',
    `payment is ${why}; only a pending payment with no transfer seen can be canceled`,
  )
}

/** what cancelPayment accepts: pending with no transfer seen, late or not (docs/api.md, "POST /payments/{paymentId}/cancel") */
export function isCancelable(payment: OpenPayment): boolean {
  const anythingSeen = payment.transfers.length > 0 || payment.lateTransfers.length > 0
  return payment.status === 'pending' && !anythingSeen
}

/**
 * Asked on a timer: a no-op unless the payment is really due, never an error. A pending payment with
 * no transfer expires; an underpaid one becomes final (docs/api.md, "Lifecycle").
 */
export function expirePayment(command: CommandData<'ExpirePayment'>, state: PaymentState): PaymentEvent[] {
  if (state.status === 'underpaid') return finalizeUnderpaid(command, state)
  if (state.status !== 'pending' || state.transfers.length > 0) return []
  if (!isDue(command, state)) return []
  return [{ type: 'PaymentExpired', data: { paymentId: state.created.paymentId, expiredAt: command.now } }]
}

/** An underpaid payment is final at expiresAt, once no counted transfer still awaits confirmations. */
function finalizeUnderpaid(command: CommandData<'ExpirePayment'>, payment: OpenPayment): PaymentEvent[] {
  if (payment.closedAt !== null || !isDue(command, payment)) return []
  const active = activeTransfers(payment.transfers)
  // a transfer not final yet may yet complete the amount
  if (active.some((transfer) => !transfer.final)) return []
  return [
    {
      type: 'PaymentUnderpaidFinalized',
      data: {
        paymentId: payment.created.paymentId,
        receivedUnits: totalUnits(active).toString(),
        finalizedAt: command.now,
      },
    },
  ]
}

/** expiresAt passed on the clock and on the chain: a transfer in a block before it may not have been scanned yet */
function isDue(command: CommandData<'ExpirePayment'>, payment: OpenPayment): boolean {
  const expiresAt = Date.parse(payment.created.expiresAt)
  return Date.parse(command.now) >= expiresAt && Date.parse(command.chainTime) >= expiresAt
}

export function recordTransferObservation(
  observation: TransferObservation,
  state: PaymentState,
): PaymentEvent[] {
  if (state.status === 'none') {
    throw new DomainError('PAYMENT_NOT_FOUND', `payment ${observation.paymentId} not found`)
  }
  switch (observation.status) {
    case 'seen':
      return recordSeen(observation, state)
    case 'in_doubt':
      return recordInDoubt(observation, state)
    case 'dropped':
      return recordDropped(observation, state)
    default: {
      const unknown: never = observation.status
      throw new DomainError('INTERNAL_ERROR', `unknown transfer observation status ${String(unknown)}`)
    }
  }
}

/**
 * Funds of another asset are recorded once, when final, whatever the payment's status; the status
 * does not change (docs/api.md, "Foreign funds").
 */
export function recordForeignFunds(
  observation: ForeignFundsObservation,
  state: PaymentState,
): PaymentEvent[] {
  if (state.status === 'none') {
    throw new DomainError('PAYMENT_NOT_FOUND', `payment ${observation.paymentId} not found`)
  }
  const { txHash, transferIndex, currency, decimals, amountUnits, blockHeight, blockTime, now } = observation
  if (state.foreignFunds.some((funds) => sameTransfer(funds, observation))) return []
  if (parseUnits(amountUnits) === 0n) return []
  if (!isFinalTransfer(observation, state.created)) return []
  return [
    {
      type: 'ForeignFundsReceived',
      data: {
        paymentId: state.created.paymentId,
        txHash,
        transferIndex,
        currency,
        decimals,
        amountUnits,
        blockHeight,
        blockTime,
        receivedAt: now,
      },
    },
  ]
}

/**
 * A sweep moved funds of the payment's address to the treasury (docs/api.md, "Balances and sweeps"):
 * recorded in any status, by the rule every sweep's record follows (sweep-record.ts).
 */
export function recordSweep(command: SweepRecord, state: PaymentState): PaymentEvent[] {
  if (state.status === 'none') {
    throw new DomainError('PAYMENT_NOT_FOUND', `payment ${command.paymentId} not found`)
  }
  const sweep = decideSweepRecord(command, {
    balance: paymentBalances(state).find((candidate) => candidate.currency === command.currency),
    recorded: state.sweeps,
    nothingReceived: `currency: the payment's address received no final ${command.currency} to sweep`,
  })
  if (sweep === null) return []
  const { paymentId, network, address } = state.created
  return [{ type: 'PaymentFundsSwept', data: { paymentId, network, address, ...sweep } }]
}

function recordSeen(observation: TransferObservation, payment: OpenPayment): PaymentEvent[] {
  const { txHash, transferIndex, amountUnits, blockHeight, blockTime, confirmations, now } = observation
  const paymentId = payment.created.paymentId
  const final = isFinalTransfer(observation, payment.created)
  if (payment.lateTransfers.some((late) => sameTransfer(late, observation))) return []
  const counted = payment.transfers.find((transfer) => sameTransfer(transfer, observation))
  if (counted && !counted.withdrawn) {
    // a count is what the merchant sees and only grows; final is the chain's word, said once
    const grew = confirmations > counted.confirmations
    const madeFinal = final && !counted.final
    if (!grew && !madeFinal) return []
    return withSettlement(payment, now, [
      {
        type: 'TransferConfirmationsUpdated',
        data: {
          paymentId,
          txHash,
          transferIndex,
          confirmations: Math.max(confirmations, counted.confirmations),
          final: counted.final || final,
          updatedAt: now,
        },
      },
    ])
  }
  // A zero-value transfer pays nothing; on TRON it is the usual address-poisoning spam.
  if (parseUnits(amountUnits) === 0n) return []
  const open = acceptsTransfers(payment.status) && payment.closedAt === null
  // A transfer in doubt that the chain includes again counts again, whatever its new block's time:
  // it came in time (docs/api.md, "Transfers the chain takes back"). Once the payment settled
  // without it, it is late funds.
  const inTime = counted !== undefined || Date.parse(blockTime) < Date.parse(payment.created.expiresAt)
  if (open && inTime) {
    return withSettlement(payment, now, [
      {
        type: 'TransferDetected',
        data: {
          paymentId,
          txHash,
          transferIndex,
          amountUnits,
          blockHeight,
          blockTime,
          confirmations,
          final,
          detectedAt: now,
        },
      },
    ])
  }
  // Late funds are reported once, when final; until then the watcher keeps observing them.
  if (!final) return []
  const statusAtArrival = payment.status
  return [
    {
      type: 'LateFundsReceived',
      data: {
        paymentId,
        txHash,
        transferIndex,
        amountUnits,
        blockHeight,
        blockTime,
        statusAtArrival,
        receivedAt: now,
      },
    },
  ]
}

/** in doubt: out of the total, the payment waits (and does not expire) until the chain decides */
function recordInDoubt(observation: TransferObservation, payment: OpenPayment): PaymentEvent[] {
  const { txHash, transferIndex, now } = observation
  const counted = payment.transfers.find((transfer) => sameTransfer(transfer, observation))
  if (!counted || counted.withdrawn || !acceptsTransfers(payment.status)) return []
  const paymentId = payment.created.paymentId
  return [
    {
      type: 'TransferWithdrawn',
      data: { paymentId, txHash, transferIndex, reason: 'DROPPED', withdrawnAt: now },
    },
  ]
}

/**
 * Dropped for good: as if it had never come. With nothing else counted the payment is pending with
 * nothing seen while expiresAt is ahead, and fails once it has passed.
 */
function recordDropped(observation: TransferObservation, payment: OpenPayment): PaymentEvent[] {
  const { txHash, transferIndex, now } = observation
  const counted = payment.transfers.find((transfer) => sameTransfer(transfer, observation))
  if (!counted || !acceptsTransfers(payment.status)) return []
  const paymentId = payment.created.paymentId
  const dropped: PaymentEvent = {
    type: 'TransferDropped',
    data: { paymentId, txHash, transferIndex, reason: observation.dropReason ?? 'EXPIRED', droppedAt: now },
  }
  const after = evolvePayment(payment, dropped)
  const pastExpiry = Date.parse(now) >= Date.parse(payment.created.expiresAt)
  if (after.status === 'pending' && after.transfers.length === 0 && pastExpiry) {
    return [
      dropped,
      { type: 'PaymentFailed', data: { paymentId, reason: 'TRANSFER_DROPPED', failedAt: now } },
    ]
  }
  return [dropped, ...settlement(after, now)]
}

function withSettlement(payment: OpenPayment, now: string, events: PaymentEvent[]): PaymentEvent[] {
  return [...events, ...settlement(events.reduce<PaymentState>(evolvePayment, payment), now)]
}

/**
 * Once every counted transfer is final (the chain watcher's word: docs/chains.md, "Confirmations
 * and finality"), and none is in doubt, the total against the expected amount settles the payment.
 */
function settlement(state: PaymentState, now: string): PaymentEvent[] {
  if (state.status !== 'pending' && state.status !== 'underpaid') return []
  const active = activeTransfers(state.transfers)
  if (active.length < state.transfers.length) return []
  const latest = latestTransfer(active)
  if (!latest || active.some((transfer) => !transfer.final)) return []
  const received = totalUnits(active)
  const expected = BigInt(state.created.amountUnits)
  // a shortfall within the merchant's tolerance confirms the payment (docs/api.md, "Underpayment tolerance")
  const tolerance = state.created.underpaymentTolerancePercent ?? '0'
  const type =
    received > expected
      ? 'PaymentOverpaid'
      : withinUnderpaymentTolerance(received, expected, tolerance)
        ? 'PaymentConfirmed'
        : 'PaymentUnderpaid'
  if (type === 'PaymentUnderpaid' && state.status === 'underpaid') return []
  const data = {
    paymentId: state.created.paymentId,
    receivedUnits: received.toString(),
    txHash: latest.txHash,
    confirmedAt: now,
  }
  return [{ type, data }]
}

function acceptsTransfers(status: PaymentStatus): boolean {
  return status === 'pending' || status === 'underpaid'
}

function parseUnits(text: string): bigint {
  if (!/^[0-9]+$/.test(text)) throw new RangeError('amountUnits must be a decimal integer string')
  return BigInt(text)
}

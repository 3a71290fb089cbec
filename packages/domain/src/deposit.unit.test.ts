import { describe, it } from 'vitest'
import {
  type DepositCommand,
  type DepositEvent,
  type DepositObservation,
  decideDeposit,
  depositIdOf,
  evolveDeposit,
  initialDepositState,
} from './deposit.js'
import { deciderSpecification } from './testing/decider-specification.js'

const given = deciderSpecification({
  decide: decideDeposit,
  evolve: evolveDeposit,
  initialState: initialDepositState,
})

const txHash = 'a1b2c3'
const depositId = depositIdOf('TRON', txHash, 0)
const now = '2026-11-28T12:00:00.000Z'

function observed(fields: Partial<DepositObservation> = {}, at = now): DepositCommand {
  return {
    type: 'RecordDepositObservation',
    data: {
      depositId,
      merchantId: 'merchant-1',
      merchantUserId: 'customer-8841',
      asset: { network: 'TRON', currency: 'USDT', decimals: 6 },
      address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
      feePolicy: { feeBps: 100, fixedFees: { 'TRON:USDT': '0.1' } },
      requiredConfirmations: 20,
      observation: {
        status: 'seen',
        dropReason: null,
        confirmations: 1,
        final: false,
        blockHeight: 100,
        blockTime: '2026-11-28T11:59:57.000Z',
        amountUnits: '25000000',
        txHash,
        transferIndex: 0,
        ...fields,
      },
      now: at,
    },
  }
}

const detected: DepositEvent = {
  type: 'DepositDetected',
  data: {
    depositId,
    merchantId: 'merchant-1',
    merchantUserId: 'customer-8841',
    network: 'TRON',
    currency: 'USDT',
    decimals: 6,
    address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
    txHash,
    transferIndex: 0,
    amountUnits: '25000000',
    // 1 % of 25 plus the fixed 0.1: 0.35
    feeUnits: '350000',
    netUnits: '24650000',
    feeBps: 100,
    fixedFeeUnits: '100000',
    blockHeight: 100,
    blockTime: '2026-11-28T11:59:57.000Z',
    confirmations: 1,
    requiredConfirmations: 20,
    detectedAt: now,
  },
}
const later = '2026-11-28T12:01:00.000Z'

describe('deposit decider (decisions.md sections 22 and 11)', () => {
  it('given nothing, when a transfer is seen, then it is detected with fee and net under the merchant policy', () => {
    given([]).when(observed()).then([detected])
  })

  it('given nothing, when a transfer is seen already final, then it is detected and confirmed at once', () => {
    const final = observed({ confirmations: 20, final: true })
    given([])
      .when(final)
      .then([
        { ...detected, data: { ...detected.data, confirmations: 20 } },
        { type: 'DepositConfirmed', data: { confirmations: 20, confirmedAt: now } },
      ])
  })

  it('given nothing, when a transfer is first heard of in doubt or dropped, then nothing is recorded', () => {
    given([])
      .when(observed({ status: 'in_doubt' }))
      .thenNothingHappens()
    given([])
      .when(observed({ status: 'dropped', dropReason: 'EXPIRED' }))
      .thenNothingHappens()
  })

  it('given a detected deposit, when more confirmations come, then they are recorded, and the same count again is nothing', () => {
    given([detected])
      .when(observed({ confirmations: 7 }, later))
      .then([
        { type: 'DepositConfirmationsUpdated', data: { confirmations: 7, blockHeight: 100, at: later } },
      ])
    given([detected])
      .when(observed({ confirmations: 1 }, later))
      .thenNothingHappens()
  })

  it('given a detected deposit, when final, then confirmed; a confirmed deposit takes nothing more', () => {
    const confirmed: DepositEvent = {
      type: 'DepositConfirmed',
      data: { confirmations: 20, confirmedAt: later },
    }
    given([detected])
      .when(observed({ confirmations: 20, final: true }, later))
      .then([confirmed])
    given([detected, confirmed])
      .when(observed({ status: 'in_doubt' }, later))
      .thenNothingHappens()
  })

  it('given a detected deposit the fork took, when it is in doubt, then in_doubt, and once only', () => {
    const inDoubt: DepositEvent = { type: 'DepositInDoubt', data: { at: later } }
    given([detected])
      .when(observed({ status: 'in_doubt' }, later))
      .then([inDoubt])
    given([detected, inDoubt])
      .when(observed({ status: 'in_doubt' }, later))
      .thenNothingHappens()
  })

  it('given a deposit in doubt, when the chain includes it again, then it is detected again, counted once', () => {
    const inDoubt: DepositEvent = { type: 'DepositInDoubt', data: { at: later } }
    given([detected, inDoubt])
      .when(observed({ confirmations: 2, blockHeight: 101 }, later))
      .then([{ type: 'DepositSeenAgain', data: { confirmations: 2, blockHeight: 101, at: later } }])
  })

  it('given a deposit in doubt, when the chain drops it, then dropped for good', () => {
    const inDoubt: DepositEvent = { type: 'DepositInDoubt', data: { at: later } }
    const dropped: DepositEvent = { type: 'DepositDropped', data: { reason: 'EXPIRED', at: later } }
    given([detected, inDoubt])
      .when(observed({ status: 'dropped', dropReason: 'EXPIRED' }, later))
      .then([dropped])
    given([detected, inDoubt, dropped])
      .when(observed({ confirmations: 3 }, later))
      .thenNothingHappens()
  })
})

describe('deposit sweeps (docs/treasury.md, "Customers\' deposit addresses in a plan")', () => {
  const confirmed: DepositEvent = {
    type: 'DepositConfirmed',
    data: { confirmations: 20, confirmedAt: later },
  }
  const sweptAt = '2026-11-28T13:00:00.000Z'
  function sweep(fields: Partial<Extract<DepositCommand, { type: 'RecordDepositSweep' }>['data']> = {}) {
    return {
      type: 'RecordDepositSweep' as const,
      data: {
        depositId,
        txHash: 'sweep-1',
        currency: 'USDT',
        amount: '25',
        fee: '13.4',
        feeCurrency: 'TRX',
        nativeAsset: { currency: 'TRX', decimals: 6 },
        treasury: 'TTreasury',
        now: sweptAt,
        ...fields,
      },
    }
  }
  const swept = (amount: string, amountUnits: string, txHash = 'sweep-1'): DepositEvent => ({
    type: 'DepositFundsSwept',
    data: {
      depositId,
      network: 'TRON',
      address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
      txHash,
      currency: 'USDT',
      decimals: 6,
      amountUnits,
      feeUnits: amount === '25' ? '13400000' : '0',
      feeCurrency: 'TRX',
      feeDecimals: 6,
      treasury: 'TTreasury',
      sweptAt,
    },
  })

  it('given a confirmed deposit, when a sweep of its amount is recorded, then its funds are swept; the same record again is nothing', () => {
    given([detected, confirmed])
      .when(sweep())
      .then([swept('25', '25000000')])
    given([detected, confirmed, swept('25', '25000000')])
      .when(sweep())
      .thenNothingHappens()
  })

  it('given a confirmed deposit partly swept, when more than the rest is recorded, then SWEEP_EXCEEDS_UNSWEPT; the rest is taken', () => {
    const first = swept('10', '10000000', 'sweep-0')
    given([detected, confirmed, first])
      .when(sweep({ txHash: 'sweep-2', amount: '15.000001', fee: '0' }))
      .thenThrows('SWEEP_EXCEEDS_UNSWEPT', /15 USDT received and not swept yet/)
    given([detected, confirmed, first])
      .when(sweep({ txHash: 'sweep-2', amount: '15', fee: '0' }))
      .then([swept('15', '15000000', 'sweep-2')])
  })

  it('given a deposit not confirmed, or another currency, when a sweep is recorded, then SWEEP_EXCEEDS_UNSWEPT; nothing at all: NOT_FOUND', () => {
    given([detected])
      .when(sweep())
      .thenThrows('SWEEP_EXCEEDS_UNSWEPT', /it is detected/)
    given([detected, confirmed])
      .when(sweep({ currency: 'TRX' }))
      .thenThrows('SWEEP_EXCEEDS_UNSWEPT', /no confirmed TRX/)
    given([]).when(sweep()).thenThrows('NOT_FOUND')
  })

  it('given a recorded sweep, when the same transaction comes with other figures, then SWEEP_TX_REUSED; a fee not in the native coin is refused', () => {
    given([detected, confirmed, swept('25', '25000000')])
      .when(sweep({ fee: '1' }))
      .thenThrows('SWEEP_TX_REUSED')
    given([detected, confirmed])
      .when(sweep({ feeCurrency: 'USDT' }))
      .thenThrows('VALIDATION_ERROR', /feeCurrency: expected TRX/)
  })
})

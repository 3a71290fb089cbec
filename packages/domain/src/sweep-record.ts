// The operator's record of a sweep (docs/api.md, "Balances and sweeps"), one rule for every source of
// funds a sweep takes from: a payment's address (payment-decide.ts) and a customer's deposit
// (deposit.ts). Once per transaction and currency; the same record again changes nothing, another
// record under the same transaction and currency is refused; never more than what the source
// received of that currency and no sweep has taken yet.

import { DomainError } from './errors.js'
import { formatUnits, fractionDigits, isDecimalAmount, toUnits } from './money.js'
import type { Sweep } from './payment-types.js'

/** a sweep as the admin API takes it: amounts in whole units, as decimal strings */
export interface SweepRecordInput {
  txHash: string
  currency: string
  amount: string
  fee: string
  feeCurrency: string
  /** the native coin of the source's network, in which fees are paid; null when the registry has none */
  nativeAsset: { currency: string; decimals: number } | null
  treasury: string
  now: string
}

/** bounds of the free-text fields of a sweep: a transaction id or an address of any chain fits */
const sweepLimits = { txHashMaxLength: 128, treasuryMaxLength: 128 } as const

/**
 * The sweep to record, or null when the same one is recorded already. `balance` is what the source
 * received of the currency, final, and what sweeps took of it (undefined: it received none);
 * `nothingReceived` says so in the source's words.
 */
export function decideSweepRecord(
  command: SweepRecordInput,
  source: {
    balance: { decimals: number; receivedUnits: bigint; sweptUnits: bigint } | undefined
    recorded: readonly Sweep[]
    nothingReceived: string
  },
): Sweep | null {
  const txHash = boundedText('txHash', command.txHash, sweepLimits.txHashMaxLength)
  const treasury = boundedText('treasury', command.treasury, sweepLimits.treasuryMaxLength)
  const { currency, nativeAsset } = command
  if (nativeAsset === null || command.feeCurrency !== nativeAsset.currency) {
    const expected =
      nativeAsset === null ? 'the network has no native coin in the registry' : nativeAsset.currency
    throw new DomainError('VALIDATION_ERROR', `feeCurrency: expected ${expected}`)
  }
  const { balance } = source
  if (balance === undefined) throw new DomainError('SWEEP_EXCEEDS_UNSWEPT', source.nothingReceived)
  const { decimals } = balance
  const amountUnits = amountOf('amount', command.amount, decimals)
  if (amountUnits === 0n) throw new DomainError('VALIDATION_ERROR', 'amount: must be more than 0')
  const feeUnits = amountOf('fee', command.fee, nativeAsset.decimals)
  const sweep: Sweep = {
    txHash,
    currency,
    decimals,
    amountUnits: amountUnits.toString(),
    feeUnits: feeUnits.toString(),
    feeCurrency: nativeAsset.currency,
    feeDecimals: nativeAsset.decimals,
    treasury,
    sweptAt: command.now,
  }
  const recorded = source.recorded.find((known) => sameSweep(known, sweep))
  if (recorded !== undefined) {
    const same =
      recorded.amountUnits === sweep.amountUnits &&
      recorded.feeUnits === sweep.feeUnits &&
      recorded.feeCurrency === sweep.feeCurrency &&
      recorded.treasury === sweep.treasury
    if (same) return null
    throw new DomainError(
      'SWEEP_TX_REUSED',
      `txHash: a sweep of ${currency} in this transaction is already recorded with other figures`,
    )
  }
  const unswept = balance.receivedUnits - balance.sweptUnits
  if (amountUnits > unswept) {
    throw new DomainError(
      'SWEEP_EXCEEDS_UNSWEPT',
      `amount: ${command.amount} ${currency} is more than the ${formatUnits(unswept, decimals)} ${currency} received and not swept yet`,
    )
  }
  return sweep
}

/** one sweep per transaction and currency */
export function sameSweep(
  a: Pick<Sweep, 'txHash' | 'currency'>,
  b: Pick<Sweep, 'txHash' | 'currency'>,
): boolean {
  return a.txHash === b.txHash && a.currency === b.currency
}

function boundedText(field: string, value: string, maxLength: number): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > maxLength || /\s/.test(value)) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `${field}: expected 1 to ${maxLength} characters without spaces`,
    )
  }
  return value
}

/** a decimal amount in whole units as the API writes them, in the asset's smallest units */
function amountOf(field: string, value: string, decimals: number): bigint {
  if (!isDecimalAmount(value)) {
    throw new DomainError('VALIDATION_ERROR', `${field}: expected a decimal amount such as "10.5"`)
  }
  if (fractionDigits(value) > decimals) {
    throw new DomainError('VALIDATION_ERROR', `${field}: at most ${decimals} decimal places`)
  }
  return toUnits(value, decimals)
}

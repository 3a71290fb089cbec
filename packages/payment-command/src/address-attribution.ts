// A transfer to a customer's deposit address counts for one payment only (decisions.md section 22):
// the payments of one (address, network) follow each other (address-claims.ts), so a transfer belongs
// to the payment whose time on the address holds its block time, from the payment's creation to the
// next payment's claim. The chain indexer watches the address for the newest payment and rescans
// blocks from a little before its creation (backfill.ts), and checks a closed payment's address for
// late funds: both can report a transfer of another payment of the address, which is ignored here,
// whichever way it comes, so that its later confirmations go to the same payment as its first.

import type { TransferObservation } from '@chainpay/contracts'
import type { OpenPayment } from '@chainpay/domain'
import type { EventStore } from '@chainpay/ports'
import { addressClaimStreamId } from './address-claims.js'

/**
 * How far a chain's block time may run behind the clock that stamped the claims: a Solana blockTime is
 * the validators' estimate (tens of seconds off), a TRON block's its producer's clock. The address's
 * first payment takes transfers from this much before its claim, so a customer who pays at once is
 * not turned away; a later payment's time starts at its claim, where the one before ends (a transfer
 * just before it is the earlier payment's late funds, never lost).
 */
export const BLOCK_CLOCK_SLACK_MS = 60_000

/** why the transfer is another payment's of the customer's address; null when it is this payment's */
export async function attributedElsewhere(
  eventStore: EventStore,
  payment: OpenPayment,
  observation: Pick<TransferObservation, 'blockTime'>,
): Promise<string | null> {
  const { created } = payment
  if (created.addressMode !== 'PER_USER') return null
  const blockTime = Date.parse(observation.blockTime)
  const claims = await eventStore.readStream(
    addressClaimStreamId(created.address, { network: created.network }),
  )
  const own = claims.findIndex(
    (claim) => (claim.data as { paymentId: string }).paymentId === created.paymentId,
  )
  // a later payment's time starts at its claim's whole second: a block time has no finer precision
  // (Solana's blockTime is Unix seconds), so a transfer in the second of the claim is the new
  // payment's, which its customer paid at once, not the earlier payment's late funds
  const claimedAt = (index: number) =>
    wholeSecond(
      Date.parse((claims[index]?.data as { claimedAt: string } | undefined)?.claimedAt ?? created.createdAt),
    )
  // the address's first payment starts a little before its claim; a later one where the one before
  // it ended, at its claim: what came before is the earlier payment's (its late funds)
  const start =
    own === -1
      ? Date.parse(created.createdAt) - BLOCK_CLOCK_SLACK_MS
      : claimedAt(own) - (own === 0 ? BLOCK_CLOCK_SLACK_MS : 0)
  if (blockTime < start) return 'sent to the customer address before the payment was created'
  const next = own === -1 ? undefined : claims[own + 1]
  if (next !== undefined && blockTime >= claimedAt(own + 1)) {
    return `sent after the customer's next payment ${(next.data as { paymentId: string }).paymentId} took the address`
  }
  return null
}

const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000

// A deposit observation whose transfer a PER_USER payment of the address counts (decisions.md
// section 22: a transfer to a customer's address pays its open payment when it is that payment's
// asset; docs/api.md, "Payments on a customer's address"). The chain indexer decides deposit or
// payment with what it knows when it sees the transfer: a payment created a moment before the
// transfer whose PaymentCreated it has not read yet (a consumer behind, a busy machine) is not
// known to it, and the transfer would become a deposit while the customer's payment waited for it
// until it expired. payment-command knows every payment of the address (address-claims.ts), so it
// gives such a transfer to the payment whose time on the address holds its block time, when it is
// that payment's asset and the payment is not final (or counts the transfer already, so that every
// later observation of it goes the same way). A transfer recorded as a deposit stays one.

import type { DepositObservation, TransferObservation } from '@chainpay/contracts'
import { depositIdOf, toDepositStreamId } from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import type { EventStore } from '@chainpay/ports'
import { attributedElsewhere } from './address-attribution.js'
import { addressClaimStreamId, CLAIM_GRACE_MS, isOpenPayment } from './address-claims.js'
import { loadPayment } from './payment-stream.js'

/** whether the transfer was recorded as a deposit: it is never also a payment's */
export async function recordedAsDeposit(
  eventStore: EventStore,
  transfer: { network: string; txHash: string; transferIndex: number },
): Promise<boolean> {
  const streamId = toDepositStreamId(depositIdOf(transfer.network, transfer.txHash, transfer.transferIndex))
  return (await eventStore.readStream(streamId)).length > 0
}

/**
 * A claim appended a moment ago whose payment is not created yet (a create between its two appends):
 * the observation waits for it (the consumer retries), or it could become a deposit the payment then
 * counts as well.
 */
export class ClaimedPaymentNotCreatedYetError extends Error {}

/** the payment's transfer observation the deposit observation is, or null: a deposit */
export async function paymentTransferOf(
  eventStore: EventStore,
  clock: Clock,
  observation: DepositObservation,
): Promise<TransferObservation | null> {
  const { network, txHash, transferIndex } = observation
  // an address that never had a PER_USER payment (most deposit addresses) costs this one read
  const claims = await eventStore.readStream(addressClaimStreamId(observation.address, { network }))
  if (claims.length === 0 || (await recordedAsDeposit(eventStore, observation))) return null
  // the newest payment first: the one whose time on the address holds the block time
  for (const claim of [...claims].reverse()) {
    const { paymentId, claimedAt } = claim.data as { paymentId: string; claimedAt: string }
    const { state } = await loadPayment(eventStore, paymentId)
    if (state.status === 'none') {
      // a claim past its grace whose payment never came (a crash between the appends) holds nothing
      if (clock.now().getTime() - Date.parse(claimedAt) < CLAIM_GRACE_MS) {
        throw new ClaimedPaymentNotCreatedYetError(
          `payment ${paymentId} claimed ${observation.address} and is not created yet; the deposit observation of ${txHash} waits for it`,
        )
      }
      continue
    }
    if ((await attributedElsewhere(eventStore, state, observation)) !== null) continue
    const counted = [...state.transfers, ...state.lateTransfers].some(
      (transfer) => transfer.txHash === txHash && transfer.transferIndex === transferIndex,
    )
    const payable = state.created.currency === observation.currency && isOpenPayment(state)
    if (!counted && !payable) return null
    return {
      kind: 'transfer',
      network,
      paymentId: state.created.paymentId,
      txHash,
      transferIndex,
      address: observation.address,
      amountUnits: observation.amountUnits,
      blockHeight: observation.blockHeight,
      blockTime: observation.blockTime,
      confirmations: observation.confirmations,
      final: observation.final,
      owner: observation.address,
      status: observation.status,
      dropReason: observation.dropReason,
      observedAt: observation.observedAt,
    }
  }
  return null
}

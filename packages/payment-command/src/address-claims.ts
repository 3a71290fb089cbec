// At most one open payment per (address, asset) on a customer's deposit address (decisions.md
// section 22, 409 ADDRESS_BUSY), and here stricter: one per (address, network), whatever the asset,
// because the chain indexer follows one payment per address and network (WatchedAddress: a second
// payment's watch replaces the first's, whose funds would then be reported to the second; docs/api.md,
// "Payments on a customer's address"). A PER_USER create first claims the pair on a stream of its own
// (`address-claim-<sha256 of network and address>`), appended at the revision it read, so
// that of concurrent creates one claims and the others read its claim. A claim holds while its
// payment is open (pending, or underpaid before its expiry closes it); once that payment is final the
// next create takes the pair over. A claim whose payment was never created (a crash between the two
// appends) holds for CLAIM_GRACE_MS, then is taken over too.

import { createHash } from 'node:crypto'
import { type Asset, DomainError, type PaymentState } from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import { type EventStore, WrongExpectedRevisionError } from '@chainpay/ports'

export const ADDRESS_CLAIM_STREAM_PREFIX = 'address-claim-'
/** how long a claim without its payment holds: far longer than one create takes */
export const CLAIM_GRACE_MS = 60_000
const MAX_CLAIM_ATTEMPTS = 10

interface AddressClaimedData {
  paymentId: string
  address: string
  network: string
  currency: string
  claimedAt: string
}

export function addressClaimStreamId(address: string, asset: Pick<Asset, 'network'>): string {
  const digest = createHash('sha256').update(`${asset.network}\n${address}`, 'utf8').digest('hex')
  return `${ADDRESS_CLAIM_STREAM_PREFIX}${digest}`
}

/** whether the payment still takes funds as the pair's one open payment */
export function isOpenPayment(state: PaymentState): boolean {
  if (state.status === 'none') return false
  return state.status === 'pending' || (state.status === 'underpaid' && state.closedAt === null)
}

export interface AddressClaims {
  /**
   * claims (address, asset) for `paymentId`; ADDRESS_BUSY while another payment of the pair is open.
   * A claim already held by `paymentId` (a retry of its create) passes.
   */
  claim(input: { paymentId: string; address: string; asset: Asset }): Promise<void>
}

export function createAddressClaims(deps: {
  eventStore: EventStore
  clock: Clock
  newId: () => string
  /** the state of a payment from its stream */
  paymentState(paymentId: string): Promise<PaymentState>
}): AddressClaims {
  const { eventStore, clock } = deps
  return {
    async claim({ paymentId, address, asset }) {
      const streamId = addressClaimStreamId(address, asset)
      for (let attempt = 1; ; attempt++) {
        const recorded = await eventStore.readStream(streamId)
        const last = recorded.at(-1)
        if (last !== undefined) {
          const held = last.data as AddressClaimedData
          if (held.paymentId === paymentId) return
          const state = await deps.paymentState(held.paymentId)
          const young = clock.now().getTime() - Date.parse(held.claimedAt) < CLAIM_GRACE_MS
          if (isOpenPayment(state) || (state.status === 'none' && young)) {
            throw new DomainError(
              'ADDRESS_BUSY',
              `the customer's address ${address} has an open ${held.currency} payment on ${asset.network} (${held.paymentId}): wait until it is final, or cancel it`,
            )
          }
        }
        const data: AddressClaimedData = {
          paymentId,
          address,
          network: asset.network,
          currency: asset.currency,
          claimedAt: clock.now().toISOString(),
        }
        try {
          await eventStore.appendToStream(
            streamId,
            [{ eventId: deps.newId(), type: 'AddressClaimed', data, metadata: { schemaVersion: 1 } }],
            last === undefined ? 'no_stream' : last.revision,
          )
          return
        } catch (error) {
          // another create claimed meanwhile: look at its claim
          if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_CLAIM_ATTEMPTS) throw error
        }
      }
    },
  }
}

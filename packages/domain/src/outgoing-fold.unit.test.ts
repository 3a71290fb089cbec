import { describe, expect, it } from 'vitest'
import { foldOutgoingEvent } from './outgoing-fold.js'
import type { Outgoing } from './outgoing-types.js'

const item = (status: Outgoing['status']): Outgoing => ({
  kind: 'payout',
  id: 'po_1',
  merchantId: 'mer_a',
  paymentId: null,
  network: 'TRON',
  currency: 'USDT',
  decimals: 6,
  amount: '2',
  amountUnits: '2000000',
  address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  claimable: false,
  reason: null,
  metadata: {},
  walletId: 'operator',
  idempotencyKey: 'k',
  requestFingerprint: 'f',
  status,
  planId: null,
  txHash: null,
  networkFee: null,
  failureReason: null,
  createdAt: '2030-01-15T12:00:00.000Z',
  updatedAt: '2030-01-15T12:00:00.000Z',
})

describe('foldOutgoingEvent', () => {
  it('given nothing folded, when the first event arrives, then its item is the document', () => {
    expect(foldOutgoingEvent(null, { revision: 0, item: item('ready') })).toEqual({
      revision: 0,
      item: item('ready'),
    })
  })

  it('given revision 1 folded, when revision 0 or 1 arrives again, then it is skipped', () => {
    const folded = { revision: 1, item: item('sending') }
    expect(foldOutgoingEvent(folded, { revision: 0, item: item('ready') })).toBe('skip')
    expect(foldOutgoingEvent(folded, { revision: 1, item: item('sending') })).toBe('skip')
  })

  it('given revision 0 folded, when a later revision arrives (a write-through may have skipped some), then it replaces it', () => {
    const folded = { revision: 0, item: item('ready') }
    expect(foldOutgoingEvent(folded, { revision: 2, item: item('sent') })).toEqual({
      revision: 2,
      item: item('sent'),
    })
  })
})

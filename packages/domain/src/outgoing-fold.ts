// Refunds and payouts as a read side holds them (docs/architecture.md, "The refunds and payouts read
// model"): the item after the event at `revision` of its own stream (refund-{id}, payout-{id}). The
// bus message of each event carries the item payment-command's relay folded from that stream
// (evolveRefund, evolvePayout), so the read side's fold is: a newer revision replaces, an older or
// equal one is a replay or a write-through already covered and is skipped.

import type { Outgoing } from './outgoing-types.js'

/** one refund or payout as a read side keeps it: the deciders' fold after the event at `revision` */
export interface FoldedOutgoing {
  item: Outgoing
  revision: number
}

/** the read side's document after `recorded`, or 'skip' when `folded` already covers its revision */
export function foldOutgoingEvent(
  folded: FoldedOutgoing | null,
  recorded: { revision: number; item: Outgoing },
): FoldedOutgoing | 'skip' {
  if (folded !== null && recorded.revision <= folded.revision) return 'skip'
  return { item: recorded.item, revision: recorded.revision }
}

// What a plan can pay of the ready refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"):
// pure arithmetic on smallest units. The treasury pays them from what it holds when the plan is made,
// after what the plan's sweeps cost it; never from what a sweep would bring in, as a sweep can stop.

/** a ready item, priced: what leaves the treasury for it */
export interface PricedOutgoing<T> {
  item: T
  currency: string
  /** what the recipient receives */
  amountUnits: bigint
  /** whether the item's currency is the chain's coin, in which the fees are paid too */
  native: boolean
  /** the most the treasury pays beyond the amount, in the coin: fees with headroom, activation, rent */
  costUnits: bigint
}

/** what the treasury can spend on the plan's refunds and payouts */
export interface TreasuryFunds {
  /** the coin (TRX, SOL) it holds, less what the plan's sweeps and any reserve take first */
  nativeUnits: bigint
  /** per token currency, what it holds */
  tokens: Map<string, bigint>
}

/** what the treasury lacks for an item: held is what was left for it after the items before it */
export interface Shortfall {
  currency: string
  needed: bigint
  held: bigint
}

export interface OutgoingFit<T> {
  kept: Array<PricedOutgoing<T>>
  short: Array<{ priced: PricedOutgoing<T>; missing: Shortfall[] }>
  /** what is left after the kept items */
  left: TreasuryFunds
}

/**
 * In the order given (the admin API lists the oldest first): an item is kept when what is left covers
 * its amount and its costs, else it is left out with what is missing; a later, smaller item may still
 * fit. Nothing is ever half paid.
 */
export function fitOutgoing<T>(
  items: Array<PricedOutgoing<T>>,
  funds: TreasuryFunds,
  nativeCurrency: string,
): OutgoingFit<T> {
  let native = funds.nativeUnits
  const tokens = new Map(funds.tokens)
  const kept: Array<PricedOutgoing<T>> = []
  const short: OutgoingFit<T>['short'] = []
  for (const priced of items) {
    const nativeNeeded = priced.costUnits + (priced.native ? priced.amountUnits : 0n)
    const tokenHeld = priced.native ? 0n : (tokens.get(priced.currency) ?? 0n)
    const missing: Shortfall[] = []
    if (!priced.native && tokenHeld < priced.amountUnits)
      missing.push({ currency: priced.currency, needed: priced.amountUnits, held: tokenHeld })
    if (native < nativeNeeded)
      missing.push({ currency: nativeCurrency, needed: nativeNeeded, held: native > 0n ? native : 0n })
    if (missing.length > 0) {
      short.push({ priced, missing })
      continue
    }
    native -= nativeNeeded
    if (!priced.native) tokens.set(priced.currency, tokenHeld - priced.amountUnits)
    kept.push(priced)
  }
  return { kept, short, left: { nativeUnits: native, tokens } }
}

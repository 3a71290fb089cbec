// A merchant's balance per asset as the merchant API (GET /balances) and the admin API
// (GET /admin/v1/merchants/:id/balances) both show it (docs/api.md, "Balances").

import { formatUnits } from '@chainpay/domain'
import type { MerchantBalance } from '@chainpay/ports'

/** a balance as the merchant API shows it: decimal amounts of the asset (docs/api.md, "Balances") */
export function toBalanceView(balance: MerchantBalance) {
  const amount = (units: string) => formatUnits(units, balance.decimals)
  return {
    network: balance.network,
    currency: balance.currency,
    receivedNetAmount: amount(balance.receivedNetUnits),
    refundedAmount: amount(balance.refundedUnits),
    paidOutAmount: amount(balance.paidOutUnits),
    availableAmount: amount(balance.availableUnits),
  }
}

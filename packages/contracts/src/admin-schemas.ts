// Bodies the operator's requests carry from the gateway's admin API to payment-command's command API
// (docs/api.md, "Balances and sweeps" and "Merchant wallets"): one schema for both, so that the two
// APIs accept the same. Strings only: what they hold is the domain's to check (the payment decider's
// SWEEP_* codes, the wallet rules' INVALID_TRON_XPUB and INVALID_SOLANA_SEED).

import Type from 'typebox'

/** a sweep of one payment address, as the operator records it */
export const SweepRecordFields = {
  txHash: Type.String(),
  currency: Type.String(),
  amount: Type.String(),
  fee: Type.String(),
  feeCurrency: Type.String(),
  treasury: Type.String(),
}

export const SweepRecordSchema = Type.Object(SweepRecordFields, { additionalProperties: false })

/** a merchant's own wallet: its TRON account xpub and its Solana seed (hex) */
export const MerchantWalletKeysSchema = Type.Object(
  { tronAccountXpub: Type.String({ maxLength: 200 }), solanaSeed: Type.String({ maxLength: 200 }) },
  { additionalProperties: false },
)

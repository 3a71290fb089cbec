// What the admin API answers (docs/api.md, "Balances and sweeps", and docs/operations.md): its rows
// and views, written once here, where the admin API's routes (@chainpay/admin-api), its client
// (@chainpay/admin-client) and so chainpay-admin and chainpay-wallet all take them from.

import Type, { type Static } from 'typebox'

const Nullable = <Schema extends ReturnType<typeof Type.String>>(schema: Schema) =>
  Type.Union([schema, Type.Null()])
const Text = Type.String()

/**
 * one asset at one payment address, or one confirmed deposit at a customer's deposit address: a row of
 * GET /admin/v1/balances; amounts in whole units
 */
export const BalanceRowSchema = Type.Object({
  merchantId: Text,
  walletId: Text,
  /** the payment whose address received it; null on a deposit's row */
  paymentId: Nullable(Text),
  /** the customer's deposit (docs/api.md, "Deposits"); null on a payment's row */
  depositId: Nullable(Text),
  network: Text,
  address: Text,
  /** SPL: the payment's token account for its own mint; null otherwise and for other mints */
  tokenAccount: Nullable(Text),
  derivationPath: Text,
  currency: Text,
  /** NATIVE, TRC20 or SPL; null for an asset the registry no longer knows */
  tokenStandard: Nullable(Text),
  contract: Nullable(Text),
  received: Text,
  swept: Text,
  /** what the chain holds now; null unless asked (onChain=true) and read */
  onChain: Nullable(Text),
  /** why onChain is null although it was asked; null otherwise */
  onChainError: Nullable(Text),
})
export type BalanceRow = Static<typeof BalanceRowSchema>

/** per merchant, network and currency: a row of GET /admin/v1/balances/totals */
export const BalanceTotalSchema = Type.Object({
  merchantId: Text,
  network: Text,
  currency: Text,
  received: Text,
  swept: Text,
  unswept: Text,
  /** payment addresses that received this asset */
  addresses: Type.Integer(),
})
export type BalanceTotal = Static<typeof BalanceTotalSchema>

/** a recorded sweep, as POST /admin/v1/sweeps answers it */
export const SweepViewSchema = Type.Object({
  paymentId: Nullable(Text),
  depositId: Nullable(Text),
  merchantId: Text,
  network: Text,
  address: Text,
  txHash: Text,
  currency: Text,
  amount: Text,
  fee: Text,
  feeCurrency: Text,
  treasury: Text,
  sweptAt: Text,
})
export type SweepView = Static<typeof SweepViewSchema>

/** a refund or payout as the offline procedure reads it: a row of GET /admin/v1/outgoing */
export const OutgoingRowSchema = Type.Object({
  kind: Type.Union([Type.Literal('refund'), Type.Literal('payout')]),
  id: Text,
  merchantId: Text,
  paymentId: Nullable(Text),
  /** null: the operator's wallet pays it */
  walletId: Nullable(Text),
  network: Text,
  currency: Text,
  /** decimal string in whole units */
  amount: Text,
  amountUnits: Text,
  decimals: Type.Integer(),
  address: Nullable(Text),
  status: Text,
  planId: Nullable(Text),
  txHash: Nullable(Text),
  createdAt: Text,
  updatedAt: Text,
})
export type OutgoingRow = Static<typeof OutgoingRowSchema>

/** a merchant as the admin API shows it: no secret, sealed or not */
export const MerchantViewSchema = Type.Object({
  merchantId: Text,
  name: Text,
  /** what the customer's page calls the merchant; null: `name` */
  displayName: Nullable(Text),
  /** the image the customer's page shows, fetched by the gateway; null: none */
  logoUrl: Nullable(Text),
  webhookUrl: Nullable(Text),
  feePolicy: Type.Object({ feeBps: Type.Integer(), fixedFees: Type.Record(Type.String(), Text) }),
  /** percent a payment may fall short and still be confirmed (docs/api.md, "Underpayment tolerance") */
  underpaymentTolerancePercent: Text,
  createdAt: Text,
  updatedAt: Text,
})
export type MerchantView = Static<typeof MerchantViewSchema>

/** an API key of a merchant, never its secret (docs/operations.md, "API keys") */
export const ApiKeyViewSchema = Type.Object({
  apiKey: Text,
  createdAt: Text,
  revokedAt: Nullable(Text),
  /** when a rolled key stops working; null: it works until revoked */
  expiresAt: Nullable(Text),
  /** active; expiring (rolled, still working); expired; revoked */
  status: Type.Union([
    Type.Literal('active'),
    Type.Literal('expiring'),
    Type.Literal('expired'),
    Type.Literal('revoked'),
  ]),
})
export type ApiKeyView = Static<typeof ApiKeyViewSchema>

/** a merchant made by POST /admin/v1/merchants, with its secrets, shown this once */
export const CreatedMerchantSchema = Type.Object({
  merchant: MerchantViewSchema,
  apiKey: Text,
  apiSecret: Text,
  webhookSecret: Text,
})
export type CreatedMerchant = Static<typeof CreatedMerchantSchema>

/** a merchant's new API key with its secret, shown this once (POST .../api-keys) */
export const IssuedApiKeySchema = Type.Object({ apiKey: Text, apiSecret: Text })
export type IssuedApiKeyView = Static<typeof IssuedApiKeySchema>

/** a roll's answer (POST .../api-keys/{apiKey}/roll): the new key, and until when the old one works */
export const RolledApiKeySchema = Type.Object({
  apiKey: Text,
  apiSecret: Text,
  rolled: Type.Object({ apiKey: Text, expiresAt: Text }),
})
export type RolledApiKeyView = Static<typeof RolledApiKeySchema>

const ResealCountsSchema = Type.Object({
  /** values looked at */
  total: Type.Integer(),
  /** sealed again under the current key */
  resealed: Type.Integer(),
  /** already in the current format under the current key, and opened fine */
  alreadyCurrent: Type.Integer(),
})
export type ResealCounts = Static<typeof ResealCountsSchema>

/** what POST /admin/v1/secrets/reseal did (docs/operations.md, "Rotating the encryption key") */
export const ResealReportSchema = Type.Object({
  /** the id of the key every re-sealed value now names */
  currentKeyId: Text,
  webhookSecrets: ResealCountsSchema,
  apiSecrets: ResealCountsSchema,
  /** per endpoint: its secret and, during a rotation's overlap, the previous one, as one value */
  webhookEndpointSecrets: ResealCountsSchema,
  /** merchants' Solana seeds, under payment-command's CHAINPAY_ENCRYPTION_KEY (the same key) */
  merchantWalletSeeds: ResealCountsSchema,
  /** values no configured key opens; left as they are */
  unopenable: Type.Array(
    Type.Object({
      record: Type.Union([
        Type.Literal('webhookSecret'),
        Type.Literal('apiSecret'),
        Type.Literal('webhookEndpointSecret'),
        Type.Literal('merchantWalletSeed'),
      ]),
      merchantId: Text,
      /** the API key the secret belongs to (apiSecret only) */
      apiKey: Type.Optional(Text),
      /** the endpoint the secret belongs to (webhookEndpointSecret only) */
      endpointId: Type.Optional(Text),
      /** why it does not open: the key id it names, or that it was altered or moved; never the value */
      problem: Text,
    }),
  ),
})
export type ResealReport = Static<typeof ResealReportSchema>
export type UnopenableSecret = ResealReport['unopenable'][number]

/** a merchant's own wallet as the admin API shows it: the public parts only */
export const MerchantWalletViewSchema = Type.Object({
  merchantId: Text,
  walletId: Text,
  tronAccountXpub: Text,
  solanaAddress0: Text,
  setAt: Text,
})
export type MerchantWalletView = Static<typeof MerchantWalletViewSchema>

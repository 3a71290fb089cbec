// Every collection the MongoDB adapters keep, by name, so that a deployment can see at a glance what
// lives in its database:
//
//   payments_read             read model: one document per payment (_id paymentId), the aggregate
//                             state after `revision`, merchant keys escaped (document-keys.ts)
//   notifier_payments         the notifier's own copy of payment state, same shape as payments_read
//   invoices_read             read model of invoices (_id invoiceId), the fold after `revision`
//   notifier_invoices         the notifier's own copy of invoice state, same shape as invoices_read
//   outgoing_read             read model of refunds and payouts (_id `${kind}:${id}`), the fold after
//                             `revision` (outgoing-read-model.ts)
//   received_net, received_net_assets
//                             each merchant's received net per asset: a chain of versions, each made
//                             by one payment's count, and the assets a merchant has totals of
//                             (received-net.ts)
//   merchants                 one document per merchant (_id merchantId); secrets arrive sealed
//   api_keys                  one document per API key (_id apiKey, hence unique), with its merchant
//   merchant_wallets          a merchant's own wallet (_id merchantId); the Solana seed arrives sealed
//   merchant_wallet_keys      one claim per key a merchant wallet uses (merchant-wallets.ts)
//   checkpoints               named positions (_id name)
//   address_indexes           one claim per handed-out derivation index of a chain family
//                             (_id `family:${chain}:${index}`); before 2026-11, per network
//                             (_id `${network}:${index}`), still read (address-allocator.ts)
//   payment_deadlines         expiry deadline and retry state of open payments (_id paymentId)
//   payment_deadline_watches  the chain watcher's marks (_id paymentId); may precede the deadline
//   webhook_deliveries, webhook_attempts          the notifier's delivery log (deliveries.ts)
//   webhook_endpoints         merchants' webhook endpoints (_id endpointId); secrets arrive sealed
//   dashboard_users, dashboard_user_emails, dashboard_setup_tokens, dashboard_sessions,
//   dashboard_login_failures, dashboard_audit, dashboard_totp_steps
//                             the dashboard's people, sign-ins and audit log (dashboard-users.ts)
//   webhook_leases            claims of deliveries by notifier processes: an insert is the only
//                             atomic step FerretDB v1 offers (deliveries.ts)
//   deposit_addresses_read    customers' deposit addresses (_id the address), written once
//   chain_cursors, watched_addresses, tracked_transfers, account_signatures
//                             the chain indexer (chain-indexer-store.ts)
//
// Uniqueness rests on `_id` alone, which every server enforces without a secondary index; the indexes
// each adapter lists (IndexSpec) only make its queries fast.

export const mongoCollections = {
  paymentsRead: 'payments_read',
  notifierPayments: 'notifier_payments',
  invoicesRead: 'invoices_read',
  notifierInvoices: 'notifier_invoices',
  outgoingRead: 'outgoing_read',
  receivedNet: 'received_net',
  receivedNetAssets: 'received_net_assets',
  merchants: 'merchants',
  apiKeys: 'api_keys',
  merchantWallets: 'merchant_wallets',
  merchantWalletKeys: 'merchant_wallet_keys',
  checkpoints: 'checkpoints',
  addressIndexes: 'address_indexes',
  paymentDeadlines: 'payment_deadlines',
  paymentDeadlineWatches: 'payment_deadline_watches',
  webhookDeliveries: 'webhook_deliveries',
  webhookAttempts: 'webhook_attempts',
  webhookLeases: 'webhook_leases',
  webhookEndpoints: 'webhook_endpoints',
  dashboardUsers: 'dashboard_users',
  dashboardUserEmails: 'dashboard_user_emails',
  dashboardSetupTokens: 'dashboard_setup_tokens',
  dashboardSessions: 'dashboard_sessions',
  dashboardLoginFailures: 'dashboard_login_failures',
  dashboardAudit: 'dashboard_audit',
  dashboardTotpSteps: 'dashboard_totp_steps',
  chainCursors: 'chain_cursors',
  watchedAddresses: 'watched_addresses',
  trackedTransfers: 'tracked_transfers',
  accountSignatures: 'account_signatures',
  depositAddressesRead: 'deposit_addresses_read',
  depositAddressesWatched: 'deposit_addresses_watched',
  depositsRead: 'deposits_read',
} as const

/**
 * One secondary index an adapter needs. Only options FerretDB v1 accepts: no TTL
 * (expireAfterSeconds), no partialFilterExpression, no collation.
 */
export interface IndexSpec {
  collection: string
  name: string
  key: Record<string, 1 | -1>
  unique?: boolean
}

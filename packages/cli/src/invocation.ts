// chainpay-admin's command line as each command gets it (commands.ts parses it and runs the command):
// the options of every command group, the flags they parse into, and what a command is given. Apart
// from commands.ts so that the command groups (balance-commands.ts, merchant-wallet-commands.ts)
// import these without importing the file that imports them (no import circle).

import type { parseArgs } from 'node:util'
import type { AdminClient } from '@chainpay/admin-client'
import { chainCheckOptions } from './chain-check.js'

/** chainpay-admin balances and sweeps record (balance-commands.ts) */
export const balanceOptions = {
  merchant: { type: 'string' },
  network: { type: 'string' },
  wallet: { type: 'string' },
  totals: { type: 'boolean' },
  'on-chain': { type: 'boolean' },
  'tx-hash': { type: 'string' },
  currency: { type: 'string' },
  amount: { type: 'string' },
  fee: { type: 'string' },
  'fee-currency': { type: 'string' },
  treasury: { type: 'string' },
} as const

/** chainpay-admin merchants wallet (merchant-wallet-commands.ts) */
export const merchantWalletOptions = {
  'tron-xpub': { type: 'string' },
  'solana-seed-file': { type: 'string' },
} as const

/** chainpay-admin users add (dashboard-user-commands.ts) */
export const dashboardUserOptions = {
  merchant: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
} as const

/** every option of chainpay-admin */
export const adminOptions = {
  url: { type: 'string' },
  // refused, with what to use instead (admin-token-source.ts)
  token: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  'webhook-url': { type: 'string' },
  'fee-bps': { type: 'string' },
  fixed: { type: 'string', multiple: true },
  clear: { type: 'boolean' },
  status: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  'overlap-hours': { type: 'string' },
  ...balanceOptions,
  ...merchantWalletOptions,
  ...dashboardUserOptions,
  ...chainCheckOptions,
} as const

export type Flags = ReturnType<
  typeof parseArgs<{ options: typeof adminOptions; allowPositionals: true }>
>['values']

export interface Printer {
  /** the answer as JSON with --json, else as the lines given */
  result(value: unknown, lines: () => string[]): void
  /** a note for people, never mixed into JSON output */
  notice(line: string): void
}

export interface Invocation {
  flags: Flags
  args: string[]
  api: AdminClient
  print: Printer
  readStdin(): Promise<string>
}

export type Command = (invocation: Invocation) => Promise<void>

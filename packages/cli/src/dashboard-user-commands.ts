// chainpay-admin users add|reset (docs/operations.md, "Dashboard users"): adds a user of a merchant
// to the dashboard with a role, or gives one who lost the password or the authenticator a new start,
// through the admin API, and prints the one-time setup link to send them. The link is shown this
// once: the gateway keeps only its hash.

import { CliError } from './cli-error.js'
import type { Command } from './invocation.js'

export const DASHBOARD_USER_USAGE = `  users add --merchant MERCHANT_ID --email EMAIL --role (owner | developer | viewer)
  users reset --merchant MERCHANT_ID --email EMAIL`

export const dashboardUserCommands: Record<string, Command> = {
  async 'users add'({ flags, args, api, print }) {
    if (args.length > 0)
      throw new CliError(
        `unexpected '${args.join(' ')}'; usage: users add --merchant MERCHANT_ID --email EMAIL --role ROLE`,
      )
    const missing = (['merchant', 'email', 'role'] as const).find((name) => flags[name] === undefined)
    if (missing !== undefined) throw new CliError(`users add: --${missing} is required`)
    const added = await api.dashboardUsers.add(flags.merchant as string, {
      email: flags.email as string,
      role: flags.role as string,
    })
    print.result(added, () => [
      `Added ${added.email} (${added.role}) to merchant ${added.merchantId}.`,
      ...linkLines(added),
    ])
  },

  async 'users reset'({ flags, args, api, print }) {
    if (args.length > 0)
      throw new CliError(
        `unexpected '${args.join(' ')}'; usage: users reset --merchant MERCHANT_ID --email EMAIL`,
      )
    const missing = (['merchant', 'email'] as const).find((name) => flags[name] === undefined)
    if (missing !== undefined) throw new CliError(`users reset: --${missing} is required`)
    if (flags.role !== undefined) throw new CliError('--role is only for users add')
    const reset = await api.dashboardUsers.reset(flags.merchant as string, { email: flags.email as string })
    print.result(reset, () => [
      `Reset ${reset.email}: the password and the authenticator are cleared, the sessions ended.`,
      ...linkLines(reset),
    ])
  },
}

function linkLines(added: { setupUrl: string; setupExpiresAt: string }): string[] {
  return [
    'Send them this setup link; it is shown once and works until',
    `${added.setupExpiresAt}:`,
    added.setupUrl,
  ]
}

// chainpay-wallet's admin token, from CHAINPAY_ADMIN_TOKEN or --token-file, never the command line
// (@chainpay/platform's admin-token-source.ts; docs/treasury.md, "The admin token").

import { AdminTokenSourceError, adminTokenOf as readAdminToken, tokenOnCommandLine } from '@chainpay/platform'
import { CommandError } from './command-error.js'

export const TOKEN_ON_COMMAND_LINE = tokenOnCommandLine('scripts/wallet')

/** the admin token of --token-file or CHAINPAY_ADMIN_TOKEN; refuses --token */
export function adminTokenOf(
  flags: { token?: string | undefined; 'token-file'?: string | undefined },
  env: Record<string, string | undefined>,
): string {
  try {
    return readAdminToken(flags, env, 'scripts/wallet')
  } catch (error) {
    if (error instanceof AdminTokenSourceError) throw new CommandError(error.message)
    throw error
  }
}

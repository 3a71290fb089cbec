// Where the operator's command-line tools (chainpay-admin, chainpay-wallet) take the admin token
// from: CHAINPAY_ADMIN_TOKEN, or a file of the owner's (--token-file). Never the command line, which
// every user of the machine sees in the process list (docs/operations.md, "Merchant management";
// docs/treasury.md, "The admin token").

import { PrivateFileError, readOwnerOnlyFile } from './private-files.js'

/** the token could not be had as asked; its message says what to do. Each tool shows it as its own error. */
export class AdminTokenSourceError extends Error {
  override name = 'AdminTokenSourceError'
}

/** what --token answers: the option is refused, saying what to use instead and where `script` finds the token */
export function tokenOnCommandLine(script: string): string {
  return `--token would show the admin token to every user of this machine (the process list): set CHAINPAY_ADMIN_TOKEN, or pass --token-file FILE (a file only you can read); ${script} reads it from DATA_DIR`
}

/** the admin token of --token-file or CHAINPAY_ADMIN_TOKEN; refuses --token */
export function adminTokenOf(
  flags: { token?: string | undefined; 'token-file'?: string | undefined },
  env: Record<string, string | undefined>,
  script: string,
): string {
  if (flags.token !== undefined) throw new AdminTokenSourceError(tokenOnCommandLine(script))
  const file = flags['token-file']
  const token = file === undefined ? env.CHAINPAY_ADMIN_TOKEN : readTokenFile(file)
  if (!token) {
    throw new AdminTokenSourceError(
      `an admin token is required: set CHAINPAY_ADMIN_TOKEN or pass --token-file FILE (${script} reads it from DATA_DIR)`,
    )
  }
  return token
}

/** the file's text, trimmed; refused when other users may read or change it. Never quoted. */
function readTokenFile(path: string): string {
  try {
    return readOwnerOnlyFile(path, '--token-file').trim()
  } catch (error) {
    if (error instanceof PrivateFileError) throw new AdminTokenSourceError(error.message)
    throw error
  }
}

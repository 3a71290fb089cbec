// Where chainpay-admin takes the admin token from: CHAINPAY_ADMIN_TOKEN, or a file of the owner's
// (--token-file). Never the command line, which every user of the machine sees in the process list
// (docs/operations.md, "Merchant management").

import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs'
import { CliError } from './cli-error.js'

/** group or other may read or change it */
const SHARED_PERMISSIONS = 0o077

export const TOKEN_ON_COMMAND_LINE =
  '--token would show the admin token to every user of this machine (the process list): set CHAINPAY_ADMIN_TOKEN, or pass --token-file FILE (a file only you can read); scripts/admin reads it from DATA_DIR'

/** the admin token of --token-file or CHAINPAY_ADMIN_TOKEN; refuses --token */
export function adminTokenOf(
  flags: { token?: string | undefined; 'token-file'?: string | undefined },
  env: Record<string, string | undefined>,
): string {
  if (flags.token !== undefined) throw new CliError(TOKEN_ON_COMMAND_LINE)
  const file = flags['token-file']
  const token = file === undefined ? env.CHAINPAY_ADMIN_TOKEN : readTokenFile(file)
  if (!token) {
    throw new CliError(
      'an admin token is required: set CHAINPAY_ADMIN_TOKEN or pass --token-file FILE (scripts/admin reads it from DATA_DIR)',
    )
  }
  return token
}

/** the file's text, trimmed; refused when other users may read or change it. Never quoted. */
function readTokenFile(path: string): string {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    throw new CliError(
      `--token-file: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    )
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new CliError(`--token-file: ${path} is not a regular file`)
    const mode = stat.mode & 0o777
    if ((mode & SHARED_PERMISSIONS) !== 0) {
      throw new CliError(
        `--token-file: ${path} is open to other users (mode ${mode.toString(8).padStart(4, '0')}): run chmod 600 ${path}`,
      )
    }
    return readFileSync(fd, 'utf8').trim()
  } finally {
    closeSync(fd)
  }
}

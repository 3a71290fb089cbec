// Where the project's own server builds live: the recipes in the repository (deploy/local), the
// downloads and builds in a cache outside it, so that a fresh clone on the same machine reuses them.

import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** the repository root (this file is packages/local-servers/{src,dist}/paths.*) */
export const repositoryRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..')

/** CHAINPAY_CACHE_DIR, else $XDG_CACHE_HOME/chainpay, else ~/.cache/chainpay */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHAINPAY_CACHE_DIR) return resolve(env.CHAINPAY_CACHE_DIR)
  return join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'chainpay')
}

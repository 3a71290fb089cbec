// chainpay-wallet as a process of its own (its build, dist/main.js), as on the offline machine: `sign`
// and `keys` refuse the network for the rest of their process (offline-guard.ts), which must not be
// the test's.

import { fileURLToPath } from 'node:url'
import { type ExitedProcess, runToExit } from '@chainpay/service-kit/testing'

const WALLET_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url))

/** runs `chainpay-wallet argv…` to its end; `stdin` is what a prompt reads. stderr is as printed. */
export async function runWalletProcess(argv: readonly string[], stdin?: string): Promise<ExitedProcess> {
  return await runToExit(WALLET_MAIN, {}, { args: argv, ...(stdin === undefined ? {} : { stdin }) })
}

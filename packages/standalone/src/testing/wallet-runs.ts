// chainpay-wallet against a running standalone, for the sweep end-to-end tests: plan and broadcast
// (online) in the test's process, sign and keys (offline) in a process of their own. Every line they
// print is kept, for the tests that look for key material in it.

import { runChainpayWallet, type SweepPlan } from '@chainpay/treasury'
import { runWalletProcess } from '@chainpay/treasury/testing'
import type { StandaloneProcess } from './standalone-process.js'

export interface WalletRun {
  code: number
  out: string[]
  err: string[]
}

export function walletRuns(
  standalone: () => Pick<StandaloneProcess, 'adminUrl' | 'adminToken'>,
  /** every line printed, appended to */
  printed: string[],
) {
  const kept = (run: WalletRun): WalletRun => {
    printed.push(...run.out, ...run.err)
    return run
  }
  return {
    /** plan or broadcast, in this process, with the admin API's URL and token */
    async online(argv: string[]): Promise<WalletRun> {
      const out: string[] = []
      const err: string[] = []
      const code = await runChainpayWallet(argv, {
        env: { CHAINPAY_ADMIN_URL: standalone().adminUrl, CHAINPAY_ADMIN_TOKEN: standalone().adminToken() },
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        promptSecret: () => Promise.reject(new Error('no prompt in this test: use the file options')),
        now: () => new Date(),
      })
      return kept({ code, out, err })
    },
    /** sign or keys, in a process of its own: they refuse the network for the rest of theirs */
    async offline(argv: string[]): Promise<WalletRun> {
      const { code, stdout, stderr } = await runWalletProcess(argv)
      const lines = (text: string) => text.split('\n').filter(Boolean)
      return kept({ code: code ?? 1, out: lines(stdout), err: lines(stderr) })
    },
  }
}

/** the derivation paths of the payment addresses a plan signs for */
export function paymentPaths(plan: SweepPlan): string[] {
  const paths = plan.steps.flatMap((step) =>
    step.signers.filter((signer) => signer.role === 'payment').map((signer) => signer.derivationPath ?? ''),
  )
  return [...new Set(paths)]
}

// chainpay-admin run in process, its output lines collected: what the CLI's tests read.
import { runChainpayAdmin } from '../commands.js'

export interface CliRun {
  code: number
  out: string[]
  err: string[]
}

export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayAdmin(argv, {
    env,
    output: { out: (line) => out.push(line), err: (line) => err.push(line) },
  })
  return { code, out, err }
}

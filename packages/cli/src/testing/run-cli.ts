// chainpay-admin run in process, its output lines collected: what the CLI's tests read.
import { runChainpayAdmin } from '../commands.js'

export interface CliRun {
  code: number
  out: string[]
  err: string[]
}

/** `stdin`: what a pipe into the command would carry; a command that reads none fails */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  stdin?: string,
): Promise<CliRun> {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayAdmin(argv, {
    env,
    output: { out: (line) => out.push(line), err: (line) => err.push(line) },
    readStdin: async () => {
      if (stdin === undefined) throw new Error('this test gives the command no stdin')
      return stdin
    },
  })
  return { code, out, err }
}

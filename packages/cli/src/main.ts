#!/usr/bin/env node
import { CliError } from './cli-error.js'
import { runChainpayAdmin } from './commands.js'

process.exitCode = await runChainpayAdmin(process.argv.slice(2), {
  env: process.env,
  output: {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  },
  async readStdin() {
    if (process.stdin.isTTY) {
      throw new CliError('stdin is a terminal, where the seed would be echoed: pipe it in, or give a file')
    }
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  },
})

#!/usr/bin/env node
import { runChainpayWallet } from './commands.js'
import { promptHidden } from './prompt-hidden.js'

process.exitCode = await runChainpayWallet(process.argv.slice(2), {
  env: process.env,
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  promptSecret: promptHidden,
  now: () => new Date(),
})

#!/usr/bin/env node
import { runChainpayAdmin } from './commands.js'

process.exitCode = await runChainpayAdmin(process.argv.slice(2), {
  env: process.env,
  output: {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  },
})

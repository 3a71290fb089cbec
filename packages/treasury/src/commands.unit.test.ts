// chainpay-wallet's command line: what it refuses before reaching any node or API.

import { describe, expect, it } from 'vitest'
import { runChainpayWallet, USAGE } from './commands.js'

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet(argv, {
    env,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: () => Promise.reject(new Error('no prompt')),
    now: () => new Date('2026-11-26T22:00:00Z'),
  })
  return { code, out, err }
}

describe('chainpay-wallet command line', () => {
  it('prints its usage with --help, and on stderr without a command', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, out: [USAGE], err: [] })
    expect(await run([])).toEqual({ code: 1, out: [], err: [USAGE] })
  })

  it('says what is missing or malformed in a plan request', async () => {
    const base = [
      'plan',
      '--treasury',
      'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      '--out',
      '/nonexistent/plan.json',
    ]
    const env = {
      CHAINPAY_ADMIN_TOKEN: 'token-0123456789abcdef0123456789',
      TRON_RPC_URL: 'http://127.0.0.1:9',
    }
    expect((await run(['plan'], env)).err).toEqual(['error: --network is required'])
    expect((await run([...base, '--network', 'DOGE'], env)).err).toEqual(['error: unknown network DOGE'])
    expect((await run([...base, '--network', 'TRON', '--energy', 'rent'], env)).err).toEqual([
      'error: --energy: burn or delegate',
    ])
    expect((await run([...base, '--network', 'TRON', '--rate', 'USDT'], env)).err).toEqual([
      "error: --rate: expected CURRENCY=AMOUNT, got 'USDT'",
    ])
    expect((await run([...base, '--network', 'TRON', '--min', 'USDT=0.0000001'], env)).err).toEqual([
      'error: --min USDT=0.0000001: 0.0000001 has more than 6 decimal places',
    ])
    expect((await run([...base, '--network', 'TRON'], { TRON_RPC_URL: 'http://127.0.0.1:9' })).err).toEqual([
      'error: an admin token is required: set CHAINPAY_ADMIN_TOKEN or pass --token-file FILE (scripts/wallet reads it from DATA_DIR)',
    ])
    expect((await run([...base, '--network', 'SOLANA'], env)).err).toEqual([
      'error: a node is required: pass --rpc-url or set SOLANA_RPC_URL',
    ])
  })

  it('never takes the admin token on the command line, where the process list shows it', async () => {
    const refused = await run(
      [
        'plan',
        '--network',
        'TRON',
        '--treasury',
        'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
        '--out',
        '/nonexistent/plan.json',
        '--token',
        'token-0123456789abcdef0123456789',
      ],
      { TRON_RPC_URL: 'http://127.0.0.1:9' },
    )
    expect(refused).toEqual({
      code: 1,
      out: [],
      err: [
        'error: --token would show the admin token to every user of this machine (the process list): set CHAINPAY_ADMIN_TOKEN, or pass --token-file FILE (a file only you can read); scripts/wallet reads it from DATA_DIR',
      ],
    })
    // before anything else is read
    expect((await run(['broadcast', '--signed', '/nonexistent/signed.json', '--token', 'x'])).err).toEqual(
      refused.err,
    )
  })
})

// The `chainpay-wallet` executable in a process of its own: the mnemonic piped on stdin (what the
// prompt reads when stdin is not a terminal), the signed file written, nothing secret printed; and
// `keys`, the seed file written with mode 0600.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { walletFromMnemonic } from '@chainpay/wallet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SignedSweep } from './sweep-plan.js'
import { offlineSolanaPlan, testWallet } from './testing/offline-plan.js'
import { runWalletProcess } from './testing/wallet-process.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-wallet-process-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('chainpay-wallet sign as a process', () => {
  it('reads the mnemonic from stdin, signs, and prints what it signed and nothing secret', async () => {
    const wallet = testWallet()
    const plan = offlineSolanaPlan(wallet)
    const planPath = join(dir, 'plan.json')
    const signedPath = join(dir, 'signed.json')
    writeFileSync(planPath, JSON.stringify(plan))

    const run = await runWalletProcess(
      ['sign', '--plan', planPath, '--out', signedPath],
      `${wallet.mnemonic}\n`,
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`SOLANA_DEVNET: to the treasury ${plan.treasury.address}`)
    const signed = JSON.parse(readFileSync(signedPath, 'utf8')) as SignedSweep
    expect(signed.steps).toHaveLength(1)

    const everything = [
      run.stdout,
      run.stderr,
      ...readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8')),
    ]
      .join('\n')
      .toLowerCase()
    expect(everything).not.toContain(wallet.mnemonic)
    for (const secret of wallet.secrets) expect(everything).not.toContain(secret.toLowerCase())
  })

  it('exits 1 with one line when the mnemonic is not the plan’s', async () => {
    const plan = offlineSolanaPlan(testWallet())
    const planPath = join(dir, 'other.json')
    writeFileSync(planPath, JSON.stringify(plan))
    const stranger = testWallet()
    const run = await runWalletProcess(
      ['sign', '--plan', planPath, '--out', join(dir, 'no.json')],
      stranger.mnemonic,
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^error: the key at m\/44'\/501'[^ ]* gives \w+, the plan says \w+: wrong mnemonic.*\n$/,
    )
    expect(run.stderr).not.toContain(stranger.mnemonic)
  })
})

describe('chainpay-wallet keys as a process', () => {
  it('writes the Solana seed to a new file of mode 0600 and prints only public parts', async () => {
    const [tron, solana] = [testWallet(), testWallet()]
    const files = { tron: join(dir, 'tron.mnemonic'), solana: join(dir, 'solana.mnemonic') }
    writeFileSync(files.tron, tron.mnemonic, { mode: 0o600 })
    writeFileSync(files.solana, solana.mnemonic, { mode: 0o600 })
    const seedOut = join(dir, 'keys.seed')
    const run = await runWalletProcess(
      [
        'keys',
        '--tron-mnemonic-file',
        files.tron,
        '--solana-mnemonic-file',
        files.solana,
        '--solana-seed-out',
        seedOut,
      ],
      '',
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const { solanaSeed } = walletFromMnemonic(solana.mnemonic)
    expect(run.stdout).toContain(`): ${walletFromMnemonic(tron.mnemonic).tronAccountXpub}\n`)
    expect(readFileSync(seedOut, 'utf8')).toBe(`${solanaSeed}\n`)
    expect(statSync(seedOut).mode & 0o777).toBe(0o600)
    for (const secret of [tron.mnemonic, solana.mnemonic, solanaSeed])
      expect(run.stdout).not.toContain(secret)
  })
})

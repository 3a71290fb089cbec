// `chainpay-wallet keys` run in process: offline, the TRON account xpub printed, the Solana seed
// written to a new file only its owner reads, no mnemonic or seed in any line printed.

import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createTronAddressDeriver,
  deriveSolanaAddress,
  merchantWalletPublicParts,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { generateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runChainpayWallet } from './commands.js'
import { type ConnectionTrap, startConnectionTrap } from './testing/connection-trap.js'

let dir: string
let trap: ConnectionTrap
const printed: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-keys-'))
  trap = await startConnectionTrap()
})

afterAll(async () => {
  await trap.close()
  rmSync(dir, { recursive: true, force: true })
})

async function keys(argv: string[], prompts: string[] = []) {
  const out: string[] = []
  const err: string[] = []
  const asked: string[] = []
  const code = await runChainpayWallet(['keys', ...argv], {
    env: {},
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: async (question) => {
      asked.push(question)
      const answer = prompts.shift()
      if (answer === undefined) throw new Error('no more prompts in this test')
      return answer
    },
    now: () => new Date(),
  })
  printed.push(...out, ...err)
  return { code, out, err, asked }
}

function mnemonicFile(name: string, mnemonic: string): string {
  const path = join(dir, name)
  writeFileSync(path, `${mnemonic}\n`, { mode: 0o600 })
  return path
}

const newMnemonic = () => generateMnemonic(wordlist, 256)

describe('chainpay-wallet keys', () => {
  // first in this file: the guards in place are the ones keys installed
  it('prints the TRON account xpub and writes the Solana seed to a file of mode 0600, offline', async () => {
    const tronMnemonic = newMnemonic()
    const solanaMnemonic = newMnemonic()
    const seedOut = join(dir, 'merchant.seed')
    const run = await keys([
      '--tron-mnemonic-file',
      mnemonicFile('tron', tronMnemonic),
      '--solana-mnemonic-file',
      mnemonicFile('solana', solanaMnemonic),
      '--solana-seed-out',
      seedOut,
    ])
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)

    const tron = walletFromMnemonic(tronMnemonic)
    const { solanaSeed } = walletFromMnemonic(solanaMnemonic)
    expect(readFileSync(seedOut, 'utf8')).toBe(`${solanaSeed}\n`)
    expect(statSync(seedOut).mode & 0o777).toBe(0o600)
    const parts = merchantWalletPublicParts({ tronAccountXpub: tron.tronAccountXpub, solanaSeed })
    expect(run.out).toEqual([
      `TRON account xpub (m/44'/195'/0'): ${tron.tronAccountXpub}`,
      `Solana address 0 (m/44'/501'/0'/0'): ${deriveSolanaAddress(solanaSeed, 0).address}`,
      `Wallet id: ${parts.walletId}`,
      `Solana seed written to ${seedOut} (mode 0600): carry it to the operator, then wipe it`,
      `chainpay-admin merchants wallet set MERCHANT_ID --tron-xpub ${tron.tronAccountXpub} --solana-seed-file ${seedOut}`,
    ])
    // the xpub gives the addresses a TRON wallet importing the mnemonic shows, m/44'/195'/0'/0/i
    expect(createTronAddressDeriver(tron.tronAccountXpub)(0).derivationPath).toBe("m/44'/195'/0'/0/0")

    // the network stays refused for the rest of the process
    expect(() => connect(trap.port, '127.0.0.1')).toThrow(
      'chainpay-wallet keys works offline: net.connect refused',
    )
    await expect(fetch(`http://127.0.0.1:${trap.port}/`)).rejects.toThrow(/keys works offline: fetch refused/)
    expect(trap.connections()).toBe(0)

    const everything = printed.join('\n').toLowerCase()
    for (const secret of [tronMnemonic, solanaMnemonic, solanaSeed, tron.solanaSeed]) {
      expect(everything).not.toContain(secret.toLowerCase())
    }
  })

  it("writes the operator's wallet file, what payment-command's WALLET_FILE reads, mode 0600", async () => {
    const [tronMnemonic, solanaMnemonic] = [newMnemonic(), newMnemonic()]
    const walletOut = join(dir, 'wallet.json')
    const run = await keys(['--wallet-out', walletOut], [tronMnemonic, solanaMnemonic])
    expect(run).toMatchObject({ code: 0, err: [] })
    const tron = walletFromMnemonic(tronMnemonic)
    const { solanaSeed } = walletFromMnemonic(solanaMnemonic)
    expect(JSON.parse(readFileSync(walletOut, 'utf8'))).toEqual({
      tronAccountXpub: tron.tronAccountXpub,
      solanaSeed,
    })
    expect(statSync(walletOut).mode & 0o777).toBe(0o600)
    expect(run.out.slice(3)).toEqual([
      `Wallet file written to ${walletOut} (mode 0600): carry it to the server as payment-command's WALLET_FILE (chainpay user only), then wipe this copy`,
    ])
    expect(run.out.join('\n')).not.toContain(solanaSeed)
    const again = await keys(['--wallet-out', walletOut], [newMnemonic(), newMnemonic()])
    expect(again.err).toEqual([
      `error: --wallet-out: cannot create ${walletOut}: it exists, and is never overwritten: name a new file`,
    ])
  })

  it('asks for each mnemonic at a prompt when no file gives it', async () => {
    const seedOut = join(dir, 'prompted.seed')
    const [tronMnemonic, solanaMnemonic] = [newMnemonic(), newMnemonic()]
    const run = await keys(['--solana-seed-out', seedOut], [tronMnemonic, solanaMnemonic])
    expect(run.code, run.err.join('\n')).toBe(0)
    expect(run.asked).toEqual(['TRON mnemonic (not shown): ', 'Solana mnemonic (not shown): '])
    expect(run.out[0]).toContain(walletFromMnemonic(tronMnemonic).tronAccountXpub)
    expect(readFileSync(seedOut, 'utf8').trim()).toBe(walletFromMnemonic(solanaMnemonic).solanaSeed)
  })

  it('refuses one mnemonic for both chains, a bad mnemonic, a seed file already there, and online options', async () => {
    const mnemonic = newMnemonic()
    const path = mnemonicFile('both', mnemonic)
    const seedOut = join(dir, 'refused.seed')
    const both = await keys([
      '--tron-mnemonic-file',
      path,
      '--solana-mnemonic-file',
      path,
      '--solana-seed-out',
      seedOut,
    ])
    expect(both).toMatchObject({ code: 1, out: [] })
    expect(both.err).toEqual([
      'error: the Solana mnemonic is the TRON one: the Solana seed would sign for the TRON addresses too; use a mnemonic of its own for Solana (docs/security.md, "Key material")',
    ])
    expect(() => statSync(seedOut)).toThrow(/ENOENT/)

    const words = mnemonic.split(' ')
    const swapped = [...words.slice(0, -1), 'notaword'].join(' ')
    const bad = await keys(
      ['--tron-mnemonic-file', mnemonicFile('bad', swapped), '--solana-seed-out', seedOut],
      [newMnemonic()],
    )
    expect(bad.err).toEqual([
      'error: --tron-mnemonic-file: not a valid BIP39 English mnemonic (unknown word, wrong length or bad checksum)',
    ])

    const existing = join(dir, 'existing.seed')
    writeFileSync(existing, 'kept\n', { mode: 0o600 })
    const clobber = await keys(['--tron-mnemonic-file', path, '--solana-seed-out', existing], [newMnemonic()])
    expect(clobber.err).toEqual([
      `error: --solana-seed-out: cannot create ${existing}: it exists, and is never overwritten: name a new file`,
    ])
    expect(readFileSync(existing, 'utf8')).toBe('kept\n')

    expect((await keys(['--tron-mnemonic-file', path])).err).toEqual([
      'error: --solana-seed-out (for chainpay-admin merchants wallet set) or --wallet-out (for WALLET_FILE) is required',
    ])
    expect((await keys(['--solana-seed-out', seedOut, '--url', 'http://127.0.0.1:8081'])).err).toEqual([
      'error: keys works offline and takes no --url',
    ])
    expect(printed.join('\n')).not.toContain(words.slice(0, 3).join(' '))
  })

  it('refuses a mnemonic file other users can read, as chainpay-admin refuses a seed file', async () => {
    const seedOut = join(dir, 'shared.seed')
    for (const mode of [0o644, 0o640, 0o604]) {
      const path = join(dir, `shared-${mode.toString(8)}`)
      writeFileSync(path, newMnemonic())
      chmodSync(path, mode)
      const run = await keys(['--tron-mnemonic-file', path, '--solana-seed-out', seedOut], [newMnemonic()])
      expect(run).toMatchObject({ code: 1, out: [], asked: [] })
      expect(run.err).toEqual([
        `error: --tron-mnemonic-file: ${path} is open to other users (mode 0${mode.toString(8)}): run chmod 600 ${path}, or leave the option out and type it at the prompt`,
      ])
    }
    expect(() => statSync(seedOut)).toThrow(/ENOENT/)
  })
})

// `chainpay-wallet mnemonic` and `treasury` run in process: offline, a new mnemonic only in a file of
// mode 0600 (or on stdout when asked), the treasury's address cross-checked against tronweb and
// @solana/web3.js for the public test mnemonic, its key written only where asked.

import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { Keypair } from '@solana/web3.js'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runChainpayWallet } from './commands.js'

/** BIP39's public test mnemonic: its keys hold nothing and must never hold anything */
const TEST_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-offline-keys-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function wallet(argv: string[], prompts: string[] = []) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet(argv, {
    env: {},
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: async () => {
      const answer = prompts.shift()
      if (answer === undefined) throw new Error('no more prompts in this test')
      return answer
    },
    now: () => new Date(),
  })
  return { code, out, err }
}

function mnemonicFile(name: string, mnemonic: string, mode = 0o600): string {
  const path = join(dir, name)
  writeFileSync(path, `${mnemonic}\n`, { mode })
  chmodSync(path, mode)
  return path
}

describe('chainpay-wallet mnemonic', () => {
  it('writes a new 24-word mnemonic to a new file of mode 0600 and prints none of it, offline', async () => {
    const path = join(dir, 'new.mnemonic')
    const run = await wallet(['mnemonic', '--out', path])
    expect(run).toMatchObject({ code: 0, err: [] })
    const words = readFileSync(path, 'utf8').trim()
    expect(words.split(' ')).toHaveLength(24)
    expect(validateMnemonic(words, wordlist)).toBe(true)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(run.out).toEqual([
      `New 24-word mnemonic written to ${path} (mode 0600). Write it down on paper, keep it offline, then wipe the file once its keys are made.`,
    ])
    // the one line printed is that fixed sentence: no word of the mnemonic is printed (a word of it
    // may well be one of the sentence's own, "keep" or "paper")
    expect(() => connect(9, '127.0.0.1')).toThrow(/works offline: net.connect refused/)

    // a second one is another mnemonic; an existing file is never overwritten
    const second = join(dir, 'second.mnemonic')
    expect((await wallet(['mnemonic', '--out', second])).code).toBe(0)
    expect(readFileSync(second, 'utf8')).not.toBe(readFileSync(path, 'utf8'))
    const again = await wallet(['mnemonic', '--out', path])
    expect(again.err).toEqual([
      `error: --out: cannot create ${path}: it exists, and is never overwritten: name a new file`,
    ])
    expect(readFileSync(path, 'utf8').trim()).toBe(words)
  })

  it('prints it, and only it, with --out -; takes no online option', async () => {
    const run = await wallet(['mnemonic', '--out', '-'])
    expect(run).toMatchObject({ code: 0, err: [] })
    expect(run.out).toHaveLength(1)
    expect(validateMnemonic(run.out[0] ?? '', wordlist)).toBe(true)
    expect((await wallet(['mnemonic'])).err).toEqual(['error: --out is required'])
    expect((await wallet(['mnemonic', '--out', '-', '--url', 'http://127.0.0.1:8081'])).err).toEqual([
      'error: mnemonic works offline and takes no --url',
    ])
  })
})

describe('chainpay-wallet treasury', () => {
  it("prints the TRON treasury at m/44'/195'/1'/0/0, the address tronweb derives there", async () => {
    const run = await wallet([
      'treasury',
      '--chain',
      'TRON',
      '--mnemonic-file',
      mnemonicFile('tron', TEST_MNEMONIC),
    ])
    const expected = TronWeb.fromMnemonic(TEST_MNEMONIC, "m/44'/195'/1'/0/0")
    expect(expected.address).toBe('TLrpNTBuCpGMrB9TyVwgEhNVRhtWEQPHh4')
    expect(run).toEqual({
      code: 0,
      err: [],
      out: [
        "TRON treasury (m/44'/195'/1'/0/0): TLrpNTBuCpGMrB9TyVwgEhNVRhtWEQPHh4",
        'plan with --network TRON --treasury TLrpNTBuCpGMrB9TyVwgEhNVRhtWEQPHh4; sign derives its key from the TRON mnemonic',
      ],
    })

    // another path, and its key for --treasury-key-file: the one tronweb derives
    const keyOut = join(dir, 'tron-treasury.key')
    const other = await wallet(
      ['treasury', '--chain', 'TRON', '--path', "m/44'/195'/2'/0/0", '--key-out', keyOut],
      [TEST_MNEMONIC],
    )
    const at2 = TronWeb.fromMnemonic(TEST_MNEMONIC, "m/44'/195'/2'/0/0")
    expect(other.out[0]).toBe(`TRON treasury (m/44'/195'/2'/0/0): ${at2.address}`)
    expect(other.out[1]).toBe(
      `Its key written to ${keyOut} (mode 0600): sign with --treasury-key-file ${keyOut}`,
    )
    expect(`0x${readFileSync(keyOut, 'utf8').trim()}`).toBe(at2.privateKey)
    expect(statSync(keyOut).mode & 0o777).toBe(0o600)
    expect(other.out.join('\n')).not.toContain(at2.privateKey.slice(2))
  })

  it("prints the Solana treasury at m/44'/501'/0'/0' and writes the key @solana/web3.js loads", async () => {
    const keyOut = join(dir, 'solana-treasury.json')
    const run = await wallet([
      'treasury',
      '--chain',
      'SOLANA',
      '--mnemonic-file',
      mnemonicFile('solana', TEST_MNEMONIC),
      '--key-out',
      keyOut,
    ])
    // the published vector (Phantom's first account of this mnemonic)
    const address = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'
    expect(run).toEqual({
      code: 0,
      err: [],
      out: [
        `Solana treasury (m/44'/501'/0'/0'): ${address}`,
        `Its key written to ${keyOut} (mode 0600): sign with --treasury-key-file ${keyOut}`,
        `plan with --network SOLANA --treasury ${address} --treasury-external; sign with --treasury-key-file ${keyOut}`,
      ],
    })
    const keypair = Keypair.fromSecretKey(
      Uint8Array.from(JSON.parse(readFileSync(keyOut, 'utf8')) as number[]),
    )
    expect(keypair.publicKey.toBase58()).toBe(address)
    expect(statSync(keyOut).mode & 0o777).toBe(0o600)
  })

  it('refuses a shared mnemonic file, a path of another chain, a bad mnemonic and an unknown chain', async () => {
    const shared = mnemonicFile('shared', TEST_MNEMONIC, 0o644)
    expect((await wallet(['treasury', '--chain', 'TRON', '--mnemonic-file', shared])).err).toEqual([
      `error: --mnemonic-file: ${shared} is open to other users (mode 0644): run chmod 600 ${shared}, or leave the option out and type it at the prompt`,
    ])
    expect(
      (await wallet(['treasury', '--chain', 'SOLANA', '--path', "m/44'/195'/1'/0/0"], [TEST_MNEMONIC])).err,
    ).toEqual(["error: --path: a SOLANA key's path starts with m/44'/501', got m/44'/195'/1'/0/0"])
    expect(
      (await wallet(['treasury', '--chain', 'TRON'], [TEST_MNEMONIC.replace('about', 'abandon')])).err,
    ).toEqual([
      'error: the mnemonic: not a valid BIP39 English mnemonic (unknown word, wrong length or bad checksum)',
    ])
    expect((await wallet(['treasury', '--chain', 'DOGE'])).err).toEqual([
      'error: --chain: TRON or SOLANA, got DOGE',
    ])
  })
})

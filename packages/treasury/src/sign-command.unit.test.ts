// `chainpay-wallet sign` run in process: offline (a connection attempt during and after it fails),
// checks every address and every effect against the plan, and writes no key material anywhere.

import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ed25519 } from '@noble/curves/ed25519.js'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import { Keypair, PublicKey, SystemProgram, VersionedTransaction } from '@solana/web3.js'
import { Trx } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runChainpayWallet } from './commands.js'
import type { SignedSweep, SweepPlan } from './sweep-plan.js'
import { type ConnectionTrap, startConnectionTrap } from './testing/connection-trap.js'
import {
  offlineSolanaOwnerPlan,
  offlineSolanaPlan,
  offlineTronOutgoingPlan,
  offlineTronPlan,
  redirectedSolanaMessage,
  type TestWallet,
  testWallet,
  treasuryTransferTo,
  USDT_SOLANA_MINT,
} from './testing/offline-plan.js'

let dir: string
let trap: ConnectionTrap
const lines: string[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chainpay-sign-'))
  trap = await startConnectionTrap()
})

afterAll(async () => {
  await trap.close()
  rmSync(dir, { recursive: true, force: true })
})

async function sign(plan: SweepPlan, wallet: TestWallet, name: string, extra: string[] = [], mode = 0o600) {
  const planPath = join(dir, `${name}.plan.json`)
  const mnemonicPath = join(dir, `${name}.mnemonic`)
  writeFileSync(planPath, JSON.stringify(plan))
  writeFileSync(mnemonicPath, `${wallet.mnemonic}\n`, { mode })
  chmodSync(mnemonicPath, mode)
  const out: string[] = []
  const err: string[] = []
  const signedPath = join(dir, `${name}.signed.json`)
  const code = await runChainpayWallet(
    ['sign', '--plan', planPath, '--out', signedPath, '--mnemonic-file', mnemonicPath, ...extra],
    {
      env: {},
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      promptSecret: async () => {
        throw new Error('no prompt in tests')
      },
      now: () => new Date(),
    },
  )
  lines.push(...out, ...err)
  rmSync(mnemonicPath)
  return { code, out, err, signedPath }
}

describe('chainpay-wallet sign', () => {
  // first in this file: the guards it sees are the ones sign itself installed
  it('refuses a connection attempted while it runs: here while it asks for the mnemonic', async () => {
    const wallet = testWallet()
    const planPath = join(dir, 'during.plan.json')
    writeFileSync(planPath, JSON.stringify(offlineSolanaPlan(wallet)))
    const attempts: string[] = []
    const code = await runChainpayWallet(
      ['sign', '--plan', planPath, '--out', join(dir, 'during.signed.json')],
      {
        env: {},
        out: (line) => lines.push(line),
        err: (line) => lines.push(line),
        promptSecret: async () => {
          for (const attempt of [
            () => fetch(`http://127.0.0.1:${trap.port}/`),
            async () => connect(trap.port, '127.0.0.1'),
            async () => (await import('node:dns')).promises.lookup('example.com'),
          ]) {
            await attempt().then(
              () => attempts.push('connected'),
              (error: Error) => attempts.push(error.message),
            )
          }
          return wallet.mnemonic
        },
        now: () => new Date(),
      },
    )
    expect(code).toBe(0)
    expect(attempts).toEqual([
      'chainpay-wallet sign works offline: fetch refused',
      'chainpay-wallet sign works offline: net.connect refused',
      'chainpay-wallet sign works offline: dns.promises.lookup refused',
    ])
    expect(trap.connections()).toBe(0)
  })

  it('given a TRON plan, signs each transaction with the key of its path, refusing the network from the start', async () => {
    const wallet = testWallet()
    const plan = await offlineTronPlan(wallet)
    const run = await sign(plan, wallet, 'tron')
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    const signed = JSON.parse(readFileSync(run.signedPath, 'utf8')) as SignedSweep
    expect(signed.steps.map((step) => step.txId)).toEqual(
      plan.steps.map((step) => step.tron?.transaction.txID),
    )
    const transfer = plan.steps[2]?.tron?.transaction.raw_data
    expect(transfer?.expiration).toBe(plan.steps[0]?.tron?.transaction.raw_data.expiration)
    expect(transfer?.fee_limit).toBe(20_000_000)
    for (const [index, step] of signed.steps.entries()) {
      // the signature recovers to the signer the plan names, through tronweb's own ecRecover
      expect(Trx.ecRecover(step.tron as never)).toBe(plan.steps[index]?.signers[0]?.address)
    }

    // the guards are in place for the rest of this process: nothing reaches the listening server
    expect(() => connect(trap.port, '127.0.0.1')).toThrow(/offline: net.connect refused/)
    await expect(fetch(`http://127.0.0.1:${trap.port}/`)).rejects.toThrow(/offline: fetch refused/)
    expect(() => request(`http://127.0.0.1:${trap.port}/`).end()).toThrow(/offline/)
    expect(trap.connections()).toBe(0)
    assertNoSecretIn(wallet)
  })

  it('given a Solana plan, signs as fee-paying treasury and as payment address', async () => {
    const wallet = testWallet()
    const plan = offlineSolanaPlan(wallet)
    const run = await sign(plan, wallet, 'sol')
    expect(run.code, run.err.join('\n')).toBe(0)
    const signed = JSON.parse(readFileSync(run.signedPath, 'utf8')) as SignedSweep
    const transaction = VersionedTransaction.deserialize(
      Buffer.from(signed.steps[0]?.solana?.transaction ?? '', 'base64'),
    )
    const keys = transaction.message.staticAccountKeys
    expect(keys[0]?.toBase58()).toBe(plan.treasury.address)
    const body = transaction.message.serialize()
    for (const [index, signature] of transaction.signatures.entries()) {
      expect(ed25519.verify(signature, body, keys[index]?.toBytes() ?? new Uint8Array())).toBe(true)
    }
    assertNoSecretIn(wallet)
  })

  it('given a message sweeping an owner whole (every token account, every mint, its SOL), checks each instruction', async () => {
    const wallet = testWallet()
    const whole = await sign(offlineSolanaOwnerPlan(wallet), wallet, 'whole')
    expect(whole.code, whole.err.join('\n')).toBe(0)

    // one instruction among many that pays another owner is enough to refuse the message
    const tampered: Array<[string, Parameters<typeof offlineSolanaOwnerPlan>[1]]> = [
      [
        'a close to another owner',
        (instructions, thief) =>
          instructions.map((instruction, index) =>
            index === 3
              ? createCloseAccountInstruction(
                  instruction.keys[0]?.pubkey ?? thief,
                  thief,
                  instruction.keys[2]?.pubkey ?? thief,
                )
              : instruction,
          ),
      ],
      [
        'SOL to another owner',
        (instructions, thief) => [
          ...instructions.slice(0, -1),
          SystemProgram.transfer({
            fromPubkey: instructions.at(-1)?.keys[0]?.pubkey ?? thief,
            toPubkey: thief,
            lamports: 200_000_000n,
          }),
        ],
      ],
      [
        'a treasury token account opened for another owner',
        (instructions, thief) =>
          instructions.map((instruction, index) =>
            index === 4
              ? createAssociatedTokenAccountIdempotentInstruction(
                  instruction.keys[0]?.pubkey ?? thief,
                  getAssociatedTokenAddressSync(new PublicKey(USDT_SOLANA_MINT), thief),
                  thief,
                  new PublicKey(USDT_SOLANA_MINT),
                )
              : instruction,
          ),
      ],
    ]
    for (const [index, [what, tamper]] of tampered.entries()) {
      const other = testWallet()
      const run = await sign(offlineSolanaOwnerPlan(other, tamper), other, `whole-${index}`)
      expect(run.err, what).toEqual([
        expect.stringMatching(/an instruction that a sweep to \w+ does not make; refused/),
      ])
    }
  })

  it('signs a message that advances a durable nonce of the treasury', async () => {
    const wallet = testWallet()
    const plan = offlineSolanaPlan(wallet, { nonceAccount: Keypair.generate().publicKey })
    const run = await sign(plan, wallet, 'nonce')
    expect(run.code, run.err.join('\n')).toBe(0)
  })

  it('refuses a mnemonic that does not give the addresses of the plan, naming the path', async () => {
    const plan = await offlineTronPlan(testWallet())
    const other = testWallet()
    const run = await sign(plan, other, 'wrong')
    expect(run.code).toBe(1)
    expect(run.err[0]).toMatch(
      /^error: the key at m\/44'\/195'\/\d+'\/0\/\d+ gives T\w+, the plan says T\w+: wrong mnemonic/,
    )
    expect(readdirSync(dir)).not.toContain('wrong.signed.json')
  })

  it('refuses a plan whose transaction was altered, or that sends anywhere but the treasury', async () => {
    const wallet = testWallet()
    const plan = await offlineTronPlan(wallet)
    const transfer = plan.steps[2]?.tron?.transaction
    if (!transfer) throw new Error('no transfer')
    // raw_data says one thing, raw_data_hex another: refused before anything is checked or signed
    const tampered = structuredClone(plan)
    const value = tampered.steps[2]?.tron?.transaction.raw_data.contract[0]?.parameter.value
    if (value) value.data = `${String(value.data).slice(0, -2)}ff`
    expect((await sign(tampered, wallet, 'tampered')).err[0]).toMatch(
      /raw_data, raw_data_hex and txID do not agree/,
    )

    // the treasury funding an address the mnemonic does not give, listed among the sweeps: refused
    const attacker = 'TLsV52sRDL79HXGGm9yzwKibb6BeruhUzy'
    const funding = structuredClone(plan)
    const fund = funding.steps[0]
    if (fund?.tron) fund.tron.transaction = await treasuryTransferTo(funding, attacker)
    funding.sweeps.push({ ...(funding.sweeps[0] as SweepPlan['sweeps'][number]), address: attacker })
    expect((await sign(funding, wallet, 'funding')).err[0]).toMatch(
      /a TransferContract that a sweep to T\w+ does not make; refused/,
    )

    // a consistent transaction that pays another address: refused for what it does
    const thief = Keypair.generate().publicKey
    const solanaWallet = testWallet()
    const solanaPlan = offlineSolanaPlan(solanaWallet)
    const step = solanaPlan.steps[0]
    if (step?.solana) step.solana.message = redirectedSolanaMessage(solanaPlan, thief)
    const run = await sign(solanaPlan, solanaWallet, 'redirected')
    expect(run.code).toBe(1)
    expect(run.err[0]).toMatch(/an instruction that a sweep to \w+ does not make; refused/)
  })

  it('takes no node or admin API address', async () => {
    const wallet = testWallet()
    const run = await sign(offlineSolanaPlan(wallet), wallet, 'url', [
      '--rpc-url',
      `http://127.0.0.1:${trap.port}`,
    ])
    expect(run).toMatchObject({ code: 1, err: ['error: sign works offline and takes no --rpc-url'] })
    expect(trap.connections()).toBe(0)
  })

  it('refuses a mnemonic file or a treasury key file other users can read, as chainpay-admin refuses a seed file', async () => {
    const wallet = testWallet()
    const plan = offlineSolanaPlan(wallet)
    const shared = await sign(plan, wallet, 'shared', [], 0o644)
    const mnemonicPath = join(dir, 'shared.mnemonic')
    expect(shared).toMatchObject({ code: 1, out: [] })
    expect(shared.err).toEqual([
      `error: --mnemonic-file: ${mnemonicPath} is open to other users (mode 0644): run chmod 600 ${mnemonicPath}, or leave the option out and type it at the prompt`,
    ])
    expect(() => readFileSync(shared.signedPath)).toThrow(/ENOENT/)

    const keyPath = join(dir, 'shared-treasury.json')
    writeFileSync(keyPath, JSON.stringify([...Keypair.generate().secretKey]))
    chmodSync(keyPath, 0o640)
    const key = await sign(plan, wallet, 'shared-key', ['--treasury-key-file', keyPath])
    expect(key.err).toEqual([
      `error: --treasury-key-file: ${keyPath} is open to other users (mode 0640): run chmod 600 ${keyPath}`,
    ])
    rmSync(keyPath)
  })

  it('refuses an invalid mnemonic without repeating it', async () => {
    const wallet = testWallet()
    const plan = offlineSolanaPlan(wallet)
    const broken = { ...wallet, mnemonic: `${wallet.mnemonic.split(' ').slice(0, -1).join(' ')} chainpay` }
    const run = await sign(plan, broken, 'invalid')
    expect(run.code).toBe(1)
    expect(run.err).toEqual([
      'error: the mnemonic is not a valid BIP39 English mnemonic (word, length or checksum)',
    ])
  })
})

/** every file the runs wrote, and every line they printed, free of the mnemonic and the keys */
function assertNoSecretIn(wallet: TestWallet): void {
  expect(wallet.secrets.length).toBeGreaterThan(2)
  const written = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'))
  const everything = [...written, ...lines].join('\n')
  expect(everything).not.toContain(wallet.mnemonic)
  for (const word of [wallet.mnemonic.split(' ').slice(0, 4).join(' ')])
    expect(everything).not.toContain(word)
  for (const secret of wallet.secrets) expect(everything.toLowerCase()).not.toContain(secret.toLowerCase())
}

describe('chainpay-wallet sign: refunds and payouts', () => {
  it('given a plan that pays a refund, prints its recipient and amount before it asks for the mnemonic, and signs', async () => {
    const wallet = testWallet()
    const recipient = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
    const plan = await offlineTronOutgoingPlan(wallet, recipient)
    const planPath = join(dir, 'refund.plan.json')
    writeFileSync(planPath, JSON.stringify(plan))
    const out: string[] = []
    let shownAtPrompt: string[] = []
    const code = await runChainpayWallet(
      ['sign', '--plan', planPath, '--out', join(dir, 'refund.signed.json')],
      {
        env: {},
        out: (line) => out.push(line),
        err: (line) => out.push(line),
        promptSecret: async () => {
          shownAtPrompt = [...out]
          return wallet.mnemonic
        },
        now: () => new Date(),
      },
    )
    lines.push(...out)
    expect(code).toBe(0)
    expect(shownAtPrompt).toEqual([
      `TRON_NILE: the treasury ${plan.treasury.address} pays 1 refunds and payouts (plan ${plan.planId}); compare each with the admin API's list (GET /admin/v1/outgoing?status=sending) before you sign:`,
      `  pays refund r_offline (merchant mer_test): 25 USDT to ${recipient}`,
    ])
    const signed = JSON.parse(readFileSync(join(dir, 'refund.signed.json'), 'utf8')) as SignedSweep
    expect([signed.version, signed.planId, signed.outgoing?.[0]?.stepId]).toEqual([
      2,
      plan.planId,
      'pay:refund:r_offline',
    ])
    expect(signed.steps.map((step) => step.outgoing?.role)).toEqual(['activate', 'pay'])
  })

  it('refuses a plan whose refund names another address than its transactions pay, before it reads a key', async () => {
    const wallet = testWallet()
    const plan = await offlineTronOutgoingPlan(wallet, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')
    const item = plan.outgoing?.[0]
    if (item === undefined) throw new Error('no item')
    item.address = 'TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH'
    const run = await sign(plan, wallet, 'redirected-refund')
    expect(run.code).toBe(1)
    expect(run.err).toEqual([
      'error: step activate:refund:r_offline: its transaction does activate 0.000001 TRX to TJRabPrwbZy45sbavfcjinPJC18kjpRTv8, and refund r_offline says activate 0.000001 TRX to TLyqzVGLV1srkB7dToTAEqgDSfPtXRJZYH; refused',
    ])
    // a step that names an item the plan does not pay is refused too
    const unnamed = await offlineTronOutgoingPlan(wallet, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')
    unnamed.outgoing = []
    const refused = await sign(unnamed, wallet, 'unnamed-refund')
    expect(refused.code).toBe(1)
    expect(refused.err[0]).toMatch(
      /^error: step activate:refund:r_offline: it names refund:r_offline, which the plan does not pay/,
    )
  })
})

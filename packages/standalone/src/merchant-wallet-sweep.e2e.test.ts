// A merchant's own wallet end to end (docs/treasury.md, "A wallet's keys" and "Merchant wallets"):
// the merchant makes its xpub and seed offline with `chainpay-wallet keys`, the operator sets them
// with `chainpay-admin merchants wallet set`, the merchant's next payments derive from its wallet
// from index 0, and `chainpay-wallet plan --wallet` sweeps them alone, signed offline with the
// merchant's mnemonics, into the merchant's treasury; the operator's wallet cannot sign them, and
// the payment made before the wallet keeps its address and its funds.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runChainpayAdmin } from '@chainpay/cli'
import { systemClock } from '@chainpay/platform'
import type { SweepPlan } from '@chainpay/treasury'
import { deriveSolanaAddress, deriveTronAddress, tronAddressFromPublicKey } from '@chainpay/wallet'
import { HDKey } from '@scure/bip32'
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmedPayment, type PaymentBody, pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { paymentPaths, walletRuns } from './testing/wallet-runs.js'

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

let standalone: InProcessStandalone
let dir: string
const printed: string[] = []
const { online: wallet, offline: walletProcess } = walletRuns(() => standalone, printed)
/** the merchant's, never the operator's */
const mnemonics = { TRON: generateMnemonic(wordlist, 256), SOLANA: generateMnemonic(wordlist, 256) }
let xpub: string
let walletId: string
/** paid before the merchant had a wallet: derived from the operator's */
const before: Record<'TRON' | 'SOLANA', PaymentBody | undefined> = { TRON: undefined, SOLANA: undefined }

async function admin(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayAdmin(argv, {
    env: { CHAINPAY_ADMIN_URL: standalone.adminUrl, CHAINPAY_ADMIN_TOKEN: standalone.adminToken() },
    output: { out: (line) => out.push(line), err: (line) => err.push(line) },
    readStdin: () => Promise.reject(new Error('no stdin in this test')),
  })
  printed.push(...out, ...err)
  return { code, out, err }
}

/** a payment of the demo merchant, paid in full and confirmed */
function paid(network: string, currency: string, amount: string): Promise<PaymentBody> {
  return confirmedPayment(standalone, { network, currency, amount })
}

/** a file only its owner reads, removed once `use` is done with it */
async function secretFile<T>(name: string, text: string, use: (path: string) => Promise<T>): Promise<T> {
  const path = join(dir, name)
  writeFileSync(path, text, { mode: 0o600 })
  try {
    return await use(path)
  } finally {
    rmSync(path, { force: true })
  }
}

/** plan the merchant wallet's addresses on `network`, sign with `mnemonic` offline, broadcast */
async function sweepMerchantWallet(
  network: 'TRON' | 'SOLANA',
  name: string,
  planArgs: string[],
  signArgs: string[] = [],
): Promise<SweepPlan> {
  const rpcUrl = `${standalone.baseUrl}/chains/${network}`
  const planPath = join(dir, `${name}.plan.json`)
  const signedPath = join(dir, `${name}.signed.json`)
  const plan = await wallet([
    'plan',
    '--network',
    network,
    '--wallet',
    walletId,
    '--rpc-url',
    rpcUrl,
    '--out',
    planPath,
    ...planArgs,
  ])
  expect(plan.err).toEqual([])
  const sweepPlan = JSON.parse(readFileSync(planPath, 'utf8')) as SweepPlan
  if (sweepPlan.steps.length === 0) return sweepPlan

  const signed = await secretFile(`${name}.mnemonic`, mnemonics[network], (path) =>
    walletProcess(['sign', '--plan', planPath, '--out', signedPath, '--mnemonic-file', path, ...signArgs]),
  )
  expect(signed.err).toEqual([])
  const sent = await wallet([
    'broadcast',
    '--signed',
    signedPath,
    '--rpc-url',
    rpcUrl,
    '--poll-ms',
    '50',
    '--max-polls',
    '400',
  ])
  expect(sent.err).toEqual([])

  // the operator's mnemonic does not sign the merchant's addresses (after the broadcast: a Solana
  // plan's blockhash leaves a few seconds at the simulator's block rate)
  const operatorMnemonic = (
    JSON.parse(readFileSync(join(standalone.dataDir, 'dev-wallet.json'), 'utf8')) as { mnemonic: string }
  ).mnemonic
  const refused = await secretFile(`${name}.operator`, operatorMnemonic, (path) =>
    walletProcess([
      'sign',
      '--plan',
      planPath,
      '--out',
      join(dir, 'refused.json'),
      '--mnemonic-file',
      path,
      ...signArgs,
    ]),
  )
  expect(refused.code).toBe(1)
  expect(refused.err[0]).toMatch(/wrong mnemonic/)

  return sweepPlan
}

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-merchant-wallet-e2e-'))
  before.TRON = await paid('TRON', 'TRX', '3')
  before.SOLANA = await paid('SOLANA', 'SOL', '0.3')

  // the merchant, offline
  const seedFile = join(dir, 'merchant.seed')
  const keys = await secretFile('tron.mnemonic', mnemonics.TRON, (tron) =>
    secretFile('solana.mnemonic', mnemonics.SOLANA, (solana) =>
      walletProcess([
        'keys',
        '--tron-mnemonic-file',
        tron,
        '--solana-mnemonic-file',
        solana,
        '--solana-seed-out',
        seedFile,
      ]),
    ),
  )
  expect(keys.err).toEqual([])
  xpub = /^TRON account xpub \(m\/44'\/195'\/0'\): (\S+)$/.exec(keys.out[0] ?? '')?.[1] ?? ''
  walletId = /^Wallet id: (w_[0-9a-f]{20})$/.exec(keys.out[2] ?? '')?.[1] ?? ''

  // the operator
  const merchantId = standalone.demoMerchant().merchantId
  const set = await admin([
    'merchants',
    'wallet',
    'set',
    merchantId,
    '--tron-xpub',
    xpub,
    '--solana-seed-file',
    seedFile,
  ])
  rmSync(seedFile)
  expect(set.err).toEqual([])
  expect(set.out[1]).toBe(`Wallet:           ${walletId}`)
})

afterAll(async () => {
  await standalone?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("a merchant's own wallet, from its mnemonics to its treasury", () => {
  it("TRON: the merchant's payments derive from its xpub from index 0, and its sweep leaves the operator's payment alone", async () => {
    const tronWeb = new TronWeb({ fullHost: `${standalone.baseUrl}/chains/TRON` })
    const treasuryKey = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonics.TRON)).derive("m/44'/195'/1'/0/0")
    const treasury = tronAddressFromPublicKey(treasuryKey.publicKey as Uint8Array)
    const payments = [await paid('TRON', 'TRX', '5'), await paid('TRON', 'USDT', '10')]
    // a treasury that does not exist yet: sending a payment address's whole balance to it could not
    // pay its creation, so no plan is made (docs/treasury.md)
    const refused = await wallet([
      'plan',
      '--network',
      'TRON',
      '--wallet',
      walletId,
      '--treasury',
      treasury,
      '--rpc-url',
      `${standalone.baseUrl}/chains/TRON`,
      '--out',
      join(dir, 'refused.plan.json'),
    ])
    expect(refused.code).not.toBe(0)
    expect(refused.err.join('\n')).toMatch(/is not activated on TRON: send it some TRX first/)
    await pay(standalone, 'TRON', { to: treasury, amount: '1000', currency: 'TRX' })
    await pay(standalone, 'TRON', { to: treasury, amount: '1', currency: 'USDT' })
    expect(payments.map((payment) => payment.generatedAddress)).toEqual([
      deriveTronAddress(xpub, 0).address,
      deriveTronAddress(xpub, 1).address,
    ])
    const usdtOf = async (address: string) => {
      const call = await tronWeb.transactionBuilder.triggerConstantContract(
        USDT,
        'balanceOf(address)',
        {},
        [{ type: 'address', value: address }],
        address,
      )
      return BigInt(`0x${call.constant_result?.[0] || '0'}`)
    }
    const operatorAddress = before.TRON?.generatedAddress ?? ''
    const operatorHeld = BigInt(await tronWeb.trx.getBalance(operatorAddress))
    expect(operatorHeld).toBe(3_000_000n)

    const plan = await sweepMerchantWallet('TRON', 'tron', ['--treasury', treasury, '--rate', 'USDT=3'])
    expect(plan.sweeps.map((sweep) => sweep.paymentId).sort()).toEqual(
      payments.map((payment) => payment.paymentId).sort(),
    )
    for (const payment of payments) expect(await usdtOf(payment.generatedAddress)).toBe(0n)
    // the USDT address keeps the energy headroom it did not burn: 10% of 64,285 energy at 100 sun
    expect(
      await Promise.all(
        payments.map(async (payment) => BigInt(await tronWeb.trx.getBalance(payment.generatedAddress))),
      ),
    ).toEqual([0n, 642_900n])
    expect(await usdtOf(treasury)).toBe(11_000_000n)
    expect(BigInt(await tronWeb.trx.getBalance(operatorAddress))).toBe(operatorHeld)

    const again = await sweepMerchantWallet('TRON', 'tron-again', [
      '--treasury',
      treasury,
      '--rate',
      'USDT=3',
    ])
    // nothing of the payments moves again: the USDT address returns the headroom it did not burn
    expect(again.steps.map((step) => step.id)).toEqual([`sweep:${payments[1]?.generatedAddress}:TRX`])
    expect(again.totals.moved).toEqual({ TRX: '0.3759' })
    const paymentKeys = paymentPaths(plan).map((path) =>
      Buffer.from(
        HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonics.TRON)).derive(path).privateKey ?? [],
      ).toString('hex'),
    )
    expect(paymentKeys).toHaveLength(2)
    assertNoKeyMaterial([Buffer.from(treasuryKey.privateKey as Uint8Array).toString('hex'), ...paymentKeys])
  })

  it("SOLANA: the merchant's payments derive from its seed, swept to a treasury of another key", async () => {
    const connection = new Connection(`${standalone.baseUrl}/chains/SOLANA`, 'confirmed')
    // not derived from the Solana mnemonic, whose seed payment-command holds (docs/treasury.md)
    const treasuryKey = Keypair.generate()
    const treasury = treasuryKey.publicKey.toBase58()
    await pay(standalone, 'SOLANA', { to: treasury, amount: '5', currency: 'SOL' })
    const payments = [await paid('SOLANA', 'SOL', '0.5'), await paid('SOLANA', 'USDC', '10')]
    const seed = mnemonicToSeedSync(mnemonics.SOLANA)
    expect(payments.map((payment) => payment.generatedAddress)).toEqual([
      deriveSolanaAddress(seed, 0).address,
      deriveSolanaAddress(seed, 1).address,
    ])
    const operatorAddress = new PublicKey(before.SOLANA?.generatedAddress ?? '')
    const operatorHeld = await connection.getBalance(operatorAddress)
    expect(operatorHeld).toBe(300_000_000)

    const plan = await secretFile('treasury.json', JSON.stringify([...treasuryKey.secretKey]), (keyFile) =>
      sweepMerchantWallet(
        'SOLANA',
        'sol',
        ['--treasury', treasury, '--treasury-external', '--rate', 'USDC=0.0067'],
        ['--treasury-key-file', keyFile],
      ),
    )
    expect(plan.totals.moved).toEqual({ SOL: '0.5', USDC: '10' })
    for (const payment of payments) {
      expect(await connection.getBalance(new PublicKey(payment.generatedAddress))).toBe(0)
      if (payment.generatedTokenAccount !== null) {
        expect(await connection.getAccountInfo(new PublicKey(payment.generatedTokenAccount))).toBeNull()
      }
    }
    const treasuryUsdc = await connection.getParsedTokenAccountsByOwner(treasuryKey.publicKey, {
      mint: new PublicKey(USDC),
    })
    expect(treasuryUsdc.value.map((account) => account.account.data.parsed.info.tokenAmount.amount)).toEqual([
      '10000000',
    ])
    expect(await connection.getBalance(operatorAddress)).toBe(operatorHeld)
    const paymentKeys = paymentPaths(plan).map((path) =>
      Buffer.from(
        Keypair.fromSeed(Slip10Key.fromMasterSeed(seed).derive(path).privateKey).secretKey,
      ).toString('hex'),
    )
    expect(paymentKeys).toHaveLength(2)
    assertNoKeyMaterial([Buffer.from(treasuryKey.secretKey).toString('hex'), ...paymentKeys])
  })
})

/**
 * what the runs wrote and printed, and what standalone logged: no mnemonic, seed or private key; and
 * standalone's data files (its SQLite database and log, where the seed is kept sealed): no seed nor
 * key, as text or as bytes
 */
function assertNoKeyMaterial(keys: string[]): void {
  const written = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'))
  const everything = [...written, ...printed, standalone.output()].join('\n').toLowerCase()
  for (const mnemonic of Object.values(mnemonics)) {
    expect(everything).not.toContain(mnemonic.split(' ').slice(0, 3).join(' '))
  }
  const seedHex = Buffer.from(mnemonicToSeedSync(mnemonics.SOLANA)).toString('hex')
  expect(everything).not.toContain(seedHex)
  for (const key of keys) expect(everything).not.toContain(key.toLowerCase())
  const dataFiles = readdirSync(standalone.dataDir, { withFileTypes: true }).filter((entry) => entry.isFile())
  expect(dataFiles.map((entry) => entry.name)).toContain('chainpay.sqlite')
  for (const entry of dataFiles) {
    const bytes = readFileSync(join(standalone.dataDir, entry.name))
    for (const secret of [seedHex, ...keys]) {
      expect(bytes.includes(secret)).toBe(false)
      expect(bytes.includes(Buffer.from(secret, 'hex'))).toBe(false)
    }
    for (const mnemonic of Object.values(mnemonics)) expect(bytes.includes(mnemonic)).toBe(false)
  }
}

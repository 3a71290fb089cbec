// Issue 15's end to end (docs/treasury.md): ten payments across TRX, USDT, SOL and USDC paid through
// the simulator, then `chainpay-wallet plan`, `sign` (offline) and `broadcast` with the real tronweb
// and @solana/web3.js against standalone's simulated nodes. Every payment address ends empty (a
// USDT address but for the energy headroom it did not burn), every token account of a Solana owner
// closed whatever its mint, the treasury holds exactly what the plan announced, a second plan sweeps
// nothing, and nothing the runs wrote or logged holds the mnemonic or a derived private key.
//
// It needs the simulator to take signed transactions (docs/chains.md, the simulator's node model):
// each chain's case skips, saying so, while the simulator does not answer that chain's methods.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { systemClock } from '@chainpay/platform'
import type { SweepPlan } from '@chainpay/treasury'
import { associatedTokenAccount, tronAddressFromPublicKey } from '@chainpay/wallet'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmedPayment, type PaymentBody, pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { paymentPaths, walletRuns } from './testing/wallet-runs.js'

const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

let standalone: InProcessStandalone
let dir: string
let mnemonic: string
const printed: string[] = []
const { online: wallet, offline: walletProcess } = walletRuns(() => standalone, printed)

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-sweep-e2e-'))
  mnemonic = (
    JSON.parse(readFileSync(join(standalone.dataDir, 'dev-wallet.json'), 'utf8')) as { mnemonic: string }
  ).mnemonic
})
afterAll(async () => {
  await standalone.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** a payment of the demo merchant, paid in full and confirmed */
function paid(network: string, currency: string, amount: string): Promise<PaymentBody> {
  return confirmedPayment(standalone, { network, currency, amount })
}

/** whether the simulated node answers what a sweep needs, else the reason the case is skipped */
async function nodeTakesSweeps(network: 'TRON' | 'SOLANA'): Promise<boolean> {
  const response =
    network === 'TRON'
      ? await fetch(`${standalone.baseUrl}/chains/TRON/wallet/getchainparameters`, { method: 'POST' })
      : await fetch(`${standalone.baseUrl}/chains/SOLANA`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getFeeForMessage', params: ['', {}] }),
        })
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: number } }
  return response.status === 200 && body.error?.code !== -32601
}

/** plan, sign offline with the standalone's development mnemonic, broadcast: the plan it ran, what broadcast printed */
async function sweep(
  network: string,
  treasury: string,
  name: string,
  extra: string[],
): Promise<{ plan: SweepPlan; broadcast: string[] }> {
  const rpcUrl =
    network === 'TRON' ? `${standalone.baseUrl}/chains/TRON` : `${standalone.baseUrl}/chains/SOLANA`
  const planPath = join(dir, `${name}.plan.json`)
  const signedPath = join(dir, `${name}.signed.json`)
  const mnemonicPath = join(dir, `${name}.mnemonic`)
  const plan = await wallet([
    'plan',
    '--network',
    network,
    '--treasury',
    treasury,
    '--rpc-url',
    rpcUrl,
    '--out',
    planPath,
    ...extra,
  ])
  expect(plan.err).toEqual([])
  writeFileSync(mnemonicPath, mnemonic, { mode: 0o600 })
  const signed = await walletProcess([
    'sign',
    '--plan',
    planPath,
    '--out',
    signedPath,
    '--mnemonic-file',
    mnemonicPath,
  ])
  rmSync(mnemonicPath)
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
  return { plan: JSON.parse(readFileSync(planPath, 'utf8')) as SweepPlan, broadcast: sent.out }
}

function units(decimal: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = decimal.replace(/^-/, '').split('.')
  const value = BigInt(whole + fraction.padEnd(decimals, '0'))
  return decimal.startsWith('-') ? -value : value
}

describe('sweeping ten payments to a treasury through plan, sign and broadcast', () => {
  it('TRON: TRX and USDT addresses emptied, the treasury credited exactly as announced', async (context) => {
    if (!(await nodeTakesSweeps('TRON')))
      context.skip('the simulated TRON node does not take signed transactions yet')
    const seed = mnemonicToSeedSync(mnemonic)
    const treasuryKey = HDKey.fromMasterSeed(seed).derive("m/44'/195'/1'/0/0")
    const treasury = tronAddressFromPublicKey(treasuryKey.publicKey as Uint8Array)
    const derivedKeys = [Buffer.from(treasuryKey.privateKey as Uint8Array).toString('hex')]
    await pay(standalone, 'TRON', { to: treasury, amount: '1000', currency: 'TRX' })
    // a treasury already holding USDT: every transfer to it costs the same energy (docs/treasury.md)
    await pay(standalone, 'TRON', { to: treasury, amount: '1', currency: 'USDT' })
    const payments = [
      await paid('TRON', 'TRX', '5'),
      await paid('TRON', 'TRX', '7.5'),
      await paid('TRON', 'TRX', '12'),
      await paid('TRON', 'USDT', '10'),
      await paid('TRON', 'USDT', '20'),
      await paid('TRON', 'USDT', '30'),
    ]
    const tronWeb = new TronWeb({ fullHost: `${standalone.baseUrl}/chains/TRON` })
    const usdtOf = async (address: string) => {
      const call = await tronWeb.transactionBuilder.triggerConstantContract(
        'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        'balanceOf(address)',
        {},
        [{ type: 'address', value: address }],
        address,
      )
      return BigInt(`0x${call.constant_result?.[0] || '0'}`)
    }
    const treasuryTrxBefore = BigInt(await tronWeb.trx.getBalance(treasury))

    const { plan, broadcast } = await sweep('TRON', treasury, 'tron', ['--rate', 'USDT=3'])
    expect(plan.sweeps).toHaveLength(6)
    expect(plan.totals.moved).toEqual({ TRX: expect.any(String), USDT: '60' })
    for (const payment of payments) expect(await usdtOf(payment.generatedAddress)).toBe(0n)
    // each USDT address keeps the energy headroom it did not burn (10% of 64,285 energy at 100 sun),
    // as the plan announced and broadcast reports
    expect(
      await Promise.all(
        payments.map(async (payment) => BigInt(await tronWeb.trx.getBalance(payment.generatedAddress))),
      ),
    ).toEqual([0n, 0n, 0n, 642_900n, 642_900n, 642_900n])
    expect(plan.totals.headroom).toMatch(
      /up to 1\.9287 TRX of it is left at the payment addresses if not burned$/,
    )
    expect(broadcast).toContain(
      '  1.9287 TRX set aside for energy was not burned: it stays at 3 payment addresses',
    )
    for (const path of paymentPaths(plan)) {
      derivedKeys.push(Buffer.from(HDKey.fromMasterSeed(seed).derive(path).privateKey ?? []).toString('hex'))
    }
    expect(await usdtOf(treasury)).toBe(61_000_000n)
    expect(BigInt(await tronWeb.trx.getBalance(treasury)) - treasuryTrxBefore).toBe(
      units(plan.totals.treasuryNativeChange, 6),
    )
    // moved TRX = paid less the fees announced per sweep
    const trxSweeps = plan.sweeps.filter((entry) => entry.currency === 'TRX')
    const trxFees = trxSweeps.reduce((sum, entry) => sum + units(entry.fee, 6), 0n)
    expect(units(plan.totals.moved.TRX ?? '0', 6)).toBe(24_500_000n - trxFees)

    // a second plan moves nothing of the payments: it returns the headroom the USDT addresses did
    // not burn, less the bandwidth each return burns
    const { plan: again } = await sweep('TRON', treasury, 'tron-again', ['--rate', 'USDT=3'])
    expect(again.steps.map((step) => step.id).sort()).toEqual(
      payments
        .slice(3)
        .map((payment) => `sweep:${payment.generatedAddress}:TRX`)
        .sort(),
    )
    expect(again.totals.moved).toEqual({ TRX: '1.1277' })
    assertNoKeyMaterial(derivedKeys)
  })

  it('SOLANA: SOL and USDC addresses emptied, token accounts closed, the treasury credited as announced', async (context) => {
    if (!(await nodeTakesSweeps('SOLANA')))
      context.skip('the simulated Solana node does not take signed transactions yet')
    const seed = mnemonicToSeedSync(mnemonic)
    const treasuryKey = Keypair.fromSeed(Slip10Key.fromMasterSeed(seed).derive("m/44'/501'").privateKey)
    const treasury = treasuryKey.publicKey.toBase58()
    await pay(standalone, 'SOLANA', { to: treasury, amount: '5', currency: 'SOL' })
    const payments = [
      await paid('SOLANA', 'SOL', '0.5'),
      await paid('SOLANA', 'SOL', '1.25'),
      await paid('SOLANA', 'USDC', '10'),
      await paid('SOLANA', 'USDC', '15'),
    ]
    // the last payment's owner also holds USDC in a token account of its own, USDT in its associated
    // account and SOL: all of it is its address's (decisions 16, 19), all of it is swept
    const owner = payments[3]?.generatedAddress ?? ''
    const opened = await fetch(`${standalone.baseUrl}/dev/chains/SOLANA/token-accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner, currency: 'USDC' }),
    })
    await pay(standalone, 'SOLANA', {
      to: ((await opened.json()) as { address: string }).address,
      amount: '2.5',
      currency: 'USDC',
    })
    await pay(standalone, 'SOLANA', {
      to: associatedTokenAccount(owner, USDT),
      amount: '3',
      currency: 'USDT',
    })
    await pay(standalone, 'SOLANA', { to: owner, amount: '0.1', currency: 'SOL' })
    const connection = new Connection(`${standalone.baseUrl}/chains/SOLANA`, 'confirmed')
    const before = BigInt(await connection.getBalance(treasuryKey.publicKey))

    // no Solana treasury is derived from the payment mnemonic unless named: its seed is online
    const refused = await wallet([
      'plan',
      '--network',
      'SOLANA',
      '--treasury',
      treasury,
      '--rpc-url',
      `${standalone.baseUrl}/chains/SOLANA`,
      '--out',
      join(dir, 'sol-refused.plan.json'),
    ])
    expect(refused.code).not.toBe(0)
    expect(refused.err.join('\n')).toMatch(/--treasury-external .* or accept that with --treasury-path/)
    const treasuryPath = ['--treasury-path', "m/44'/501'"]
    const rates = ['--rate', 'USDC=0.0067', '--rate', 'USDT=0.0067']
    const { plan } = await sweep('SOLANA', treasury, 'sol', [...rates, ...treasuryPath])
    expect(plan.sweeps.map((entry) => entry.paymentId)).toEqual(
      expect.arrayContaining(payments.map((payment) => payment.paymentId)),
    )
    expect(plan.totals.moved).toEqual({ SOL: '1.85', USDC: '27.5', USDT: '3' })
    for (const payment of payments) {
      const address = new PublicKey(payment.generatedAddress)
      expect(await connection.getBalance(address)).toBe(0)
      expect((await connection.getTokenAccountsByOwner(address, { programId: TOKEN_PROGRAM })).value).toEqual(
        [],
      )
    }
    expect(BigInt(await connection.getBalance(treasuryKey.publicKey)) - before).toBe(
      units(plan.totals.treasuryNativeChange, 9),
    )
    const treasuryTokens = await connection.getParsedTokenAccountsByOwner(treasuryKey.publicKey, {
      programId: TOKEN_PROGRAM,
    })
    expect(
      Object.fromEntries(
        treasuryTokens.value.map(({ account }) => [
          account.data.parsed.info.mint,
          account.data.parsed.info.tokenAmount.amount,
        ]),
      ),
    ).toEqual({ [USDC]: '27500000', [USDT]: '3000000' })

    const { plan: again } = await sweep('SOLANA', treasury, 'sol-again', [...rates, ...treasuryPath])
    expect(again.steps).toEqual([])
    const paymentKeys = paymentPaths(plan).map((path) =>
      Buffer.from(
        Keypair.fromSeed(Slip10Key.fromMasterSeed(seed).derive(path).privateKey).secretKey,
      ).toString('hex'),
    )
    expect(paymentKeys).toHaveLength(4)
    assertNoKeyMaterial([Buffer.from(treasuryKey.secretKey).toString('hex'), ...paymentKeys])
  })
})

/** what the runs wrote (plans, signed files, states) and printed, and what standalone logged */
function assertNoKeyMaterial(keys: string[]): void {
  const written = readdirSync(dir).map((name) => readFileSync(join(dir, name), 'utf8'))
  const everything = [...written, ...printed, standalone.output()].join('\n').toLowerCase()
  expect(everything).not.toContain(mnemonic.toLowerCase())
  expect(everything).not.toContain(mnemonic.split(' ').slice(0, 3).join(' ').toLowerCase())
  for (const key of keys) expect(everything).not.toContain(key.toLowerCase())
}

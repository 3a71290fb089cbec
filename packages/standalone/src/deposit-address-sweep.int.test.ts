// A customer's deposit address swept like a payment address (docs/treasury.md, "Derivation paths"
// and "Customers' deposit addresses in a plan"): several PER_USER payments paid to one address, then
// the whole offline procedure against a real standalone and its simulated chains: `chainpay-wallet
// plan` moves what the address holds once per (address, currency), signed for by the key at the
// deposit path the address was recorded with (which `sign` derives from the mnemonic like any other
// path: packages/wallet/src/deposit-address-deriver.unit.test.ts), `broadcast` sends it, the treasury
// receives it on the chain, and every payment's share is recorded as swept. The merchant's balances
// (GET /balances) are what the merchant received, which a sweep to the operator's treasury does not
// change (docs/api.md, "Balances").

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { Chainpay } from '@chainpay/sdk'
import {
  type BalanceRow,
  createAdminApi,
  readPlanFile,
  runChainpayWallet,
  type SweepPlan,
  writeJsonFile,
} from '@chainpay/treasury'
import { signPlan } from '@chainpay/treasury/testing'
import { associatedTokenAccount } from '@chainpay/wallet'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const USDC_SOLANA = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' })
  .contract as string

let standalone: InProcessStandalone
let chainpay: Chainpay
let dir: string
/** the standalone's development mnemonic: its addresses, and the TRON treasury at its default path */
let mnemonic: string
let tronTreasury: string
/** the Solana treasury has a key of its own (docs/treasury.md, "The treasury key") */
const solanaTreasury = Keypair.generate()

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
  const merchant = standalone.demoMerchant()
  chainpay = new Chainpay({
    baseUrl: standalone.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-deposit-sweep-'))
  mnemonic = (
    JSON.parse(readFileSync(join(standalone.dataDir, 'dev-wallet.json'), 'utf8')) as { mnemonic: string }
  ).mnemonic
  tronTreasury = TronWeb.fromMnemonic(mnemonic, "m/44'/195'/1'/0/0").address
  // the treasuries exist on chain and hold their fees (an account TRON has never seen cannot be planned to)
  await pay(standalone, 'TRON', { to: tronTreasury, amount: '100', currency: 'TRX' })
  await pay(standalone, 'SOLANA', { to: solanaTreasury.publicKey.toBase58(), amount: '2', currency: 'SOL' })
})

afterAll(async () => {
  await standalone?.stop()
  rmSync(dir, { recursive: true, force: true })
})

type Network = 'TRON' | 'SOLANA'
const rpcUrl = (network: Network) => `${standalone.baseUrl}/chains/${network}`

async function wallet(argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet([...argv, '--url', standalone.adminUrl], {
    env: { CHAINPAY_ADMIN_TOKEN: standalone.adminToken() },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    promptSecret: () => Promise.reject(new Error('no prompt')),
    now: () => new Date(),
  })
  return { code, out, err }
}

/** plan with the command, sign the plan file with the mnemonic (and the Solana treasury's key) */
async function planAndSign(network: Network): Promise<{ plan: SweepPlan; signedPath: string }> {
  const planPath = join(dir, `${network}.plan.json`)
  const signedPath = join(dir, `${network}.signed.json`)
  const treasury =
    network === 'TRON'
      ? ['--treasury', tronTreasury]
      : ['--treasury', solanaTreasury.publicKey.toBase58(), '--treasury-external']
  const planned = await wallet([
    'plan',
    '--network',
    network,
    ...treasury,
    '--rpc-url',
    rpcUrl(network),
    '--out',
    planPath,
  ])
  expect(planned.err).toEqual([])
  expect(planned.code).toBe(0)
  const { plan, sha256 } = readPlanFile(planPath)
  writeJsonFile(
    signedPath,
    signPlan({
      plan,
      planSha256: sha256,
      mnemonic,
      ...(network === 'SOLANA'
        ? { treasuryKey: { chain: 'SOLANA' as const, secretKey: solanaTreasury.secretKey } }
        : {}),
    }),
  )
  return { plan, signedPath }
}

async function broadcast(network: Network, signedPath: string) {
  return wallet([
    'broadcast',
    '--signed',
    signedPath,
    '--rpc-url',
    rpcUrl(network),
    '--poll-ms',
    '30',
    '--max-polls',
    '400',
  ])
}

/** a PER_USER payment of the customer, paid in full (an SPL one into its token account), once confirmed */
async function confirmedPerUserPayment(
  user: string,
  network: Network,
  currency: string,
  amount: string,
): Promise<string> {
  const created = await chainpay.payments.create({
    amount,
    currency,
    network,
    addressMode: 'PER_USER',
    merchantUserId: user,
  })
  const to = created.generatedTokenAccount ?? created.generatedAddress
  await pay(standalone, network, { to, amount, currency })
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await chainpay.payments.get(created.paymentId)).status === 'confirmed') return created.paymentId
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`payment ${created.paymentId} was not confirmed`)
}

/** a customer's deposit, sent once the indexer watches the address, when confirmed */
async function confirmedDeposit(user: string, address: string, amount: string): Promise<string> {
  // the indexer watches an address from when it reads its creation (docs/chains.md): send after that
  const db = new DatabaseSync(join(standalone.dataDir, 'chainpay.sqlite'), { readOnly: true })
  try {
    const watched = db.prepare(
      "SELECT 1 AS n FROM deposit_addresses_watched WHERE network = 'TRON' AND address = ?",
    )
    for (let attempt = 0; attempt < 600 && watched.get(address) === undefined; attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100))
  } finally {
    db.close()
  }
  await pay(standalone, 'TRON', { to: address, amount, currency: 'TRX' })
  for (let attempt = 0; attempt < 600; attempt++) {
    const [deposit] = (await chainpay.deposits.list({ merchantUserId: user, status: 'confirmed' })).data
    if (deposit !== undefined) return deposit.depositId
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no confirmed deposit of ${user}`)
}

/** the admin API's balance rows of an address: one per payment and currency, one per deposit */
async function rowsOf(network: Network, address: string): Promise<BalanceRow[]> {
  const rows = await createAdminApi(standalone.adminUrl, standalone.adminToken()).balances({ network })
  return rows.filter((row) => row.address === address)
}

const swept = (rows: BalanceRow[]) =>
  rows.map((row) => [row.paymentId, row.currency, row.received, row.swept]).sort()

describe("a customer's deposit address through plan, sign and broadcast", () => {
  it("TRON: swept once for everything its payments received, signed at its deposit path, received by the treasury and recorded against each payment; another customer's address with a deposit only swept and recorded against the deposit", {
    timeout: 90_000,
  }, async () => {
    const user = `sweep-customer-${Date.now()}`
    const deposit = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    // another customer's address that only ever received a deposit (no payment): swept all the same
    const depositor = await chainpay.depositAddresses.create({
      merchantUserId: `${user}-depositor`,
      network: 'TRON',
    })
    const first = await confirmedPerUserPayment(user, 'TRON', 'TRX', '7')
    const second = await confirmedPerUserPayment(user, 'TRON', 'TRX', '3')
    const depositId = await confirmedDeposit(`${user}-depositor`, depositor.address, '5')
    const balancesBefore = await chainpay.balances.list()

    const { plan, signedPath } = await planAndSign('TRON')
    const sweeps = plan.sweeps.filter((sweep) => sweep.address === deposit.address)
    // each payment's share recorded against its own payment, the address emptied by one step
    expect(sweeps.map((sweep) => [sweep.paymentId, sweep.currency, sweep.amount]).sort()).toEqual(
      [
        [first, 'TRX', '7'],
        [second, 'TRX', '3'],
      ].sort(),
    )
    const stepIds = [...new Set(sweeps.map((sweep) => sweep.stepId))]
    expect(stepIds).toEqual([`sweep:${deposit.address}:TRX`])
    const steps = plan.steps.filter((candidate) => candidate.id === stepIds[0])
    expect(steps).toHaveLength(1)
    const signer = steps[0]?.signers.find((candidate) => candidate.role === 'payment')
    expect(signer).toMatchObject({ address: deposit.address, derivationPath: "m/44'/195'/0'/2/0" })
    // the deposit address with a deposit only: one step of its own, recorded against the deposit
    expect(
      plan.sweeps
        .filter((sweep) => sweep.address === depositor.address)
        .map(({ paymentId, depositId, currency, amount, stepId }) => ({
          paymentId,
          depositId,
          currency,
          amount,
          stepId,
        })),
    ).toEqual([
      {
        paymentId: null,
        depositId,
        currency: 'TRX',
        amount: '5',
        stepId: `sweep:${depositor.address}:TRX`,
      },
    ])
    expect(
      plan.steps
        .find((candidate) => candidate.id === `sweep:${depositor.address}:TRX`)
        ?.signers.find((candidate) => candidate.role === 'payment'),
    ).toMatchObject({ address: depositor.address, derivationPath: "m/44'/195'/0'/2/1" })
    // what the addresses hold, announced once: 7 + 3 TRX, and 5 (their bandwidth is free)
    expect(plan.totals.moved).toEqual({ TRX: '15' })

    const tronWeb = new TronWeb({ fullHost: rpcUrl('TRON') })
    const treasuryBefore = BigInt(await tronWeb.trx.getBalance(tronTreasury))
    const run = await broadcast('TRON', signedPath)
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    expect(run.out).toContain(`recorded sweep:${deposit.address}:TRX: final`)
    // on the chain: the address is empty, the treasury has its 10 TRX
    expect(BigInt(await tronWeb.trx.getBalance(deposit.address))).toBe(0n)
    expect(BigInt(await tronWeb.trx.getBalance(depositor.address))).toBe(0n)
    expect(BigInt(await tronWeb.trx.getBalance(tronTreasury)) - treasuryBefore).toBe(15_000_000n)
    // recorded: each payment swept of what it received, the step marked final and recorded
    expect(swept(await rowsOf('TRON', deposit.address))).toEqual(
      [
        [first, 'TRX', '7', '7'],
        [second, 'TRX', '3', '3'],
      ].sort(),
    )
    expect(await rowsOf('TRON', depositor.address)).toEqual([
      expect.objectContaining({
        paymentId: null,
        depositId,
        derivationPath: "m/44'/195'/0'/2/1",
        received: '5',
        swept: '5',
      }),
    ])
    expect(JSON.parse(readFileSync(`${signedPath}.state.json`, 'utf8'))).toMatchObject({
      confirmed: { [`sweep:${deposit.address}:TRX`]: true },
      recorded: { [`sweep:${deposit.address}:TRX`]: true },
    })
    // the merchant's balances are what it received: the operator's sweep changes nothing there
    expect(await chainpay.balances.list()).toEqual(balancesBefore)
  })

  it('Solana: SOL and USDC of several payments on one owner swept by one message signed at its deposit path, the token account closed, each payment recorded', {
    timeout: 90_000,
  }, async () => {
    const user = `sweep-customer-sol-${Date.now()}`
    const deposit = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'SOLANA' })
    const tokenAccount = associatedTokenAccount(deposit.address, USDC_SOLANA)
    // one open payment per address and network at a time: each follows the one before, final
    const sol = await confirmedPerUserPayment(user, 'SOLANA', 'SOL', '0.5')
    const usdc1 = await confirmedPerUserPayment(user, 'SOLANA', 'USDC', '10')
    const usdc2 = await confirmedPerUserPayment(user, 'SOLANA', 'USDC', '5')

    const { plan, signedPath } = await planAndSign('SOLANA')
    const sweeps = plan.sweeps.filter((sweep) => sweep.address === deposit.address)
    expect(sweeps.map((sweep) => [sweep.paymentId, sweep.currency, sweep.amount]).sort()).toEqual(
      [
        [sol, 'SOL', '0.5'],
        [usdc1, 'USDC', '10'],
        [usdc2, 'USDC', '5'],
      ].sort(),
    )
    // one message for the owner, whatever its payments: one step, signed at the Solana deposit path
    const stepIds = [...new Set(sweeps.map((sweep) => sweep.stepId))]
    expect(stepIds).toEqual([`sweep:${deposit.address}`])
    const steps = plan.steps.filter((candidate) => candidate.id === stepIds[0])
    expect(steps).toHaveLength(1)
    expect(steps[0]?.signers.find((candidate) => candidate.role === 'payment')).toMatchObject({
      address: deposit.address,
      derivationPath: "m/44'/501'/0'/2'",
    })
    // the owner's funds announced once: 0.5 SOL and 10 + 5 USDC
    expect(plan.totals.moved).toEqual({ SOL: '0.5', USDC: '15' })
    // the message's fee recorded once, on its first record
    expect(sweeps.filter((sweep) => sweep.fee !== '0')).toHaveLength(1)

    const connection = new Connection(rpcUrl('SOLANA'), 'confirmed')
    const treasuryUsdc = new PublicKey(
      associatedTokenAccount(solanaTreasury.publicKey.toBase58(), USDC_SOLANA),
    )
    const run = await broadcast('SOLANA', signedPath)
    expect(run.err).toEqual([])
    expect(run.code).toBe(0)
    expect(run.out).toContain(`recorded sweep:${deposit.address}: final`)
    // on the chain: the owner empty, its token account closed, the treasury's holding the 15 USDC
    expect(await connection.getBalance(new PublicKey(deposit.address))).toBe(0)
    expect(await connection.getAccountInfo(new PublicKey(tokenAccount))).toBeNull()
    expect((await connection.getTokenAccountBalance(treasuryUsdc)).value.amount).toBe('15000000')
    expect(swept(await rowsOf('SOLANA', deposit.address))).toEqual(
      [
        [sol, 'SOL', '0.5', '0.5'],
        [usdc1, 'USDC', '10', '10'],
        [usdc2, 'USDC', '5', '5'],
      ].sort(),
    )
  })
})

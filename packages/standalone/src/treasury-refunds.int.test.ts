// Refunds and payouts through the offline procedure against standalone (docs/treasury.md, "Refunds
// and payouts"): the merchant creates them through the merchant API, `chainpay-wallet plan` takes the
// ready ones and marks them through the admin API, the treasury signs, `broadcast` pays them on the
// simulated chains with the real tronweb and @solana/web3.js and records each outcome through the
// admin API: completed with the network fee, failed on chain on TRON and on Solana (refundable
// again), never sent once canceled or released. Plan and broadcast run as the command does, in this process; sign with
// chainpay-wallet's signer (its offline guard is the command's, tested with it).

import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { systemClock } from '@chainpay/platform'
import {
  createAdminApi,
  readPlanFile,
  runChainpayWallet,
  type SignedSweep,
  writeJsonFile,
} from '@chainpay/treasury'
import { signPlan, startNodeInterceptor } from '@chainpay/treasury/testing'
import { associatedTokenAccount } from '@chainpay/wallet'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { TronWeb } from 'tronweb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { confirmedPayment, merchantClientFor, pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const USDT_TRON = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'USDT' }).contract as string
const USDC_SOLANA = new PublicKey(
  resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' }).contract as string,
)
const TRON_TREASURY_PATH = "m/44'/195'/1'/0/0"

let standalone: InProcessStandalone
let dir: string
/**
 * the standalone's development mnemonic: its payment addresses (a plan sweeps them too), the TRON
 * treasury at its default path; the Solana treasury has a key of its own
 */
let mnemonic: string
let tronTreasury: { address: string; privateKey: string }
const solanaTreasury = Keypair.generate()

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-refunds-'))
  mnemonic = (
    JSON.parse(readFileSync(join(standalone.dataDir, 'dev-wallet.json'), 'utf8')) as { mnemonic: string }
  ).mnemonic
  tronTreasury = TronWeb.fromMnemonic(mnemonic, TRON_TREASURY_PATH)
  await pay(standalone, 'TRON', { to: tronTreasury.address, amount: '300', currency: 'TRX' })
  await pay(standalone, 'TRON', { to: tronTreasury.address, amount: '20', currency: 'USDT' })
  await pay(standalone, 'SOLANA', { to: solanaTreasury.publicKey.toBase58(), amount: '2', currency: 'SOL' })
  await pay(standalone, 'SOLANA', {
    to: associatedTokenAccount(solanaTreasury.publicKey.toBase58(), USDC_SOLANA.toBase58()),
    amount: '20',
    currency: 'USDC',
  })
})
afterAll(async () => {
  await standalone.stop()
  rmSync(dir, { recursive: true, force: true })
})

const rpcUrl = (network: 'TRON' | 'SOLANA') => `${standalone.baseUrl}/chains/${network}`

/** `onLine` sees each printed line first, and may throw: the run then ends there, as if killed */
async function wallet(argv: string[], onLine: (line: string) => void = () => undefined) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet([...argv, '--url', standalone.adminUrl], {
    env: { CHAINPAY_ADMIN_TOKEN: standalone.adminToken() },
    out: (line) => {
      onLine(line)
      out.push(line)
    },
    err: (line) => err.push(line),
    promptSecret: () => Promise.reject(new Error('no prompt')),
    now: () => new Date(),
  })
  return { code, out, err }
}

/** plan with the command, then sign the plan file with the treasury's key */
async function planAndSign(network: 'TRON' | 'SOLANA', name: string) {
  const planPath = join(dir, `${name}.plan.json`)
  const signedPath = join(dir, `${name}.signed.json`)
  const treasury =
    network === 'TRON'
      ? ['--treasury', tronTreasury.address]
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
  const { plan, sha256 } = readPlanFile(planPath)
  const signed: SignedSweep = signPlan({
    plan,
    planSha256: sha256,
    mnemonic,
    ...(network === 'SOLANA'
      ? { treasuryKey: { chain: 'SOLANA' as const, secretKey: solanaTreasury.secretKey } }
      : {}),
  })
  writeJsonFile(signedPath, signed)
  return { plan, signed, signedPath, planPath, lines: planned.out }
}

function broadcast(
  network: 'TRON' | 'SOLANA',
  signedPath: string,
  url = rpcUrl(network),
  onLine?: (line: string) => void,
) {
  return wallet(
    ['broadcast', '--signed', signedPath, '--rpc-url', url, '--poll-ms', '30', '--max-polls', '400'],
    onLine,
  )
}

interface Outgoing {
  status: string
  txHash: string | null
  networkFee: { currency: string; amount: string } | null
  failureReason: string | null
}

const client = () => merchantClientFor(standalone)

async function refund(paymentId: string, amount: string, address: string): Promise<string> {
  const response = await client().request(
    'POST',
    `/payments/${paymentId}/refunds`,
    JSON.stringify({
      amount,
      address,
      idempotencyKey: createHash('sha256')
        .update(`${paymentId}${amount}${address}`)
        .digest('hex')
        .slice(0, 32),
    }),
  )
  expect(response.status).toBe(201)
  return (response.body as { refundId: string }).refundId
}

async function payout(network: string, currency: string, amount: string, address: string): Promise<string> {
  const response = await client().request(
    'POST',
    '/payouts',
    JSON.stringify({
      network,
      currency,
      amount,
      address,
      idempotencyKey: `po-${network}-${address}`.slice(0, 64),
    }),
  )
  expect(response.status).toBe(201)
  return (response.body as { payoutId: string }).payoutId
}

async function read(kind: 'refunds' | 'payouts', id: string): Promise<Outgoing> {
  const response = await client().request('GET', `/${kind}/${id}`)
  expect(response.status).toBe(200)
  return response.body as Outgoing
}

/** what a standard wallet shows: TRON TRC20 balances through the standalone's simulated node */
async function usdtOf(address: string): Promise<bigint> {
  const tronWeb = new TronWeb({ fullHost: rpcUrl('TRON') })
  const answer = await tronWeb.transactionBuilder.triggerConstantContract(
    USDT_TRON,
    'balanceOf(address)',
    {},
    [{ type: 'address', value: address }],
    address,
  )
  return BigInt(`0x${answer.constant_result?.[0] || '0'}`)
}

describe('refunds and payouts through plan, sign and broadcast on standalone', () => {
  it('TRON: a refund of USDT to a new recipient and a payout, paid exactly once through a broadcast killed after recording sent, completed with their fees; a second broadcast records nothing', async () => {
    const payment = await confirmedPayment(standalone, { network: 'TRON', currency: 'USDT', amount: '10' })
    const refundTo = TronWeb.fromMnemonic(mnemonic, "m/44'/195'/7'/0/0").address
    const payoutTo = TronWeb.fromMnemonic(mnemonic, "m/44'/195'/8'/0/0").address
    const refundId = await refund(payment.paymentId, '4', refundTo)
    const payoutId = await payout('TRON', 'USDT', '3', payoutTo)

    const { plan, signedPath } = await planAndSign('TRON', 'tron')
    expect(plan.outgoing?.map((item) => [item.kind, item.id])).toEqual([
      ['refund', refundId],
      ['payout', payoutId],
    ])
    expect((await read('refunds', refundId)).status).toBe('sending')
    // killed right after the admin API recorded the refund sent, before its transaction left
    const killed = await broadcast('TRON', signedPath, undefined, (line) => {
      if (line.startsWith(`recorded refund ${refundId}: sent`)) throw new Error('killed')
    })
    expect(killed.err).toEqual(['error: unexpected failure: killed'])
    expect((await read('refunds', refundId)).status).toBe('sent')
    expect(await usdtOf(refundTo)).toBe(0n)
    const run = await broadcast('TRON', signedPath)
    expect(run.err).toEqual([])
    expect(await usdtOf(refundTo)).toBe(4_000_000n)
    expect(await usdtOf(payoutTo)).toBe(3_000_000n)
    const refunded = await read('refunds', refundId)
    expect(refunded).toMatchObject({ status: 'completed', networkFee: { currency: 'TRX' } })
    expect(refunded.txHash).toBe(
      plan.steps.find((step) => step.id === `pay:refund:${refundId}`)?.tron?.transaction.txID,
    )
    expect((await read('payouts', payoutId)).status).toBe('completed')

    const again = await broadcast('TRON', signedPath)
    expect(again).toMatchObject({ code: 0, err: [] })
    expect(await usdtOf(refundTo)).toBe(4_000_000n)
    // three runs, each step recorded once: the payment's history shows its refund's
    const history = await client().request('GET', `/payments/${payment.paymentId}/events`)
    const types = (history.body as { data: Array<{ type: string }> }).data
      .map((event) => event.type)
      .filter((type) => type.startsWith('refund.'))
    expect(types).toEqual(['refund.created', 'refund.sending', 'refund.sent', 'refund.completed'])
  })

  it('Solana: USDC to an owner without a token account; one canceled before the plan is left out, one released after it is never sent', async () => {
    const payment = await confirmedPayment(standalone, { network: 'SOLANA', currency: 'USDC', amount: '10' })
    const owner = Keypair.generate().publicKey
    const refundId = await refund(payment.paymentId, '4', owner.toBase58())
    const canceled = await refund(payment.paymentId, '1', Keypair.generate().publicKey.toBase58())
    expect((await client().request('POST', `/refunds/${canceled}/cancel`)).status).toBe(200)
    const released = await refund(payment.paymentId, '2', Keypair.generate().publicKey.toBase58())

    const { plan, signedPath } = await planAndSign('SOLANA', 'solana')
    expect(plan.outgoing?.map((item) => item.id)).toEqual([refundId, released])
    // the operator decides the plan will not pay that one
    await createAdminApi(standalone.adminUrl, standalone.adminToken()).release(
      { kind: 'refund', id: released },
      plan.planId as string,
    )
    const run = await broadcast('SOLANA', signedPath)
    expect(run.code).toBe(1)
    expect(run.err).toEqual([
      expect.stringMatching(
        new RegExp(`^error: refund ${released} is no longer sending in plan ${plan.planId}`),
      ),
    ])
    const connection = new Connection(rpcUrl('SOLANA'), 'confirmed')
    const account = new PublicKey(associatedTokenAccount(owner.toBase58(), USDC_SOLANA.toBase58()))
    expect((await connection.getTokenAccountBalance(account)).value.amount).toBe('4000000')
    expect(await read('refunds', refundId)).toMatchObject({
      status: 'completed',
      networkFee: { currency: 'SOL', amount: '0.00204428' },
    })
    expect((await read('refunds', released)).status).toBe('ready')
    expect((await read('refunds', canceled)).status).toBe('canceled')

    // a plan whose file cannot be written gives back what it marked
    const unwritten = await wallet([
      'plan',
      '--network',
      'SOLANA',
      '--treasury',
      solanaTreasury.publicKey.toBase58(),
      '--treasury-external',
      '--rpc-url',
      rpcUrl('SOLANA'),
      '--out',
      join(dir, 'no-such-directory', 'plan.json'),
    ])
    expect(unwritten.err).toEqual([
      `error: cannot write ${join(dir, 'no-such-directory', 'plan.json')}: ENOENT; its refunds and payouts were given back (ready)`,
    ])
    expect((await read('refunds', released)).status).toBe('ready')

    // a plan that will never be broadcast: `release` gives its items back, and keeps none it cannot
    const again = await planAndSign('SOLANA', 'solana-abandoned')
    expect(again.plan.outgoing?.map((item) => item.id)).toEqual([released])
    expect((await read('refunds', released)).status).toBe('sending')
    const given = await wallet(['release', '--plan', again.planPath])
    expect(given).toMatchObject({
      code: 0,
      err: [],
      out: [`released refund ${released}: ready again, for the next plan`],
    })
    expect((await read('refunds', released)).status).toBe('ready')
  })

  it('TRON: a refund whose transfer fails on chain is failed, with why, and its amount is refundable again', async () => {
    const payment = await confirmedPayment(standalone, { network: 'TRON', currency: 'USDT', amount: '5' })
    const refundTo = TronWeb.fromMnemonic(mnemonic, "m/44'/195'/9'/0/0").address
    const refundId = await refund(payment.paymentId, '5', refundTo)
    const { plan, signedPath } = await planAndSign('TRON', 'tron-fails')
    const txId = plan.steps.find((step) => step.id === `pay:refund:${refundId}`)?.tron?.transaction
      .txID as string
    const tronWeb = new TronWeb({
      fullHost: rpcUrl('TRON'),
      privateKey: tronTreasury.privateKey.replace(/^0x/, ''),
    })
    // another transaction of the treasury lands just before the refund's: its USDT leaves
    const proxy = await startNodeInterceptor({
      target: standalone.baseUrl,
      async intercept(request) {
        if (!request.path.endsWith('/wallet/broadcasttransaction') || !request.body.includes(txId))
          return undefined
        const held = await usdtOf(tronTreasury.address)
        const drain = await tronWeb.transactionBuilder.triggerSmartContract(
          USDT_TRON,
          'transfer(address,uint256)',
          { feeLimit: 50_000_000 },
          [
            { type: 'address', value: TronWeb.fromMnemonic(mnemonic, "m/44'/195'/11'/0/0").address },
            { type: 'uint256', value: held.toString() },
          ],
          tronTreasury.address,
        )
        const signed = await tronWeb.trx.sign(drain.transaction)
        await tronWeb.trx.sendRawTransaction(signed)
        await expect.poll(() => usdtOf(tronTreasury.address), { timeout: 10_000 }).toBe(0n)
        return undefined
      },
    })
    try {
      const run = await broadcast('TRON', signedPath, `${proxy.url}/chains/TRON`)
      expect(run.err[0]).toMatch(
        new RegExp(`^error: step pay:refund:${refundId} \\(${txId}\\) failed on chain: REVERT`),
      )
    } finally {
      await proxy.close()
    }
    expect(await read('refunds', refundId)).toMatchObject({ status: 'failed', txHash: txId })
    expect((await read('refunds', refundId)).failureReason).toMatch(/REVERT/)
    // the 5 USDT are refundable again
    await refund(payment.paymentId, '5', TronWeb.fromMnemonic(mnemonic, "m/44'/195'/10'/0/0").address)
  })

  it("Solana: a refund whose transaction fails on chain (the treasury's USDC spent by another transaction landing ahead of it, after its preflight) is failed, with the node's error, and its amount is refundable again", async () => {
    const payment = await confirmedPayment(standalone, { network: 'SOLANA', currency: 'USDC', amount: '5' })
    const refundTo = Keypair.generate().publicKey.toBase58()
    const refundId = await refund(payment.paymentId, '5', refundTo)
    const { signed, signedPath } = await planAndSign('SOLANA', 'solana-fails')
    const pay = signed.steps.find((step) => step.id === `pay:refund:${refundId}`)
    const txId = pay?.txId as string
    const treasuryAccount = associatedTokenAccount(
      solanaTreasury.publicKey.toBase58(),
      USDC_SOLANA.toBase58(),
    )
    const connection = new Connection(rpcUrl('SOLANA'), 'confirmed')
    let sends = 0
    // when the refund's transaction is sent (after the plan's sweeps filled the treasury), all the
    // treasury's USDC leaves in a transaction that lands just ahead of it
    const proxy = await startNodeInterceptor({
      target: standalone.baseUrl,
      async intercept(request) {
        const call = JSON.parse(request.body || '{}') as { method?: string; params?: [string] }
        // the refund's signed transaction, as web3.js sends it: base64
        if (call.method !== 'sendTransaction' || call.params?.[0] !== pay?.solana?.transaction)
          return undefined
        sends += 1
        const held = await connection.getTokenAccountBalance(new PublicKey(treasuryAccount))
        const response = await fetch(`${standalone.baseUrl}/dev/chains/SOLANA/transfers`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            from: treasuryAccount,
            to: associatedTokenAccount(Keypair.generate().publicKey.toBase58(), USDC_SOLANA.toBase58()),
            amount: held.value.uiAmountString,
            currency: 'USDC',
            landsAheadOf: txId,
          }),
        })
        expect(response.status).toBe(201)
        return undefined
      },
    })
    const failure = '{"InstructionError":[1,{"Custom":1}]}'
    try {
      const run = await broadcast('SOLANA', signedPath, `${proxy.url}/chains/SOLANA`)
      expect(run.err).toEqual([
        `error: step pay:refund:${refundId} (${txId}) failed on chain: ${failure}. Plan again, sign and broadcast the new plan: it sees what moved.`,
      ])
      // run again: nothing sent, nothing recorded
      expect(await broadcast('SOLANA', signedPath, `${proxy.url}/chains/SOLANA`)).toMatchObject({
        code: 0,
        err: [],
      })
    } finally {
      await proxy.close()
    }
    expect(sends).toBe(1)
    expect(await read('refunds', refundId)).toMatchObject({
      status: 'failed',
      txHash: txId,
      failureReason: `failed on chain: ${failure}`,
    })
    const account = new PublicKey(associatedTokenAccount(refundTo, USDC_SOLANA.toBase58()))
    expect(await connection.getAccountInfo(account)).toBeNull()
    const history = await client().request('GET', `/payments/${payment.paymentId}/events`)
    expect(
      (history.body as { data: Array<{ type: string }> }).data
        .map((event) => event.type)
        .filter((type) => type.startsWith('refund.')),
    ).toEqual(['refund.created', 'refund.sending', 'refund.sent', 'refund.failed'])
    // the 5 USDC are refundable again
    await refund(payment.paymentId, '5', Keypair.generate().publicKey.toBase58())
  })
})

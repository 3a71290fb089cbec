// A customer's deposit address swept like a payment address (docs/treasury.md, "Derivation paths"):
// two PER_USER payments paid to one address, then `chainpay-wallet plan` against a real standalone
// and its simulated TRON node moves what the address holds once, signed for by the key at the deposit
// path the address was recorded with (which the offline `sign` derives from the mnemonic like any
// other path: packages/wallet/src/deposit-address-deriver.unit.test.ts).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Chainpay } from '@chainpay/sdk'
import { runChainpayWallet, type SweepPlan } from '@chainpay/treasury'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pay } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let chainpay: Chainpay
let dir: string

beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: { now: () => new Date() } })
  const merchant = standalone.demoMerchant()
  chainpay = new Chainpay({
    baseUrl: standalone.baseUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
  })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-deposit-sweep-'))
})

afterAll(async () => {
  await standalone?.stop()
  rmSync(dir, { recursive: true, force: true })
})

// any TRON address not derived by chainpay: the plan only names it
const TREASURY = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'

async function confirmedPerUserPayment(user: string, amount: string): Promise<string> {
  const created = await chainpay.payments.create({
    amount,
    currency: 'TRX',
    network: 'TRON',
    addressMode: 'PER_USER',
    merchantUserId: user,
  })
  await pay(standalone, 'TRON', { to: created.generatedAddress, amount, currency: 'TRX' })
  for (let attempt = 0; attempt < 600; attempt++) {
    if ((await chainpay.payments.get(created.paymentId)).status === 'confirmed') return created.paymentId
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`payment ${created.paymentId} was not confirmed`)
}

describe("a customer's deposit address in a sweep plan", () => {
  it('is swept once for everything its payments received, signed at its deposit path', {
    timeout: 60_000,
  }, async () => {
    // the treasury exists on chain (an account TRON has never seen cannot be planned to)
    await pay(standalone, 'TRON', { to: TREASURY, amount: '100', currency: 'TRX' })
    const user = `sweep-customer-${Date.now()}`
    const deposit = await chainpay.depositAddresses.create({ merchantUserId: user, network: 'TRON' })
    const first = await confirmedPerUserPayment(user, '7')
    const second = await confirmedPerUserPayment(user, '3')

    const planPath = join(dir, 'deposit.plan.json')
    const out: string[] = []
    const err: string[] = []
    const code = await runChainpayWallet(
      [
        'plan',
        '--network',
        'TRON',
        '--treasury',
        TREASURY,
        '--rpc-url',
        `${standalone.baseUrl}/chains/TRON`,
        '--url',
        standalone.adminUrl,
        '--out',
        planPath,
      ],
      {
        env: { CHAINPAY_ADMIN_TOKEN: standalone.adminToken() },
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        promptSecret: () => Promise.reject(new Error('no prompt')),
        now: () => new Date(),
      },
    )
    expect(err).toEqual([])
    expect(code).toBe(0)
    const plan = JSON.parse(readFileSync(planPath, 'utf8')) as SweepPlan
    const sweeps = plan.sweeps.filter((sweep) => sweep.address === deposit.address)
    // each payment's share recorded against its own payment, the address emptied by one step
    expect(sweeps.map((sweep) => [sweep.paymentId, sweep.currency]).sort()).toEqual(
      [
        [first, 'TRX'],
        [second, 'TRX'],
      ].sort(),
    )
    const stepIds = new Set(sweeps.map((sweep) => sweep.stepId))
    expect(stepIds.size).toBe(1)
    const step = plan.steps.find((candidate) => stepIds.has(candidate.id))
    const signer = step?.signers.find((candidate) => candidate.role === 'payment')
    expect(signer).toMatchObject({ address: deposit.address, derivationPath: "m/44'/195'/0'/2/0" })
    // what the address holds, announced and recorded once: 7 + 3 TRX (its bandwidth is free)
    expect(sweeps.map((sweep) => sweep.amount).sort()).toEqual(['3', '7'])
    expect(plan.totals.moved).toEqual({ TRX: '10' })
    expect(plan.steps.filter((candidate) => candidate.id === step?.id)).toHaveLength(1)
  })
})

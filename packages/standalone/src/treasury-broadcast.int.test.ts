// `chainpay-wallet broadcast` against standalone's simulated Solana node and its admin API: a step
// the chain already has is waited for and recorded, never sent again; a second run calls nothing;
// a step that can no longer land stops the run (docs/treasury.md, "Broadcast").

import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { systemClock } from '@chainpay/platform'
import {
  type BalanceRow,
  createAdminApi,
  FORMAT_VERSION,
  runChainpayWallet,
  SIGNED_FORMAT,
  type SignedSweep,
  writeJsonFile,
} from '@chainpay/treasury'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

let standalone: InProcessStandalone
let dir: string
beforeAll(async () => {
  standalone = await startInProcessStandalone({ clock: systemClock })
  dir = mkdtempSync(join(tmpdir(), 'chainpay-broadcast-'))
})
afterAll(async () => {
  await standalone.stop()
  rmSync(dir, { recursive: true, force: true })
})

const TREASURY = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'

async function wallet(argv: string[], token = standalone.adminToken()) {
  const out: string[] = []
  const err: string[] = []
  const code = await runChainpayWallet(
    [...argv, '--rpc-url', `${standalone.baseUrl}/chains/SOLANA`, '--url', standalone.adminUrl],
    {
      // the token from the environment: never on the command line (docs/treasury.md)
      env: { CHAINPAY_ADMIN_TOKEN: token },
      out: (line) => out.push(line),
      err: (line) => err.push(line),
      promptSecret: () => Promise.reject(new Error('no prompt')),
      now: () => new Date(),
    },
  )
  return { code, out, err }
}

async function paidSolPayment(): Promise<PaymentBody> {
  const client = merchantClientFor(standalone)
  const created = await client.createPayment({ amount: '0.5', currency: 'SOL', network: 'SOLANA' } as never)
  const payment = created.body as PaymentBody
  await pay(standalone, 'SOLANA', { to: payment.generatedAddress, amount: '0.5', currency: 'SOL' })
  return waitForPayment(
    client,
    payment.paymentId,
    (seen) => seen.status === 'confirmed' && seen.txHash !== null,
  )
}

async function rowOf(paymentId: string, predicate: (row: BalanceRow) => boolean): Promise<BalanceRow> {
  const admin = createAdminApi(standalone.adminUrl, standalone.adminToken())
  for (let attempt = 0; attempt < 200; attempt++) {
    const row = (await admin.balances({ network: 'SOLANA' })).find(
      (candidate) => candidate.paymentId === paymentId,
    )
    if (row && predicate(row)) return row
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no balance row of ${paymentId} as expected`)
}

function signedFile(name: string, row: BalanceRow, txId: string, lastValidBlockHeight: number): string {
  const stepId = `sweep:${row.address}:SOL`
  const signed: SignedSweep = {
    format: SIGNED_FORMAT,
    version: FORMAT_VERSION,
    planSha256: '0'.repeat(64),
    network: 'SOLANA',
    chain: 'SOLANA',
    treasury: TREASURY,
    validUntil: new Date(Date.now() + 60_000).toISOString(),
    // not a valid wire transaction: the simulator cannot take it, so any attempt to send fails the run
    steps: [
      {
        id: stepId,
        description: 'SOL to the treasury',
        after: [],
        txId,
        solana: { transaction: 'AA==', blockhash: '1'.repeat(32), lastValidBlockHeight },
      },
    ],
    sweeps: [
      {
        paymentId: row.paymentId,
        address: row.address,
        currency: 'SOL',
        amount: row.received,
        fee: '0.00001',
        feeCurrency: 'SOL',
        stepId,
      },
    ],
  }
  const path = join(dir, `${name}.signed.json`)
  writeJsonFile(path, signed)
  return path
}

describe('chainpay-wallet broadcast on standalone', () => {
  it('finds a step the chain confirmed, records its sweep once, and a second run calls nothing', async () => {
    const payment = await paidSolPayment()
    const row = await rowOf(payment.paymentId, () => true)
    expect(row).toMatchObject({
      address: payment.generatedAddress,
      currency: 'SOL',
      received: '0.5',
      swept: '0',
    })
    expect(row.derivationPath).toMatch(/^m\/44'\/501'\/\d+'\/0'$/)
    // as if an earlier run had sent it: the signature is one the node knows as confirmed
    const path = signedFile('known', row, payment.txHash ?? '', 1_000_000_000)

    const first = await wallet(['broadcast', '--signed', path, '--poll-ms', '20'])
    expect(first.err).toEqual([])
    expect(first.code).toBe(0)
    expect(first.out.some((line) => line.startsWith('sending'))).toBe(false)
    expect(first.out).toContain(`confirmed sweep:${row.address}:SOL ${payment.txHash}`)
    expect(await rowOf(payment.paymentId, (seen) => seen.swept === '0.5')).toMatchObject({ swept: '0.5' })
    const state = JSON.parse(readFileSync(`${path}.state.json`, 'utf8'))
    expect(state).toEqual({
      confirmed: { [`sweep:${row.address}:SOL`]: true },
      recorded: { [`sweep:${row.address}:SOL`]: true },
    })

    // a token the admin API refuses: the run succeeds only if it calls neither the chain to send nor the API
    const second = await wallet(['broadcast', '--signed', path], 'not-the-admin-token-0123456789abcdef')
    expect(second).toMatchObject({ code: 0, err: [] })
    const history = await merchantClientFor(standalone).request(
      'GET',
      `/payments/${payment.paymentId}/events`,
    )
    const types = (history.body as { data: Array<{ type: string }> }).data.map((event) => event.type)
    expect(types.filter((type) => type === 'funds.swept')).toHaveLength(1)
  })

  it('stops at a step the chain does not know whose blockhash expired, without sending it', async () => {
    const payment = await paidSolPayment()
    const row = await rowOf(payment.paymentId, () => true)
    const unknown = '5'.repeat(88)
    const path = signedFile('expired', row, unknown, 0)
    const run = await wallet(['broadcast', '--signed', path, '--poll-ms', '20'])
    expect(run.code).toBe(1)
    expect(run.err).toEqual([
      `error: step sweep:${row.address}:SOL (${unknown}) expired before landing: plan, sign and broadcast again`,
    ])
    expect((await rowOf(payment.paymentId, () => true)).swept).toBe('0')
  })
})

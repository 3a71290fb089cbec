// chainpay-wallet's Solana sweep against the simulated node, through @solana/web3.js as in
// production (docs/treasury.md): every token account a payment's owner holds, of every registry
// mint, emptied and closed with its SOL; the chain read again before a message is sent; sweeps
// recorded once finalized.

import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { createDepositAddressDeriver, walletFromMnemonic } from '@chainpay/wallet'
import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from '@solana/spl-token'
import { Connection, PublicKey } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { BalanceRow } from './admin-api.js'
import type { PlanInput } from './plan-input.js'
import { type RecordingAdminApi, recordingAdminApi } from './testing/recording-admin-api.js'
import {
  balanceRow,
  broadcastRun,
  type DerivedPayment,
  planAndSign,
  planInput,
  type SweepWallet,
  signedUnits,
  statePath,
  sweepWallet,
} from './testing/sweep-fixtures.js'

const NETWORK = 'SOLANA'
const mintOf = (currency: string) =>
  new PublicKey(resolveAsset(defaultAssetRegistry, { network: NETWORK, currency }).contract as string)
const USDC = mintOf('USDC')
const USDT = mintOf('USDT')
const RATES: PlanInput['rates'] = new Map([
  ['USDC', { nativePerTokenUnits: 67n, rateScale: 10_000n }],
  ['USDT', { nativePerTokenUnits: 67n, rateScale: 10_000n }],
])

let node: SimulatorNode
let connection: Connection
let wallet: SweepWallet
let admin: RecordingAdminApi

beforeEach(async () => {
  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 20 }] })
  await node.simulator.start()
  connection = new Connection(node.solanaUrl(NETWORK), 'confirmed')
  wallet = sweepWallet()
  admin = recordingAdminApi()
  await pay(wallet.solanaTreasury.publicKey.toBase58(), '5', 'SOL')
})

afterEach(() => node.close())

async function pay(to: string, amount: string, currency: string): Promise<void> {
  await node.simulator.submitTransfer(NETWORK, { to, amount, currency })
}

/** a wallet paying an SPL payment: into the owner's associated token account, created as it pays */
async function payAssociated(owner: DerivedPayment, amount: string, currency: string): Promise<void> {
  await pay(
    getAssociatedTokenAddressSync(mintOf(currency), new PublicKey(owner.address)).toBase58(),
    amount,
    currency,
  )
}

function input(fields: Partial<PlanInput> = {}): PlanInput {
  return planInput(NETWORK, {
    rpcUrl: node.solanaUrl(NETWORK),
    treasury: { address: wallet.solanaTreasury.publicKey.toBase58(), derivationPath: null },
    rates: RATES,
    ...fields,
  })
}

function row(payment: DerivedPayment, paymentId: string, currency: string, received: string): BalanceRow {
  return balanceRow(NETWORK, payment, { paymentId, currency, received })
}

async function tokenAccountsOf(owner: PublicKey): Promise<Array<{ mint: string; amount: string }>> {
  const { value } = await connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID })
  return value.map(({ account }) => ({
    mint: account.data.parsed.info.mint,
    amount: account.data.parsed.info.tokenAmount.amount,
  }))
}

describe('Solana sweep: every token account of the owner, of every registry mint', () => {
  it('a shop: the payment mint in a second account, another mint, SOL to an SPL payment, an empty account: all to the treasury, every account closed', async () => {
    const a = wallet.solanaPayment(1)
    const b = wallet.solanaPayment(2)
    const c = wallet.solanaPayment(3)
    const d = wallet.solanaPayment(4)
    // A: a USDC payment paid in two parts, one into another token account of the owner; USDT and SOL
    // sent to it by mistake; and an empty USDT account of the owner
    await payAssociated(a, '10', 'USDC')
    const second = await node.simulator.openTokenAccount(NETWORK, { owner: a.address, currency: 'USDC' })
    await pay(second.address, '2.5', 'USDC')
    await payAssociated(a, '3', 'USDT')
    await pay(a.address, '0.2', 'SOL')
    await node.simulator.openTokenAccount(NETWORK, { owner: a.address, currency: 'USDT' })
    // B: a plain USDC payment; C: a SOL payment; D: a USDC payment and USDT no row speaks of yet
    await payAssociated(b, '7', 'USDC')
    await pay(c.address, '1.5', 'SOL')
    await payAssociated(d, '4', 'USDC')
    await payAssociated(d, '1', 'USDT')
    const rows = [
      row(a, 'pay_a', 'USDC', '12.5'),
      row(a, 'pay_a', 'USDT', '3'),
      row(a, 'pay_a', 'SOL', '0.2'),
      row(b, 'pay_b', 'USDC', '7'),
      row(c, 'pay_c', 'SOL', '1.5'),
      row(d, 'pay_d', 'USDC', '4'),
    ]
    const treasury = wallet.solanaTreasury.publicKey
    const before = BigInt(await connection.getBalance(treasury))

    const { plan, lines, signed } = await planAndSign(rows, input(), 'SOLANA', wallet)
    expect(plan.totals.moved).toEqual({ USDC: '23.5', USDT: '4', SOL: '1.7' })
    expect(plan.steps.map((step) => step.id)).toEqual([a, b, c, d].map((owner) => `sweep:${owner.address}`))
    expect(plan.steps[0]?.description).toBe(
      `${a.address} sends 12.5 USDC, 3 USDT and 0.2 SOL to the treasury, closing 4 token accounts`,
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}fees: 4 messages, 0\.00004 SOL at the node’s price/),
    )
    const run = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toBeUndefined()

    for (const owner of [a, b, c, d]) {
      expect(await tokenAccountsOf(new PublicKey(owner.address))).toEqual([])
      expect(await connection.getBalance(new PublicKey(owner.address))).toBe(0)
    }
    expect(await tokenAccountsOf(treasury)).toEqual(
      expect.arrayContaining([
        { mint: USDC.toBase58(), amount: '23500000' },
        { mint: USDT.toBase58(), amount: '4000000' },
      ]),
    )
    expect(BigInt(await connection.getBalance(treasury)) - before).toBe(
      signedUnits(plan.totals.treasuryNativeChange, 9),
    )
    // what the admin API knows of is recorded, once each; D's USDT, of which it knows nothing, is not
    expect(
      admin.recorded.map(({ paymentId, currency, amount }) => `${paymentId} ${amount} ${currency}`),
    ).toEqual([
      'pay_a 12.5 USDC',
      'pay_a 3 USDT',
      'pay_a 0.2 SOL',
      'pay_b 7 USDC',
      'pay_c 1.5 SOL',
      'pay_d 4 USDC',
    ])
    expect(run.lines).toContainEqual(expect.stringMatching(/^ {2}the treasury's SOL changed by \+/))

    const again = await planAndSign(rows, input(), 'SOLANA', wallet)
    expect(again.plan.steps).toEqual([])
  })
})

describe('Solana sweep of a customer\'s deposit address (docs/treasury.md, "Customers\' deposit addresses in a plan")', () => {
  it('its payments and deposits of SOL and USDC: one message at the deposit path, recorded against the payments then the deposits', async () => {
    const keys = walletFromMnemonic(wallet.mnemonic)
    const owner = createDepositAddressDeriver(keys)('SOLANA', 3)
    expect(owner.derivationPath).toBe("m/44'/501'/3'/2'")
    // two USDC payments, then a USDC deposit and a SOL deposit, all into the owner and its associated account
    await payAssociated(owner, '10', 'USDC')
    await payAssociated(owner, '5', 'USDC')
    await payAssociated(owner, '3', 'USDC')
    await pay(owner.address, '0.5', 'SOL')
    const deposit = (depositId: string, currency: string, received: string): BalanceRow => ({
      ...row(owner, '', currency, received),
      paymentId: null,
      depositId,
    })
    const rows = [
      row(owner, 'pay_1', 'USDC', '10'),
      row(owner, 'pay_2', 'USDC', '5'),
      deposit('dep_usdc', 'USDC', '3'),
      deposit('dep_sol', 'SOL', '0.5'),
    ]
    const { plan, signed } = await planAndSign(rows, input(), 'SOLANA', wallet)
    expect(plan.steps.map((step) => step.id)).toEqual([`sweep:${owner.address}`])
    expect(plan.steps[0]?.signers.find((signer) => signer.role === 'payment')).toMatchObject({
      address: owner.address,
      derivationPath: "m/44'/501'/3'/2'",
    })
    expect(plan.totals.moved).toEqual({ USDC: '18', SOL: '0.5' })
    const run = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toBeUndefined()
    expect(await tokenAccountsOf(new PublicKey(owner.address))).toEqual([])
    expect(await connection.getBalance(new PublicKey(owner.address))).toBe(0)
    // the message's fee once, on its first record
    expect(
      admin.recorded.map(({ paymentId, depositId, currency, amount, fee }) => [
        paymentId ?? depositId,
        amount,
        currency,
        fee === '0' ? 'no fee' : 'fee',
      ]),
    ).toEqual([
      ['pay_1', '10', 'USDC', 'fee'],
      ['pay_2', '5', 'USDC', 'no fee'],
      ['dep_usdc', '3', 'USDC', 'no fee'],
      ['dep_sol', '0.5', 'SOL', 'no fee'],
    ])
    expect(
      admin.recorded.filter((record) => 'depositId' in record).map((record) => record.paymentId),
    ).toEqual([undefined, undefined])
  })
})

describe('Solana broadcast: the chain read again before sending', () => {
  it('stops before a message whose token account received more since the plan, sending nothing', async () => {
    const b = wallet.solanaPayment(5)
    await payAssociated(b, '7', 'USDC')
    const { signed } = await planAndSign([row(b, 'pay_b', 'USDC', '7')], input(), 'SOLANA', wallet)
    await payAssociated(b, '1', 'USDC')
    const treasury = wallet.solanaTreasury.publicKey
    const before = await connection.getBalance(treasury)

    const run = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: statePath(), admin })
    const account = getAssociatedTokenAddressSync(USDC, new PublicKey(b.address)).toBase58()
    expect(run.error).toBe(
      `stopped before sweep:${b.address}: token account ${account} (mint ${USDC.toBase58()}) holds 8 now; the plan moves 7 and closes it. The message was not sent. Plan again, sign and broadcast the new plan.`,
    )
    expect(await connection.getBalance(treasury)).toBe(before)
    expect(await tokenAccountsOf(new PublicKey(b.address))).toEqual([
      { mint: USDC.toBase58(), amount: '8000000' },
    ])
  })
})

describe('Solana broadcast: a sweep is recorded once finalized', () => {
  it('not at confirmed: a run that ends before finalized records it on the next run', async () => {
    const c = wallet.solanaPayment(6)
    await pay(c.address, '1.5', 'SOL')
    const { signed } = await planAndSign([row(c, 'pay_c', 'SOL', '1.5')], input(), 'SOLANA', wallet)
    const state = statePath()
    const first = await broadcastRun(signed, {
      rpcUrl: node.solanaUrl(NETWORK),
      statePath: state,
      admin,
      maxPolls: 40,
      log: (line) => {
        if (line.startsWith('confirmed sweep:')) void node.simulator.stop()
      },
    })
    const step = signed.steps[0]
    expect(first.error).toBe(
      `step sweep:${c.address} (${step?.txId}) is in a block but not final yet: run broadcast again to record it`,
    )
    expect(admin.recorded).toEqual([])

    await node.simulator.start()
    const second = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: state, admin })
    expect(second.error).toBeUndefined()
    expect(admin.recorded).toEqual([
      expect.objectContaining({ paymentId: 'pay_c', txHash: step?.txId, amount: '1.5' }),
    ])
  })
})

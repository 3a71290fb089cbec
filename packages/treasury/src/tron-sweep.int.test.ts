// chainpay-wallet's TRON sweep against the simulated java-tron node, through tronweb as in
// production (docs/treasury.md): energy planned with headroom, the chain read again before a step
// is sent, delegated energy always taken back, sweeps recorded once the solidity node has them.

import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { TronWeb } from 'tronweb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { BalanceRow } from './admin-api.js'
import type { PlanInput } from './plan-input.js'
import type { PlanStep } from './sweep-plan.js'
import { startNodeInterceptor } from './testing/node-interceptor.js'
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

const NETWORK = 'TRON'
const USDT = resolveAsset(defaultAssetRegistry, { network: NETWORK, currency: 'USDT' }).contract as string
const TRX = 1_000_000n
/** the simulator's USDT transfer to a holder, plus the plan's 10% (docs/treasury.md, "Headroom") */
const ENERGY_WITH_HEADROOM = 70_714n

let node: SimulatorNode
let tronWeb: TronWeb
let wallet: SweepWallet
let admin: RecordingAdminApi

beforeEach(async () => {
  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 25 }] })
  // a solidified block to plan on (TRON solidifies 18 blocks down)
  await node.simulator.mineBlocks(NETWORK, 20)
  await node.simulator.start()
  tronWeb = new TronWeb({ fullHost: node.tronUrl(NETWORK) })
  wallet = sweepWallet()
  admin = recordingAdminApi()
  const treasury = wallet.tronTreasury
  await pay(treasury.address, '20000', 'TRX')
  // energy to delegate, and a little USDT so that every transfer to the treasury costs the same
  const freeze = await tronWeb.trx.sign(
    await tronWeb.transactionBuilder.freezeBalanceV2(Number(10_000n * TRX), 'ENERGY', treasury.address),
    treasury.privateKey,
  )
  expect((await tronWeb.trx.sendRawTransaction(freeze)).result).toBe(true)
  await pay(treasury.address, '1', 'USDT')
})

afterEach(() => node.close())

async function pay(to: string, amount: string, currency: 'TRX' | 'USDT'): Promise<void> {
  await node.simulator.submitTransfer(NETWORK, { to, amount, currency })
}

async function trx(address: string): Promise<bigint> {
  return BigInt((await tronWeb.trx.getAccount(address)).balance ?? 0)
}

async function usdt(address: string): Promise<bigint> {
  return node.simulator.balanceOf(NETWORK, address, USDT)
}

async function delegatedOut(address: string): Promise<bigint> {
  return (await node.simulator.tronAccount(NETWORK, address))?.delegatedOut ?? 0n
}

/** the treasury spends its USDT between plan and broadcast: transfers to it cost 130,285 energy */
async function treasurySpendsItsUsdt(): Promise<void> {
  await node.simulator.submitTransfer(NETWORK, {
    from: wallet.tronTreasury.address,
    to: wallet.tronPayment(900).address,
    amount: '1',
    currency: 'USDT',
  })
}

/** paid payments: each address's rows as the admin API lists them */
async function paid(
  payments: Array<{ index: number; usdt?: string; trx?: string }>,
): Promise<Array<DerivedPayment & { rows: BalanceRow[] }>> {
  const result = []
  for (const { index, usdt: tokens, trx: coins } of payments) {
    const payment = wallet.tronPayment(index)
    const rows: BalanceRow[] = []
    if (tokens !== undefined) {
      await pay(payment.address, tokens, 'USDT')
      rows.push(
        balanceRow(NETWORK, payment, { paymentId: `pay_${index}`, currency: 'USDT', received: tokens }),
      )
    }
    if (coins !== undefined) {
      await pay(payment.address, coins, 'TRX')
      rows.push(balanceRow(NETWORK, payment, { paymentId: `pay_${index}`, currency: 'TRX', received: coins }))
    }
    result.push({ ...payment, rows })
  }
  return result
}

function input(fields: Partial<PlanInput> = {}): PlanInput {
  return planInput(NETWORK, {
    rpcUrl: node.tronUrl(NETWORK),
    treasury: { address: wallet.tronTreasury.address, derivationPath: wallet.tronTreasury.derivationPath },
    rates: new Map([['USDT', { nativePerTokenUnits: 3n, rateScale: 1n }]]),
    ...fields,
  })
}

function contractValue(step: PlanStep | undefined): Record<string, unknown> {
  return step?.tron?.transaction.raw_data.contract[0]?.parameter.value ?? {}
}

function stepsNamed(steps: PlanStep[], prefix: string): PlanStep[] {
  return steps.filter((step) => step.id.startsWith(prefix))
}

describe('TRON sweep: energy headroom', () => {
  it('burn mode, a shop: each transfer gets its estimate plus 10%; what an address did not burn stays there, broadcast says how much, and the next plan returns it', async () => {
    const payments = await paid([
      { index: 1, usdt: '10' },
      // a USDT payment whose address also received TRX: it burns its own for the transfer
      { index: 2, usdt: '20', trx: '50' },
      { index: 3, usdt: '30' },
      { index: 4, trx: '5' },
    ])
    const { plan, lines, signed } = await planAndSign(
      payments.flatMap((payment) => payment.rows),
      input(),
      'TRON',
      wallet,
    )
    const transfers = stepsNamed(plan.steps, 'sweep:').filter((step) => step.id.endsWith(':USDT'))
    expect(transfers).toHaveLength(3)
    // the fee limit caps the burn at what the plan gives: the estimate (64,285) plus 10%, at 100 sun
    for (const step of transfers)
      expect(step.tron?.transaction.raw_data.fee_limit).toBe(Number(ENERGY_WITH_HEADROOM * 100n))
    // addresses 1 and 3 are new: the top-up creates them and buys the energy with headroom
    expect(stepsNamed(plan.steps, 'fund:').map((step) => contractValue(step).amount)).toEqual([
      Number(ENERGY_WITH_HEADROOM * 100n),
      Number(ENERGY_WITH_HEADROOM * 100n),
    ])
    expect(lines).toContain(
      '  energy: 3 transfers, 192,855 energy at the node’s estimates; the plan gives 212,142 (10% headroom): up to 1.9287 TRX of it is left at the payment addresses if not burned',
    )

    const treasuryBefore = await trx(wallet.tronTreasury.address)
    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toBeUndefined()
    for (const payment of payments) expect(await usdt(payment.address)).toBe(0n)
    // the headroom each USDT address did not burn (10% of 6.4285 TRX) is still there, and nothing else
    expect(await Promise.all(payments.map((payment) => trx(payment.address)))).toEqual([
      642_900n,
      642_900n,
      642_900n,
      0n,
    ])
    expect(run.lines).toContain(
      '  1.9287 TRX set aside for energy was not burned: it stays at 3 payment addresses',
    )
    expect((await trx(wallet.tronTreasury.address)) - treasuryBefore).toBe(
      signedUnits(plan.totals.treasuryNativeChange, 6),
    )
    expect(await usdt(wallet.tronTreasury.address)).toBe(61_000_000n)
    expect(admin.recorded.map(({ paymentId, currency, amount }) => [paymentId, currency, amount])).toEqual(
      plan.sweeps.map(({ paymentId, currency, amount }) => [paymentId, currency, amount]),
    )

    // the next plan returns it, less the bandwidth each return burns (the USDT transfer used most of
    // the address's free bandwidth of the day)
    const next = await planAndSign(
      payments.flatMap((payment) => payment.rows),
      input(),
      'TRON',
      wallet,
    )
    expect(next.plan.steps.map((step) => step.id).sort()).toEqual(
      payments
        .slice(0, 3)
        .map((payment) => `sweep:${payment.address}:TRX`)
        .sort(),
    )
    expect(next.plan.steps.map((step) => contractValue(step).amount)).toEqual([375_900, 375_900, 375_900])
  })

  it('delegate mode: delegates the energy of the estimate plus 10%, and takes it back after each transfer', async () => {
    const payments = await paid([
      { index: 5, usdt: '12' },
      { index: 6, usdt: '8' },
    ])
    const { plan, signed } = await planAndSign(
      payments.flatMap((payment) => payment.rows),
      input({ energy: 'delegate' }),
      'TRON',
      wallet,
    )
    // 70,714 energy at 10 energy per staked TRX a day: 7,072 TRX, whole
    expect(stepsNamed(plan.steps, 'delegate:').map((step) => contractValue(step).balance)).toEqual([
      7_072_000_000, 7_072_000_000,
    ])
    expect(stepsNamed(plan.steps, 'undelegate:').map((step) => step.undoes)).toEqual(
      payments.map((payment) => `delegate:${payment.address}`),
    )
    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toBeUndefined()
    expect(await delegatedOut(wallet.tronTreasury.address)).toBe(0n)
    for (const payment of payments) expect(await usdt(payment.address)).toBe(0n)
    expect(await usdt(wallet.tronTreasury.address)).toBe(21_000_000n)
  })
})

describe('TRON broadcast: the chain read again before sending', () => {
  it('stops before spending anything when a transfer now needs more energy than the plan gives, and a new plan goes through', async () => {
    const payments = await paid([
      { index: 7, usdt: '10' },
      { index: 8, usdt: '20' },
    ])
    const rows = payments.flatMap((payment) => payment.rows)
    const { signed } = await planAndSign(rows, input(), 'TRON', wallet)
    await treasurySpendsItsUsdt()
    const treasuryBefore = await trx(wallet.tronTreasury.address)

    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: statePath(), admin })
    const first = payments[0]?.address
    expect(run.error).toBe(
      `stopped before fund:${first}: sweep:${first}:USDT needs 130,285 energy now; the plan gives it 70,714 (the node estimated 64,285 when planning, plus 10%). The transfer's energy rose: the recipient no longer holds the token, or the contract's dynamic energy factor went up. Nothing was sent for ${first}. Plan again, sign and broadcast the new plan.`,
    )
    // nothing sent at all: no top-up, no activation, no burn
    expect(await trx(wallet.tronTreasury.address)).toBe(treasuryBefore)
    expect(await tronWeb.trx.getAccount(first as string)).toEqual({})

    const again = await planAndSign(rows, input(), 'TRON', wallet)
    const second = await broadcastRun(again.signed, {
      rpcUrl: node.tronUrl(NETWORK),
      statePath: statePath(),
      admin,
    })
    expect(second.error).toBeUndefined()
    for (const payment of payments) expect(await usdt(payment.address)).toBe(0n)
  })
})

describe('TRON broadcast: delegated energy is always taken back', () => {
  async function delegatedSweep() {
    const [payment] = await paid([{ index: 9, usdt: '10' }])
    if (payment === undefined) throw new Error('no payment')
    const { signed } = await planAndSign(payment.rows, input({ energy: 'delegate' }), 'TRON', wallet)
    const sweep = signed.steps.find((step) => step.id === `sweep:${payment.address}:USDT`)
    if (sweep === undefined) throw new Error('no sweep step')
    return { payment, signed, sweepTxId: sweep.txId }
  }

  it('when the transfer runs out of energy on chain (the recipient changed after the check)', async () => {
    const { payment, signed, sweepTxId } = await delegatedSweep()
    // another transaction lands first: the treasury's USDT leaves just as the transfer is sent
    const proxy = await startNodeInterceptor({
      target: node.url,
      async intercept(request) {
        if (request.path.endsWith('/wallet/broadcasttransaction') && request.body.includes(sweepTxId))
          await treasurySpendsItsUsdt()
        return undefined
      },
    })
    try {
      const run = await broadcastRun(signed, {
        rpcUrl: `${proxy.url}/chains/${NETWORK}`,
        statePath: statePath(),
        admin,
      })
      expect(run.error).toMatch(
        new RegExp(`^step sweep:${payment.address}:USDT \\(${sweepTxId}\\) failed on chain: OUT_OF_ENERGY`),
      )
      expect(run.lines).toContainEqual(
        expect.stringMatching(new RegExp(`^confirmed undelegate:${payment.address}`)),
      )
    } finally {
      await proxy.close()
    }
    expect(await delegatedOut(wallet.tronTreasury.address)).toBe(0n)
    expect(await usdt(payment.address)).toBe(10_000_000n)
    expect(admin.recorded).toEqual([])
  })

  it('when the node refuses the transfer', async () => {
    const { payment, signed, sweepTxId } = await delegatedSweep()
    const proxy = await startNodeInterceptor({
      target: node.url,
      async intercept(request) {
        if (!request.path.endsWith('/wallet/broadcasttransaction') || !request.body.includes(sweepTxId))
          return undefined
        return {
          body: {
            code: 'SERVER_BUSY',
            txid: sweepTxId,
            message: Buffer.from('Server busy.').toString('hex'),
          },
        }
      },
    })
    try {
      const run = await broadcastRun(signed, {
        rpcUrl: `${proxy.url}/chains/${NETWORK}`,
        statePath: statePath(),
        admin,
      })
      expect(run.error).toMatch(
        new RegExp(`^the node refused sweep:${payment.address}:USDT: SERVER_BUSY Server busy\\.`),
      )
    } finally {
      await proxy.close()
    }
    expect(await delegatedOut(wallet.tronTreasury.address)).toBe(0n)
    expect(await usdt(payment.address)).toBe(10_000_000n)
  })

  it('when a run interrupted after the delegation is resumed, and the transfer no longer holds: it is never sent', async () => {
    const { payment, signed, sweepTxId } = await delegatedSweep()
    const state = statePath()
    const interrupted = await broadcastRun(signed, {
      rpcUrl: node.tronUrl(NETWORK),
      statePath: state,
      admin,
      log: (line) => {
        if (line.startsWith('confirmed delegate:')) throw new Error('interrupted')
      },
    })
    expect(interrupted.error).toBe('interrupted')
    expect(await delegatedOut(wallet.tronTreasury.address)).toBe(7_072_000_000n)
    await treasurySpendsItsUsdt()

    const resumed = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(resumed.error).toMatch(
      new RegExp(
        `^stopped before sweep:${payment.address}:USDT: it needs 130,285 energy now; the plan gives it 70,720`,
      ),
    )
    expect(resumed.error).toContain(`The energy delegated to ${payment.address} is taken back.`)
    expect(await delegatedOut(wallet.tronTreasury.address)).toBe(0n)
    expect(await tronWeb.trx.getUnconfirmedTransactionInfo(sweepTxId)).toEqual({})
    expect(await usdt(payment.address)).toBe(10_000_000n)
  })
})

describe('TRON broadcast: a sweep is recorded once final', () => {
  it('not at inclusion: a run that ends before the solidity node has it records it on the next run', async () => {
    const [payment] = await paid([{ index: 10, trx: '5' }])
    if (payment === undefined) throw new Error('no payment')
    const { plan, signed } = await planAndSign(payment.rows, input(), 'TRON', wallet)
    const state = statePath()
    const first = await broadcastRun(signed, {
      rpcUrl: node.tronUrl(NETWORK),
      statePath: state,
      admin,
      maxPolls: 40,
      // the chain stops right after the block holding the sweep: it never becomes final in this run
      log: (line) => {
        if (line.startsWith('confirmed sweep:')) void node.simulator.stop()
      },
    })
    const sweep = signed.steps[0]
    expect(first.error).toBe(
      `step sweep:${payment.address}:TRX (${sweep?.txId}) is in a block but not final yet: run broadcast again to record it`,
    )
    expect(admin.recorded).toEqual([])

    await node.simulator.start()
    const second = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(second.error).toBeUndefined()
    expect(admin.recorded).toEqual([
      {
        paymentId: 'pay_10',
        txHash: sweep?.txId,
        currency: 'TRX',
        amount: plan.sweeps[0]?.amount,
        fee: '0',
        feeCurrency: 'TRX',
        treasury: wallet.tronTreasury.address,
      },
    ])
    expect((await tronWeb.trx.getTransactionInfo(sweep?.txId as string)).blockNumber).toEqual(
      expect.any(Number),
    )
  })
})

describe('TRON plan on a chain with nothing solidified yet', () => {
  it('says to wait and plan again, rather than fail on the empty block the solidity node answers', async () => {
    // not started: it produces no block
    const young = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 3000 }] })
    try {
      // the treasury funded in a block, which needs 18 more on top to be solidified
      await young.simulator.submitTransfer(NETWORK, {
        to: wallet.tronTreasury.address,
        amount: '100',
        currency: 'TRX',
      })
      await young.simulator.mineBlocks(NETWORK, 2)
      const payments = await paid([{ index: 20, usdt: '5' }])
      const rows = payments.flatMap((payment) => payment.rows)
      await expect(
        planAndSign(rows, { ...input(), rpcUrl: young.tronUrl(NETWORK) }, 'TRON', wallet),
      ).rejects.toThrow(/no solidified block to build the plan on yet .* wait a minute and plan again/)
    } finally {
      await young.close()
    }
  })
})

// chainpay-wallet's TRON refunds and payouts against the simulated java-tron node, through tronweb as
// in production (docs/treasury.md, "Refunds and payouts in a plan"): the treasury pays each recipient exactly
// its amount (a new recipient activated, the transfer's energy burned), the admin API's states follow
// the chain (sending in the plan, sent before the transaction, completed with the network fee once
// final, failed on chain), and nothing is sent twice, whatever is run again.

import { randomUUID } from 'node:crypto'
import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, resolveAsset, toUnits } from '@chainpay/domain'
import { TronWeb } from 'tronweb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PlanInput } from './plan-input.js'
import { signPlan } from './plan-signer.js'
import { startNodeInterceptor } from './testing/node-interceptor.js'
import { type RecordingAdminApi, recordingAdminApi } from './testing/recording-admin-api.js'
import {
  broadcastRun,
  outgoingOf,
  outgoingRow,
  planAndSign,
  planInput,
  type SweepWallet,
  statePath,
  sweepWallet,
} from './testing/sweep-fixtures.js'

const NETWORK = 'TRON'
const USDT = resolveAsset(defaultAssetRegistry, { network: NETWORK, currency: 'USDT' }).contract as string
const TRX = 1_000_000n

let node: SimulatorNode
let tronWeb: TronWeb
let wallet: SweepWallet
let admin: RecordingAdminApi

beforeEach(async () => {
  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 25 }] })
  await node.simulator.mineBlocks(NETWORK, 20)
  await node.simulator.start()
  tronWeb = new TronWeb({ fullHost: node.tronUrl(NETWORK) })
  wallet = sweepWallet()
  await node.simulator.submitTransfer(NETWORK, {
    to: wallet.tronTreasury.address,
    amount: '500',
    currency: 'TRX',
  })
  await node.simulator.submitTransfer(NETWORK, {
    to: wallet.tronTreasury.address,
    amount: '100',
    currency: 'USDT',
  })
})

afterEach(() => node.close())

/** a recipient nobody paid yet: its account does not exist */
const newRecipient = (index: number) => wallet.tronPayment(700 + index).address

async function trx(address: string): Promise<bigint> {
  return BigInt((await tronWeb.trx.getAccount(address)).balance ?? 0)
}

async function usdt(address: string): Promise<bigint> {
  return node.simulator.balanceOf(NETWORK, address, USDT)
}

function input(fields: Partial<PlanInput> = {}): PlanInput {
  return planInput(NETWORK, {
    rpcUrl: node.tronUrl(NETWORK),
    treasury: { address: wallet.tronTreasury.address, derivationPath: wallet.tronTreasury.derivationPath },
    ...fields,
  })
}

/** a refund of 10 USDT and a payout of 25 TRX, both to recipients whose accounts do not exist */
function readyItems(): void {
  admin = recordingAdminApi(
    [],
    [
      outgoingRow(NETWORK, {
        kind: 'refund',
        id: 'r1',
        currency: 'USDT',
        amount: '10',
        address: newRecipient(1),
      }),
      outgoingRow(NETWORK, {
        kind: 'payout',
        id: 'p1',
        currency: 'TRX',
        amount: '25',
        address: newRecipient(2),
      }),
    ],
  )
}

async function planned(beforeMark?: Parameters<typeof outgoingOf>[2]) {
  return planAndSign([], input(), 'TRON', wallet, await outgoingOf(admin, NETWORK, beforeMark))
}

describe('TRON refunds and payouts: plan, sign, broadcast', () => {
  it('pays exactly each amount (USDT to a new recipient: activation and energy; TRX creating the account), records sent, then completed with what the treasury paid', async () => {
    readyItems()
    const { plan, lines, signed } = await planned()
    expect(plan.version).toBe(2)
    expect(plan.steps.map((step) => step.id)).toEqual([
      'activate:refund:r1',
      'pay:refund:r1',
      'pay:payout:p1',
    ])
    expect(plan.outgoing?.map((item) => [item.kind, item.id, item.amount, item.stepId])).toEqual([
      ['refund', 'r1', '10', 'pay:refund:r1'],
      ['payout', 'p1', '25', 'pay:payout:p1'],
    ])
    expect(admin.transitions).toEqual([
      `refund:r1 sending ${plan.planId}`,
      `payout:p1 sending ${plan.planId}`,
    ])
    expect(lines).toContain('  pays out 10 USDT')
    expect(lines).toContain('  pays out 25 TRX')
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}refund r1: 10 USDT to T\w+ \(activation, 130,285 energy/),
    )

    const treasuryBefore = await trx(wallet.tronTreasury.address)
    const state = statePath()
    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(run.error).toBeUndefined()
    expect(await usdt(newRecipient(1))).toBe(10_000_000n)
    // the activation's sun, and nothing else
    expect(await trx(newRecipient(1))).toBe(1n)
    expect(await trx(newRecipient(2))).toBe(25n * TRX)
    const refund = admin.item('refund', 'r1')
    const payout = admin.item('payout', 'p1')
    expect([refund.status, refund.txHash]).toEqual(['completed', signed.steps[1]?.txId])
    expect([payout.status, payout.txHash]).toEqual(['completed', signed.steps[2]?.txId])
    // the network fees recorded are what the treasury lost beyond the 25 TRX paid out
    const spent = treasuryBefore - (await trx(wallet.tronTreasury.address)) - 25n * TRX
    const fees = [refund, payout].map((item) => toUnits(item.networkFee?.amount ?? '', 6))
    expect(fees[0]).toBeGreaterThan(1n * TRX)
    expect((fees[0] ?? 0n) + (fees[1] ?? 0n)).toBe(spent)
    expect(refund.networkFee?.currency).toBe('TRX')

    // run again: nothing sent, nothing recorded twice
    const transitions = [...admin.transitions]
    const again = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(again.error).toBeUndefined()
    expect(admin.transitions).toEqual(transitions)
    expect(await usdt(newRecipient(1))).toBe(10_000_000n)
  })

  it('a broadcast killed after recording sent, and one that sent but saw no block: run again, each transaction is sent once and paid once', async () => {
    readyItems()
    const { signed } = await planned()
    const payRefund = signed.steps[1]?.txId as string
    const payPayout = signed.steps[2]?.txId as string
    const broadcasts = new Map<string, number>()
    const proxy = await startNodeInterceptor({
      target: node.url,
      async intercept(request) {
        if (request.path.endsWith('/wallet/broadcasttransaction')) {
          for (const txId of [payRefund, payPayout])
            if (request.body.includes(txId)) broadcasts.set(txId, (broadcasts.get(txId) ?? 0) + 1)
        }
        return undefined
      },
    })
    const rpcUrl = `${proxy.url}/chains/${NETWORK}`
    const state = statePath()
    try {
      // killed right after the admin API recorded the refund sent, before its transaction left
      const crashed = await broadcastRun(signed, {
        rpcUrl,
        statePath: state,
        admin,
        log: (line) => {
          if (line.startsWith('recorded refund r1: sent')) throw new Error('killed')
        },
      })
      expect(crashed.error).toBe('killed')
      expect(admin.item('refund', 'r1').status).toBe('sent')
      expect(broadcasts.get(payRefund)).toBeUndefined()
      // then a run that sends and does not poll: the next run finds what it sent on chain
      const impatient = await broadcastRun(signed, { rpcUrl, statePath: state, admin, maxPolls: 0 })
      // sent; seen in no block, or in one not final yet: either way nothing completed in this run
      expect(impatient.error).toMatch(
        /is not in a block yet: run broadcast again|is in a block but not final yet/,
      )
      for (const txId of [payRefund, payPayout])
        await expect
          .poll(async () => (await tronWeb.trx.getUnconfirmedTransactionInfo(txId)).blockNumber)
          .toEqual(expect.any(Number))
      const done = await broadcastRun(signed, { rpcUrl, statePath: state, admin })
      expect(done.error).toBeUndefined()
    } finally {
      await proxy.close()
    }
    expect(broadcasts.get(payRefund)).toBe(1)
    expect(broadcasts.get(payPayout)).toBe(1)
    expect(await usdt(newRecipient(1))).toBe(10_000_000n)
    expect(await trx(newRecipient(2))).toBe(25n * TRX)
    expect(admin.transitions.filter((line) => line.startsWith('refund:r1'))).toEqual([
      expect.stringMatching(/^refund:r1 sending /),
      `refund:r1 sent ${payRefund}`,
      expect.stringMatching(/^refund:r1 completed \d/),
    ])
  })

  it('a transfer that fails on chain (the treasury spent its USDT after the check) is recorded failed, with why', async () => {
    readyItems()
    const { signed } = await planned()
    const payRefund = signed.steps[1]?.txId as string
    const proxy = await startNodeInterceptor({
      target: node.url,
      async intercept(request) {
        if (request.path.endsWith('/wallet/broadcasttransaction') && request.body.includes(payRefund)) {
          // another transaction of the treasury lands first: its USDT leaves
          await node.simulator.submitTransfer(NETWORK, {
            from: wallet.tronTreasury.address,
            to: wallet.tronPayment(900).address,
            amount: '100',
            currency: 'USDT',
          })
        }
        return undefined
      },
    })
    const state = statePath()
    try {
      const run = await broadcastRun(signed, {
        rpcUrl: `${proxy.url}/chains/${NETWORK}`,
        statePath: state,
        admin,
      })
      expect(run.error).toMatch(new RegExp(`^step pay:refund:r1 \\(${payRefund}\\) failed on chain: REVERT`))
    } finally {
      await proxy.close()
    }
    const refund = admin.item('refund', 'r1')
    expect([refund.status, refund.txHash]).toEqual(['failed', payRefund])
    expect(refund.failureReason).toMatch(/^failed on chain: REVERT/)
    expect(await usdt(newRecipient(1))).toBe(0n)
    // the payout stands alone: paid all the same
    expect(admin.item('payout', 'p1').status).toBe('completed')
    // recorded: a run again has nothing left to do, and says nothing more of it
    const transitions = [...admin.transitions]
    const again = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(again.error).toBeUndefined()
    expect(admin.transitions).toEqual(transitions)
  })

  it('stops before a payment the treasury can no longer make, leaving it sending (not sent) for a run after the treasury is funded', async () => {
    admin = recordingAdminApi(
      [],
      [
        outgoingRow(NETWORK, {
          kind: 'payout',
          id: 'p1',
          currency: 'TRX',
          amount: '25',
          address: newRecipient(2),
        }),
      ],
    )
    const { signed } = await planned()
    // the treasury's TRX leaves after the plan
    await node.simulator.submitTransfer(NETWORK, {
      from: wallet.tronTreasury.address,
      to: wallet.tronPayment(900).address,
      amount: '490',
      currency: 'TRX',
    })
    const state = statePath()
    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(run.error).toMatch(
      /^stopped before pay:payout:p1: the treasury holds \d+(\.\d+)? TRX, and it sends 25 and burns 1\.1 creating T\w+: send it TRX/,
    )
    expect(admin.item('payout', 'p1').status).toBe('sending')
    await node.simulator.submitTransfer(NETWORK, {
      to: wallet.tronTreasury.address,
      amount: '100',
      currency: 'TRX',
    })
    const funded = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: state, admin })
    expect(funded.error).toBeUndefined()
    expect(await trx(newRecipient(2))).toBe(25n * TRX)
    expect(admin.item('payout', 'p1').status).toBe('completed')
  })

  it('an item released after the plan is never sent by it; one canceled before it was marked is left out', async () => {
    readyItems()
    admin = recordingAdminApi(
      [],
      [
        ...(await admin.outgoing({ network: NETWORK, status: 'ready' })),
        outgoingRow(NETWORK, {
          kind: 'refund',
          id: 'r2',
          currency: 'USDT',
          amount: '3',
          address: newRecipient(3),
        }),
      ],
    )
    // the merchant cancels r2 between the list and its marking
    const { plan, lines, signed } = await planned((row) => {
      if (row.id === 'r2') admin.cancel('refund', 'r2')
    })
    expect(plan.outgoing?.map((item) => item.id)).toEqual(['r1', 'p1'])
    expect(plan.skipped).toContainEqual(
      expect.objectContaining({ kind: 'refund', id: 'r2', reason: 'NOT_READY' }),
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}refund r2 left out \(3 USDT\): NOT_READY, .*canceled/),
    )
    // the operator gives r1 back: this plan will not pay it
    await admin.release({ kind: 'refund', id: 'r1' }, plan.planId as string)
    const run = await broadcastRun(signed, { rpcUrl: node.tronUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toMatch(/^refund r1 is no longer sending in plan .*: activate:refund:r1 is not sent/)
    expect(await trx(newRecipient(1))).toBe(0n)
    expect(await usdt(newRecipient(1))).toBe(0n)
    expect(admin.item('refund', 'r1').status).toBe('ready')
    expect(admin.item('refund', 'r2').status).toBe('canceled')
    expect(admin.item('payout', 'p1').status).toBe('completed')
  })

  it('leaves out what the treasury cannot pay after the items before it, saying what is missing', async () => {
    admin = recordingAdminApi(
      [],
      [
        outgoingRow(NETWORK, {
          kind: 'refund',
          id: 'big',
          currency: 'USDT',
          amount: '500',
          address: newRecipient(4),
        }),
        outgoingRow(NETWORK, {
          kind: 'payout',
          id: 'p2',
          currency: 'TRX',
          amount: '499',
          address: newRecipient(5),
        }),
        outgoingRow(NETWORK, {
          kind: 'refund',
          id: 'r3',
          currency: 'USDT',
          amount: '60',
          address: newRecipient(6),
        }),
      ],
    )
    const { plan } = await planned()
    expect(plan.outgoing?.map((item) => item.id)).toEqual(['r3'])
    expect(plan.skipped).toEqual([
      expect.objectContaining({
        id: 'big',
        reason: 'TREASURY_SHORT',
        detail: expect.stringMatching(
          /^it needs 500 USDT, and the treasury has 100 USDT left for it: send the treasury/,
        ),
      }),
      expect.objectContaining({
        id: 'p2',
        reason: 'TREASURY_SHORT',
        // 499 and the account's creation (1 TRX, and 0.1 of bandwidth)
        detail: expect.stringMatching(/^it needs 500\.1 TRX, and the treasury has 500 TRX left for it/),
      }),
    ])
    // left ready, for the next plan
    expect(admin.item('refund', 'big').status).toBe('ready')
  })

  it('sign refuses a plan whose item says other than its transaction does', async () => {
    readyItems()
    const { plan } = await planned()
    const tampered = structuredClone(plan)
    const refund = tampered.outgoing?.[0]
    if (refund === undefined) throw new Error('no refund')
    refund.amount = '1'
    expect(() => signPlan({ plan: tampered, planSha256: randomUUID(), mnemonic: wallet.mnemonic })).toThrow(
      /^step pay:refund:r1: its transaction does pay 10 USDT to T\w+, and refund r1 says pay 1 USDT to T\w+; refused$/,
    )
    const redirected = structuredClone(plan)
    const payout = redirected.outgoing?.[1]
    if (payout === undefined) throw new Error('no payout')
    payout.address = newRecipient(9)
    expect(() => signPlan({ plan: redirected, planSha256: randomUUID(), mnemonic: wallet.mnemonic })).toThrow(
      /^step pay:payout:p1: its transaction does pay 25 TRX to T\w+, and payout p1 says pay 25 TRX to T\w+; refused$/,
    )
    // a second refund that claims the first one's transaction: one transaction never pays two
    const doubled = structuredClone(plan)
    const first = doubled.outgoing?.[0]
    if (first === undefined) throw new Error('no refund')
    doubled.outgoing?.push({ ...first, id: 'r1-again' })
    expect(() => signPlan({ plan: doubled, planSha256: randomUUID(), mnemonic: wallet.mnemonic })).toThrow(
      "refund r1-again: its steps are not in the plan, or are another item's",
    )
  })
})

// chainpay-wallet's Solana refunds and payouts against the simulated node, through @solana/web3.js as
// in production (docs/treasury.md, "Refunds and payouts in a plan"): USDC into the recipient's associated token
// account, created with the treasury's rent; SOL to a new account at least its rent-exempt minimum;
// sweeps first in the same plan; a plan that expired records what was sent failed and gives back
// what never was; a transaction that fails on chain (another of the treasury's landed ahead of it,
// after its preflight) is recorded failed, with the node's error, and is never sent again.

import { type SimulatorNode, startSimulatorNode } from '@chainpay/chain-sim/testing'
import { defaultAssetRegistry, formatUnits, resolveAsset } from '@chainpay/domain'
import { base58 } from '@scure/base'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PlanInput } from './plan-input.js'
import { startNodeInterceptor } from './testing/node-interceptor.js'
import { type RecordingAdminApi, recordingAdminApi } from './testing/recording-admin-api.js'
import {
  balanceRow,
  broadcastRun,
  outgoingOf,
  outgoingRow,
  planAndSign,
  planInput,
  type SweepWallet,
  statePath,
  sweepWallet,
} from './testing/sweep-fixtures.js'

const NETWORK = 'SOLANA'
const USDC = new PublicKey(
  resolveAsset(defaultAssetRegistry, { network: NETWORK, currency: 'USDC' }).contract as string,
)

let node: SimulatorNode
let connection: Connection
let wallet: SweepWallet
let admin: RecordingAdminApi
/** owners nobody paid yet: no account, no token account */
let recipients: PublicKey[]

beforeEach(async () => {
  node = await startSimulatorNode({ networks: [{ network: NETWORK, blockIntervalMs: 20 }] })
  await node.simulator.start()
  connection = new Connection(node.solanaUrl(NETWORK), 'confirmed')
  wallet = sweepWallet()
  const treasury = wallet.solanaTreasury.publicKey
  await node.simulator.submitTransfer(NETWORK, { to: treasury.toBase58(), amount: '5', currency: 'SOL' })
  await node.simulator.submitTransfer(NETWORK, {
    to: getAssociatedTokenAddressSync(USDC, treasury).toBase58(),
    amount: '100',
    currency: 'USDC',
  })
  recipients = [0, 1, 2].map(() => Keypair.generate().publicKey)
  admin = recordingAdminApi(
    [],
    [
      outgoingRow(NETWORK, {
        kind: 'refund',
        id: 'r1',
        currency: 'USDC',
        amount: '10',
        address: recipients[0]?.toBase58() as string,
      }),
      outgoingRow(NETWORK, {
        kind: 'payout',
        id: 'p1',
        currency: 'SOL',
        amount: '1',
        address: recipients[1]?.toBase58() as string,
      }),
      // below what a new account must hold: the runtime would refuse it
      outgoingRow(NETWORK, {
        kind: 'payout',
        id: 'dust',
        currency: 'SOL',
        amount: '0.0001',
        address: recipients[2]?.toBase58() as string,
      }),
    ],
  )
})

afterEach(() => node.close())

function input(fields: Partial<PlanInput> = {}): PlanInput {
  return planInput(NETWORK, {
    rpcUrl: node.solanaUrl(NETWORK),
    treasury: { address: wallet.solanaTreasury.publicKey.toBase58(), derivationPath: null },
    ...fields,
  })
}

async function usdcOf(owner: PublicKey | undefined): Promise<string | undefined> {
  const account = getAssociatedTokenAddressSync(USDC, owner as PublicKey, true)
  if ((await connection.getAccountInfo(account)) === null) return undefined
  return (await connection.getTokenAccountBalance(account)).value.amount
}

describe('Solana refunds and payouts: plan, sign, broadcast', () => {
  it('USDC to an owner without a token account (created, the treasury pays its rent), SOL to a new account, after the sweeps of the same plan', async () => {
    const payment = wallet.solanaPayment(1)
    await node.simulator.submitTransfer(NETWORK, {
      to: getAssociatedTokenAddressSync(USDC, new PublicKey(payment.address)).toBase58(),
      amount: '7',
      currency: 'USDC',
    })
    const sweepRows = [balanceRow(NETWORK, payment, { paymentId: 'pay_1', currency: 'USDC', received: '7' })]
    const { plan, lines, signed } = await planAndSign(
      sweepRows,
      input(),
      'SOLANA',
      wallet,
      await outgoingOf(admin, NETWORK),
    )
    // the sweep first: the treasury's token account it fills is the one the refund pays from
    expect(plan.steps.map((step) => step.id)).toEqual([
      `sweep:${payment.address}`,
      'pay:refund:r1',
      'pay:payout:p1',
    ])
    expect(plan.skipped).toEqual([
      expect.objectContaining({
        id: 'dust',
        reason: 'BELOW_RENT_MINIMUM',
        detail: expect.stringContaining('a new Solana account must receive at least 0.00089088 SOL'),
      }),
    ])
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}refund r1: 10 USDC to \w+ \(fee 0\.000005 SOL, rent 0\.00203928 SOL/),
    )
    expect(admin.item('payout', 'dust').status).toBe('ready')

    const run = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: statePath(), admin })
    expect(run.error).toBeUndefined()
    expect(await usdcOf(recipients[0])).toBe('10000000')
    expect(await connection.getBalance(recipients[0] as PublicKey)).toBe(0)
    expect(await connection.getBalance(recipients[1] as PublicKey)).toBe(1_000_000_000)
    expect(await usdcOf(wallet.solanaTreasury.publicKey)).toBe('97000000')
    const refund = admin.item('refund', 'r1')
    expect([refund.status, refund.txHash, refund.networkFee]).toEqual([
      'completed',
      signed.steps[1]?.txId,
      { currency: 'SOL', amount: '0.00204428' },
    ])
    expect(admin.item('payout', 'p1').networkFee).toEqual({ currency: 'SOL', amount: '0.000005' })
    expect(admin.recorded.map(({ paymentId, amount }) => `${paymentId} ${amount}`)).toEqual(['pay_1 7'])
  })

  it('a plan that expired: the item recorded sent is failed, the one never sent is given back for the next plan', async () => {
    const { signed } = await planAndSign([], input(), 'SOLANA', wallet, await outgoingOf(admin, NETWORK))
    const state = statePath()
    const killed = await broadcastRun(signed, {
      rpcUrl: node.solanaUrl(NETWORK),
      statePath: state,
      admin,
      log: (line) => {
        if (line.startsWith('recorded refund r1: sent')) throw new Error('killed')
      },
    })
    expect(killed.error).toBe('killed')
    // the blockhash's 150 blocks pass before broadcast is run again
    await node.simulator.mineBlocks(NETWORK, 200)
    const late = await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: state, admin })
    expect(late.error).toMatch(/expired before landing/)
    expect(late.lines).toContain(
      'recorded refund r1: failed, its transaction expired before landing; it is refundable or available again',
    )
    expect(late.lines).toContain(
      'released payout p1: never sent, and this plan has expired; the next plan takes it',
    )
    const refund = admin.item('refund', 'r1')
    expect([refund.status, refund.failureReason]).toEqual([
      'failed',
      `expired: its transaction ${signed.steps[0]?.txId} never landed`,
    ])
    expect(admin.item('payout', 'p1')).toMatchObject({ status: 'ready', planId: null })
    expect(await usdcOf(recipients[0])).toBeUndefined()
    expect(await connection.getBalance(recipients[1] as PublicKey)).toBe(0)

    // run once more: nothing more is recorded
    const transitions = [...admin.transitions]
    await broadcastRun(signed, { rpcUrl: node.solanaUrl(NETWORK), statePath: state, admin })
    expect(admin.transitions).toEqual(transitions)
  })

  it("a refund (USDC) and a payout (SOL) whose transactions fail on chain, each after another transaction of the treasury landed ahead of it: recorded failed with the node's error, their fees charged, nothing paid; a run again sends nothing and records nothing", async () => {
    const { signed } = await planAndSign([], input(), 'SOLANA', wallet, await outgoingOf(admin, NETWORK))
    const payRefund = signed.steps.find((step) => step.id === 'pay:refund:r1')?.txId as string
    const payPayout = signed.steps.find((step) => step.id === 'pay:payout:p1')?.txId as string
    const treasury = wallet.solanaTreasury.publicKey
    const stranger = Keypair.generate().publicKey
    // the treasury's key signs elsewhere too: its USDC leaves just ahead of the refund, and all but
    // 0.5 SOL just ahead of the payout of 1 SOL; both after the preflight of each, which saw them not
    await node.simulator.submitTransfer(
      NETWORK,
      {
        from: getAssociatedTokenAddressSync(USDC, treasury).toBase58(),
        to: getAssociatedTokenAddressSync(USDC, stranger).toBase58(),
        amount: '100',
        currency: 'USDC',
      },
      { landsAheadOf: payRefund },
    )
    const treasuryBefore = BigInt(await connection.getBalance(treasury))
    const sends = new Map<string, number>()
    const proxy = await startNodeInterceptor({
      target: node.url,
      async intercept(request) {
        const call = JSON.parse(request.body) as { method?: string; params?: [string] }
        if (call.method === 'sendTransaction' && call.params !== undefined) {
          const [sent] = VersionedTransaction.deserialize(Buffer.from(call.params[0], 'base64')).signatures
          const signature = base58.encode(sent as Uint8Array)
          sends.set(signature, (sends.get(signature) ?? 0) + 1)
          if (signature === payPayout) {
            const held = BigInt(await connection.getBalance(treasury))
            await node.simulator.submitTransfer(
              NETWORK,
              {
                from: treasury.toBase58(),
                to: stranger.toBase58(),
                amount: formatUnits(held - 500_000_000n, 9),
                currency: 'SOL',
              },
              { landsAheadOf: payPayout },
            )
          }
        }
        return undefined
      },
    })
    const rpcUrl = `${proxy.url}/chains/${NETWORK}`
    const state = statePath()
    try {
      const run = await broadcastRun(signed, { rpcUrl, statePath: state, admin })
      expect(run.error).toMatch(
        new RegExp(
          `^step pay:refund:r1 \\(${payRefund}\\) failed on chain: \\{"InstructionError":\\[1,\\{"Custom":1\\}\\]\\}`,
        ),
      )
      expect(run.error).toContain(`step pay:payout:p1 (${payPayout}) failed on chain: {"InstructionError":[`)
      expect(run.lines).toContain(
        // the token program's TransferChecked, after the token account's creation: insufficient funds
        'recorded refund r1: failed on chain ({"InstructionError":[1,{"Custom":1}]}); it is refundable or available again',
      )
      // run again: nothing sent, nothing recorded
      const transitions = [...admin.transitions]
      const again = await broadcastRun(signed, { rpcUrl, statePath: state, admin })
      expect(again.error).toBeUndefined()
      expect(admin.transitions).toEqual(transitions)
    } finally {
      await proxy.close()
    }
    expect(Object.fromEntries(sends)).toEqual({ [payRefund]: 1, [payPayout]: 1 })
    const refund = admin.item('refund', 'r1')
    expect([refund.status, refund.txHash, refund.failureReason]).toEqual([
      'failed',
      payRefund,
      'failed on chain: {"InstructionError":[1,{"Custom":1}]}',
    ])
    const payout = admin.item('payout', 'p1')
    expect([payout.status, payout.txHash, payout.failureReason]).toEqual([
      'failed',
      payPayout,
      'failed on chain: {"InstructionError":[0,{"Custom":1}]}',
    ])
    // in their blocks, failed: the fee charged, the recipient's token account never created
    for (const signature of [payRefund, payPayout]) {
      const landed = await connection.getTransaction(signature, {
        commitment: 'confirmed',
        maxSupportedTransactionVersion: 0,
      })
      expect(landed?.meta?.err).toMatchObject({ InstructionError: expect.any(Array) })
      expect(landed?.meta?.fee).toBe(5000)
    }
    expect(await usdcOf(recipients[0])).toBeUndefined()
    expect(await connection.getBalance(recipients[1] as PublicKey)).toBe(0)
    expect(await connection.getBalance(treasury)).toBe(500_000_000 - 5000)
    expect(await usdcOf(stranger)).toBe('100000000')
    expect(treasuryBefore).toBeGreaterThan(500_000_000n)
  })
})

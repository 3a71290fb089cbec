// The TRON refunds and payouts of a plan: the treasury pays each recipient exactly its amount (a TRX
// transfer, or a TRC20 transfer(recipient, amount) with the energy its estimate plus 10% needs, burned
// or the treasury's own), after activating a recipient account that does not exist yet as a sweep
// activates a payment address: 1 sun, whose creation the treasury burns (docs/treasury.md, "Refunds
// and payouts"). Unsigned transactions only; the treasury signs them offline.

import { formatUnits, toUnits } from '@chainpay/domain'
import { TronWeb } from 'tronweb'
import { CommandError } from './command-error.js'
import type { OutgoingCandidate, OutgoingPlanOutput } from './outgoing-candidate.js'
import type { OutgoingRow } from './outgoing-plan.js'
import type { PlanInput } from './plan-input.js'
import type { PlanStep, TronUnsignedTransaction } from './sweep-plan.js'
import {
  type TronAccountResources,
  type TronBandwidthBudget,
  type TronPrices,
  tronBandwidthBytes,
  tronTreasuryCharge,
  withHeadroom,
} from './sweep-rules.js'

const TRX = 'TRX'
const TRX_DECIMALS = 6
const MAX_EXPIRATION_MS = 24 * 60 * 60 * 1000
const EXPIRATION_MARGIN_MS = 5 * 60 * 1000

export async function planTronOutgoing(rows: OutgoingRow[], input: PlanInput): Promise<OutgoingPlanOutput> {
  const tronWeb = new TronWeb({
    fullNode: input.rpcUrl,
    solidityNode: input.solidityUrl ?? input.rpcUrl,
    ...(input.apiKey === undefined ? {} : { headers: { 'TRON-PRO-API-KEY': input.apiKey } }),
  })
  const treasury = input.treasury.address
  const parameters = new Map(
    (await tronWeb.trx.getChainParameters()).map((parameter) => [
      parameter.key,
      BigInt(parameter.value ?? 0),
    ]),
  )
  const treasuryAccount = await tronWeb.trx.getAccount(treasury)
  const resources = (await tronWeb.trx.getAccountResources(treasury)) as TronAccountResources
  const prices: TronPrices = {
    bandwidthSunPerByte: parameters.get('getTransactionFee') ?? 1000n,
    energySunPerUnit: parameters.get('getEnergyFee') ?? 100n,
    createAccountFeeSun: parameters.get('getCreateNewAccountFeeInSystemContract') ?? 1_000_000n,
    createAccountBandwidthFeeSun: parameters.get('getCreateAccountFee') ?? 100_000n,
    totalEnergyLimit: BigInt(resources.TotalEnergyLimit ?? 0),
    totalEnergyWeight: BigInt(resources.TotalEnergyWeight ?? 0),
  }
  // built on a solidified block, and expiring with it, as the sweep's transactions (tron-planner.ts)
  const head = await tronWeb.trx.getConfirmedCurrentBlock()
  if ((head as Partial<typeof head>).block_header?.raw_data === undefined) {
    throw new CommandError(
      'the TRON node has no solidified block to build the plan on yet: wait a minute and plan again; if this lasts, check --solidity-url',
    )
  }
  const expiration = head.block_header.raw_data.timestamp + MAX_EXPIRATION_MS - EXPIRATION_MARGIN_MS
  const blockHeader = {
    ref_block_bytes: head.block_header.raw_data.number.toString(16).slice(-4).padStart(4, '0'),
    ref_block_hash: head.blockID.slice(16, 32),
    expiration,
    timestamp: input.now.getTime(),
  }
  const sendTrx = async (to: string, sun: bigint) =>
    (await tronWeb.transactionBuilder.sendTrx(to, safeNumber(sun), treasury, {
      blockHeader,
    })) as unknown as TronUnsignedTransaction
  const treasurySigner = { role: 'treasury' as const, ...input.treasury }

  let bandwidth: TronBandwidthBudget = {
    staked: BigInt((resources.NetLimit ?? 0) - (resources.NetUsed ?? 0)),
    free: BigInt((resources.freeNetLimit ?? 0) - (resources.freeNetUsed ?? 0)),
  }
  // energy of the treasury's own stake: used before any TRX is burned (the sweeps' delegations are
  // taken back before the refunds and payouts are sent: they come after them in the file)
  let ownEnergy = BigInt((resources.EnergyLimit ?? 0) - (resources.EnergyUsed ?? 0))
  /** what a treasury transaction burns at the estimate, and at most (its bandwidth always burned) */
  const charge = (transaction: TronUnsignedTransaction, creates: boolean) => {
    const bytes = tronBandwidthBytes(transaction.raw_data_hex.length / 2)
    const charged = tronTreasuryCharge(bandwidth, bytes, creates, prices)
    bandwidth = charged.budget
    const worst = creates
      ? prices.createAccountFeeSun + prices.createAccountBandwidthFeeSun
      : bytes * prices.bandwidthSunPerByte
    return { estimated: charged.burnSun, worst }
  }

  const tokens = new Map(input.tokens.map((token) => [token.currency, token]))
  const candidates: OutgoingCandidate[] = []
  const tokenBalances = new Map<string, bigint>()
  for (const row of rows) {
    const address = row.address as string
    const recipient = await tronWeb.trx.getAccount(address)
    const exists = typeof recipient.address === 'string'
    const ref = { kind: row.kind, id: row.id }
    if (row.currency === TRX) {
      const amount = toUnits(row.amount, TRX_DECIMALS)
      const transaction = await sendTrx(address, amount)
      const fee = charge(transaction, !exists)
      candidates.push({
        row,
        amountUnits: amount,
        native: true,
        estimatedFeeUnits: fee.estimated,
        costUnits: fee.worst,
        costs: `${exists ? '' : 'creates the account, '}fees ${formatUnits(fee.estimated, TRX_DECIMALS)} TRX`,
        steps: [
          {
            id: `pay:${row.kind}:${row.id}`,
            description: `the treasury pays ${row.amount} TRX to ${address} (${row.kind} ${row.id})${exists ? '' : ', creating its account'}`,
            after: [],
            outgoing: { ...ref, role: 'pay' },
            signers: [treasurySigner],
            tron: { transaction },
          },
        ],
      })
      continue
    }
    const token = tokens.get(row.currency)
    if (token === undefined) throw new CommandError(`no TRC20 ${row.currency} on ${input.network}`)
    const amount = toUnits(row.amount, token.decimals)
    if (!tokenBalances.has(row.currency)) {
      const held = await tronWeb.transactionBuilder.triggerConstantContract(
        token.contract,
        'balanceOf(address)',
        {},
        [{ type: 'address', value: treasury }],
        treasury,
      )
      tokenBalances.set(row.currency, BigInt(`0x${held.constant_result?.[0] || '0'}`))
    }
    const steps: PlanStep[] = []
    let estimatedFee = 0n
    let worst = 0n
    if (!exists) {
      // as a sweep activates a payment address: the treasury's 1 sun creates the account
      const activation = await sendTrx(address, 1n)
      const fee = charge(activation, true)
      estimatedFee += fee.estimated + 1n
      worst += fee.worst + 1n
      steps.push({
        id: `activate:${row.kind}:${row.id}`,
        description: `the treasury sends 0.000001 TRX to ${address} (activation, for ${row.kind} ${row.id})`,
        after: [],
        outgoing: { ...ref, role: 'activate' },
        signers: [treasurySigner],
        tron: { transaction: activation },
      })
    }
    const parameters = [
      { type: 'address', value: address },
      { type: 'uint256', value: amount.toString() },
    ]
    const estimate = await tronWeb.transactionBuilder.triggerConstantContract(
      token.contract,
      'transfer(address,uint256)',
      {},
      parameters,
      treasury,
    )
    const energy = BigInt(estimate.energy_used ?? 0)
    const provided = withHeadroom(energy)
    const feeLimit = provided * prices.energySunPerUnit
    let transaction = (
      await tronWeb.transactionBuilder.triggerSmartContract(
        token.contract,
        'transfer(address,uint256)',
        { feeLimit: safeNumber(feeLimit > 0n ? feeLimit : 1n) },
        parameters,
        treasury,
      )
    ).transaction as unknown as TronUnsignedTransaction
    const untilExpiration = Math.floor((expiration - transaction.raw_data.expiration) / 1000)
    if (untilExpiration > 0)
      transaction = (await tronWeb.transactionBuilder.extendExpiration(
        transaction as never,
        untilExpiration,
        {
          txLocal: true,
        },
      )) as unknown as TronUnsignedTransaction
    const fromStake = ownEnergy >= energy ? energy : ownEnergy > 0n ? ownEnergy : 0n
    ownEnergy -= fromStake
    const energyBurn = (energy - fromStake) * prices.energySunPerUnit
    const fee = charge(transaction, false)
    estimatedFee += energyBurn + fee.estimated
    worst += feeLimit + fee.worst
    steps.push({
      id: `pay:${row.kind}:${row.id}`,
      description: `the treasury pays ${row.amount} ${row.currency} to ${address} (${row.kind} ${row.id})`,
      after: steps.map((step) => step.id),
      estimate: { energy: energy.toString(), energyPriceSun: prices.energySunPerUnit.toString() },
      outgoing: { ...ref, role: 'pay' },
      signers: [treasurySigner],
      tron: { transaction },
    })
    candidates.push({
      row,
      amountUnits: amount,
      native: false,
      estimatedFeeUnits: estimatedFee,
      costUnits: worst,
      costs: `${exists ? '' : 'activation, '}${energy.toLocaleString('en-US')} energy (${provided.toLocaleString('en-US')} with headroom), fees ${formatUnits(estimatedFee, TRX_DECIMALS)} TRX at the estimate, at most ${formatUnits(worst, TRX_DECIMALS)} TRX`,
      steps,
    })
  }
  return {
    candidates,
    funds: { nativeUnits: BigInt(treasuryAccount.balance ?? 0), tokens: tokenBalances },
    nativeCurrency: TRX,
    nativeDecimals: TRX_DECIMALS,
    validUntil: new Date(expiration),
    validity: `TRON transactions expire at ${new Date(expiration).toISOString()} (java-tron accepts at most 24 h after the head block the plan was built on)`,
  }
}

function safeNumber(units: bigint): number {
  if (units > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CommandError(`${units} sun is beyond what tronweb takes`)
  return Number(units)
}

// The TRON half of `chainpay-wallet plan`: reads each payment address, the treasury and the chain
// parameters through tronweb, and builds the unsigned transactions of the sweep (docs/treasury.md,
// "TRON: activation, energy, bandwidth"). Every amount is the chain's; every fee is priced with the
// node's own parameters.

import { formatUnits } from '@chainpay/domain'
import { TronWeb } from 'tronweb'
import type { BalanceRow } from './admin-api.js'
import { CommandError } from './command-error.js'
import type { PlanInput, PlanOutput } from './plan-input.js'
import { groupRowsByAddress, plannedSweepsOf } from './shared-address-sweeps.js'
import {
  type PlannedSweep,
  type PlanStep,
  type SkippedAddress,
  sweepSourceOf,
  type TronUnsignedTransaction,
} from './sweep-plan.js'
import {
  decideSweep,
  HEADROOM_PERCENT,
  nativeCostInTokenUnits,
  type TronAccountResources,
  type TronBandwidthBudget,
  type TronPrices,
  tronAvailableBandwidth,
  tronBandwidthBurn,
  tronBandwidthBytes,
  tronTokenSweepNeeds,
  tronTreasuryCharge,
  withHeadroom,
} from './sweep-rules.js'

const TRX_DECIMALS = 6
/** java-tron refuses an expiration more than 24 h past its head block (Manager.validateCommon) */
const MAX_EXPIRATION_MS = 24 * 60 * 60 * 1000
/** margin under that limit for the clock skew between the node's head and its next slot */
const EXPIRATION_MARGIN_MS = 5 * 60 * 1000

export async function planTron(rows: BalanceRow[], input: PlanInput): Promise<PlanOutput> {
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
  // a transfer to an account that does not exist yet creates it, and its sender pays the creation
  // (1.1 TRX on mainnet): a sweep of a payment address's whole balance could not (docs/treasury.md)
  if (rows.length > 0 && typeof (await tronWeb.trx.getAccount(treasury)).address !== 'string') {
    throw new CommandError(
      `the treasury ${treasury} is not activated on ${input.network}: send it some TRX first (its creation burns 1.1 TRX, paid by the sender), then plan again`,
    )
  }
  const treasuryResources = (await tronWeb.trx.getAccountResources(treasury)) as TronAccountResources
  const prices: TronPrices = {
    bandwidthSunPerByte: parameters.get('getTransactionFee') ?? 1000n,
    energySunPerUnit: parameters.get('getEnergyFee') ?? 100n,
    createAccountFeeSun: parameters.get('getCreateNewAccountFeeInSystemContract') ?? 1_000_000n,
    createAccountBandwidthFeeSun: parameters.get('getCreateAccountFee') ?? 100_000n,
    totalEnergyLimit: BigInt(treasuryResources.TotalEnergyLimit ?? 0),
    totalEnergyWeight: BigInt(treasuryResources.TotalEnergyWeight ?? 0),
  }
  const freePerDay = parameters.get('getFreeNetLimit') ?? 600n
  // broadcast undelegates after each transfer: one address's stake at a time must be delegatable
  const delegatable =
    input.energy === 'delegate'
      ? BigInt((await tronWeb.trx.getCanDelegatedMaxSize(treasury, 'ENERGY')).max_size ?? 0)
      : 0n
  // the reference block is a solidified one, as java-tron's own builders take (a head block could be
  // forked out, and with it every transaction that references it); the expiration counts from it too
  const head = await tronWeb.trx.getConfirmedCurrentBlock()
  // a chain too young to have solidified a block (a fresh test network or simulator) answers {}
  if ((head as Partial<typeof head>).block_header?.raw_data === undefined) {
    throw new CommandError(
      `the TRON node has no solidified block to build the plan on yet (walletsolidity/getnowblock answered none): a chain solidifies a block once 19 were produced on top of it, so wait a minute and plan again; if this lasts, check --solidity-url`,
    )
  }
  const expiration = head.block_header.raw_data.timestamp + MAX_EXPIRATION_MS - EXPIRATION_MARGIN_MS
  const blockHeader = {
    ref_block_bytes: head.block_header.raw_data.number.toString(16).slice(-4).padStart(4, '0'),
    ref_block_hash: head.blockID.slice(16, 32),
    expiration,
    timestamp: input.now.getTime(),
  }
  // the treasury's bandwidth is spent transaction by transaction, by the sweeps the plan keeps
  let treasuryBandwidth: TronBandwidthBudget = {
    staked: BigInt((treasuryResources.NetLimit ?? 0) - (treasuryResources.NetUsed ?? 0)),
    free: BigInt((treasuryResources.freeNetLimit ?? 0) - (treasuryResources.freeNetUsed ?? 0)),
  }
  const build = {
    sendTrx: async (from: string, to: string, sun: bigint) =>
      asUnsigned(await tronWeb.transactionBuilder.sendTrx(to, safeNumber(sun), from, { blockHeader })),
    delegate: async (receiver: string, sun: bigint, undelegate: boolean) =>
      asUnsigned(
        undelegate
          ? await tronWeb.transactionBuilder.undelegateResource(
              safeNumber(sun),
              receiver,
              'ENERGY',
              treasury,
              {
                blockHeader,
              },
            )
          : await tronWeb.transactionBuilder.delegateResource(
              safeNumber(sun),
              receiver,
              'ENERGY',
              treasury,
              false,
              undefined,
              {
                blockHeader,
              },
            ),
      ),
  }

  const steps: PlanStep[] = []
  const sweeps: PlannedSweep[] = []
  const skipped: SkippedAddress[] = []
  const moved = new Map<string, bigint>()
  let treasuryChange = 0n
  let treasurySpent = 0n
  /** the TRC20 transfers kept: their energy at the estimates and with headroom, the most stake lent at once */
  const energy = { transfers: 0, estimated: 0n, provided: 0n, burnHeadroomSun: 0n, largestStakeSun: 0n }
  const paymentSigner = (row: BalanceRow) => ({
    role: 'payment' as const,
    address: row.address,
    derivationPath: row.derivationPath,
  })
  const treasurySigner = { role: 'treasury' as const, ...input.treasury }

  // TRX at a token address with no TRX row: what it was given for energy and did not burn (burn
  // mode's headroom), which a later plan returns to the treasury (docs/treasury.md, "Headroom")
  const withCoin = new Set(rows.filter((row) => row.tokenStandard === 'NATIVE').map((row) => row.address))
  const leftovers = new Set<BalanceRow>()
  // one step per address and currency, however many payments received there (shared-address-sweeps.ts)
  const { representatives, sharersOf } = groupRowsByAddress(rows)
  for (const row of representatives) {
    if (withCoin.has(row.address)) continue
    withCoin.add(row.address)
    leftovers.add({
      ...row,
      currency: 'TRX',
      tokenStandard: 'NATIVE',
      contract: null,
      received: '0',
      swept: '0',
    })
  }
  // an address's token sweep first: it may use the address's TRX, which its TRX sweep then sends on
  const ordered = [...representatives, ...leftovers].sort(
    (a, b) => Number(a.tokenStandard === 'NATIVE') - Number(b.tokenStandard === 'NATIVE'),
  )
  const spentAt = new Map<string, { sun: bigint; bytes: bigint; stepId: string }>()
  const accounts = new Map<
    string,
    { activated: boolean; balance: bigint; resources: TronAccountResources | undefined }
  >()
  for (const row of ordered) {
    // read once per address: an address's rows (its tokens, its TRX) share what it holds
    let read = accounts.get(row.address)
    if (read === undefined) {
      const account = await tronWeb.trx.getAccount(row.address)
      const activated = typeof account.address === 'string'
      read = {
        activated,
        balance: BigInt(account.balance ?? 0),
        resources: activated
          ? ((await tronWeb.trx.getAccountResources(row.address)) as TronAccountResources)
          : undefined,
      }
      accounts.set(row.address, read)
    }
    const { activated, resources } = read
    const earlier = spentAt.get(row.address)
    const trxBalance = read.balance - (earlier?.sun ?? 0n)
    const addressBandwidth = tronAvailableBandwidth(resources, freePerDay) - (earlier?.bytes ?? 0n)
    const skip = (holds: bigint, decimals: number, reason: string) =>
      skipped.push({
        ...sweepSourceOf(row),
        address: row.address,
        currency: row.currency,
        holds: formatUnits(holds, decimals),
        reason,
      })

    if (row.tokenStandard === 'NATIVE') {
      // the address pays its own bandwidth: free bandwidth first, else the amount shrinks by the burn
      let fee = 0n
      let transaction = await build.sendTrx(row.address, treasury, trxBalance > 0n ? trxBalance : 1n)
      for (let round = 0; round < 3 && trxBalance > 0n; round += 1) {
        const nextFee = tronBandwidthBurn(
          tronBandwidthBytes(transaction.raw_data_hex.length / 2),
          addressBandwidth,
          prices,
        )
        if (nextFee === fee && round > 0) break
        fee = nextFee
        if (trxBalance - fee <= 0n) break
        transaction = await build.sendTrx(row.address, treasury, trxBalance - fee)
      }
      const amount = trxBalance - fee
      const leftover = leftovers.has(row)
      // a return worth less than the bandwidth of its own transfer waits, and is not listed
      if (
        leftover &&
        trxBalance < tronBandwidthBytes(transaction.raw_data_hex.length / 2) * prices.bandwidthSunPerByte
      )
        continue
      const decision = decideSweep(
        {
          amountUnits: amount > 0n ? trxBalance : 0n,
          minimumUnits: input.minimums.get(row.currency) ?? 0n,
          netNativeCostUnits: fee,
          costInAssetUnits: fee,
        },
        input,
      )
      if (!decision.sweep || amount <= 0n) {
        if (!leftover) skip(trxBalance, TRX_DECIMALS, decision.sweep ? 'FEES_EXCEED_AMOUNT' : decision.reason)
        continue
      }
      const id = `sweep:${row.address}:TRX`
      steps.push({
        id,
        description: `${row.address} sends ${formatUnits(amount, TRX_DECIMALS)} TRX to the treasury${leftover ? ' (TRX it was given for energy and did not burn)' : ''}`,
        after: earlier === undefined ? [] : [earlier.stepId],
        signers: [paymentSigner(row)],
        tron: { transaction },
      })
      sweeps.push(
        ...plannedSweepsOf(
          leftover ? [row] : sharersOf(row),
          { units: amount, decimals: TRX_DECIMALS },
          { units: fee, currency: 'TRX', decimals: TRX_DECIMALS },
          id,
        ),
      )
      moved.set(row.currency, (moved.get(row.currency) ?? 0n) + amount)
      treasuryChange += amount
      continue
    }

    // TRC20: balanceOf, then the energy of transfer(treasury, balance) as the node estimates it
    if (row.contract === null)
      throw new CommandError(`${row.paymentId ?? row.depositId}: a TRC20 row without a contract`)
    const decimals = input.decimals(row.currency)
    const parameters = [
      { type: 'address', value: treasury },
      { type: 'uint256', value: '0' },
    ]
    const balanceCall = await tronWeb.transactionBuilder.triggerConstantContract(
      row.contract,
      'balanceOf(address)',
      {},
      [{ type: 'address', value: row.address }],
      row.address,
    )
    const tokenBalance = BigInt(`0x${balanceCall.constant_result?.[0] || '0'}`)
    if (tokenBalance === 0n) {
      skip(0n, decimals, 'EMPTY')
      continue
    }
    parameters[1] = { type: 'uint256', value: tokenBalance.toString() }
    const estimate = await tronWeb.transactionBuilder.triggerConstantContract(
      row.contract,
      'transfer(address,uint256)',
      {},
      parameters,
      row.address,
    )
    // energy_used is the receipt's energy_usage_total: the dynamic-energy penalty is already in it.
    // The plan gives the transfer that plus the headroom, and caps its burn there (docs/treasury.md)
    const estimatedEnergy = BigInt(estimate.energy_used ?? 0)
    const providedEnergy = withHeadroom(estimatedEnergy)
    const feeLimit = providedEnergy * prices.energySunPerUnit
    const transfer = await tronWeb.transactionBuilder.triggerSmartContract(
      row.contract,
      'transfer(address,uint256)',
      { feeLimit: safeNumber(feeLimit > 0n ? feeLimit : 1n) },
      parameters,
      row.address,
    )
    let transaction = asUnsigned(transfer.transaction)
    const untilExpiration = Math.floor((expiration - transaction.raw_data.expiration) / 1000)
    if (untilExpiration > 0)
      transaction = asUnsigned(
        await tronWeb.transactionBuilder.extendExpiration(transaction as never, untilExpiration, {
          txLocal: true,
        }),
      )
    const paymentBandwidthBurn = tronBandwidthBurn(
      tronBandwidthBytes(transaction.raw_data_hex.length / 2),
      addressBandwidth,
      prices,
    )

    const needs = tronTokenSweepNeeds({
      activated,
      trxBalanceSun: trxBalance,
      energy: estimatedEnergy,
      energyProvided: providedEnergy,
      paymentBandwidthBurnSun: paymentBandwidthBurn,
      mode: input.energy,
      prices,
    })
    const before: PlanStep[] = []
    let budget = treasuryBandwidth
    let treasuryBurn = 0n
    const treasuryStep = (
      id: string,
      description: string,
      transaction: TronUnsignedTransaction,
      creates: boolean,
    ) => {
      const charge = tronTreasuryCharge(
        budget,
        tronBandwidthBytes(transaction.raw_data_hex.length / 2),
        creates,
        prices,
      )
      budget = charge.budget
      treasuryBurn += charge.burnSun
      return { id, description, after: [], signers: [treasurySigner], tron: { transaction } }
    }
    if (needs.topUpSun > 0n) {
      const send = await build.sendTrx(treasury, row.address, needs.topUpSun)
      const description = `the treasury sends ${formatUnits(needs.topUpSun, TRX_DECIMALS)} TRX to ${row.address}${activated ? '' : ' (activation)'}`
      before.push(treasuryStep(`fund:${row.address}`, description, send, !activated))
    }
    let undelegate: PlanStep | undefined
    if (needs.stakeSun !== null) {
      if (needs.stakeSun > delegatable) {
        throw new CommandError(
          `${row.address} needs the energy of ${formatUnits(needs.stakeSun, TRX_DECIMALS)} staked TRX; the treasury can delegate ${formatUnits(delegatable, TRX_DECIMALS)}: stake more (freezebalancev2 ENERGY) or plan with --energy burn`,
        )
      }
      const delegated = `${formatUnits(needs.stakeSun, TRX_DECIMALS)} staked TRX`
      const delegate = await build.delegate(row.address, needs.stakeSun, false)
      const release = await build.delegate(row.address, needs.stakeSun, true)
      before.push({
        ...treasuryStep(
          `delegate:${row.address}`,
          `the treasury delegates the energy of ${delegated} to ${row.address}`,
          delegate,
          false,
        ),
        after: before.map((step) => step.id),
      })
      undelegate = {
        ...treasuryStep(
          `undelegate:${row.address}`,
          `the treasury takes back the energy of ${delegated} from ${row.address}`,
          release,
          false,
        ),
        after: [`sweep:${row.address}:${row.currency}`],
        undoes: `delegate:${row.address}`,
      }
    }
    // what this sweep costs: what the address burns, the treasury's burns, the sun left at the
    // address but for the headroom, which comes back
    const fee = needs.addressBurnSun + treasuryBurn + needs.leftAtAddressSun - needs.headroomSun
    const rate = input.rates.get(row.currency)
    const decision = decideSweep(
      {
        amountUnits: tokenBalance,
        minimumUnits: input.minimums.get(row.currency) ?? 0n,
        netNativeCostUnits: fee,
        costInAssetUnits:
          rate === undefined
            ? null
            : nativeCostInTokenUnits(fee, rate, { native: TRX_DECIMALS, token: decimals }),
      },
      input,
    )
    if (!decision.sweep) {
      skip(tokenBalance, decimals, decision.reason)
      continue
    }
    treasuryBandwidth = budget
    const id = `sweep:${row.address}:${row.currency}`
    steps.push(...before, {
      id,
      description: `${row.address} sends ${formatUnits(tokenBalance, decimals)} ${row.currency} to the treasury`,
      after: before.map((step) => step.id),
      estimate: { energy: estimatedEnergy.toString(), energyPriceSun: prices.energySunPerUnit.toString() },
      signers: [paymentSigner(row)],
      tron: { transaction },
    })
    if (undelegate) steps.push(undelegate)
    energy.transfers += 1
    energy.estimated += estimatedEnergy
    energy.provided += providedEnergy
    if (input.energy === 'burn')
      energy.burnHeadroomSun += (providedEnergy - estimatedEnergy) * prices.energySunPerUnit
    if (needs.stakeSun !== null && needs.stakeSun > energy.largestStakeSun)
      energy.largestStakeSun = needs.stakeSun
    sweeps.push(
      ...plannedSweepsOf(
        sharersOf(row),
        { units: tokenBalance, decimals },
        { units: fee, currency: 'TRX', decimals: TRX_DECIMALS },
        id,
      ),
    )
    spentAt.set(row.address, {
      sun: needs.reservedFromAddressSun,
      bytes: tronBandwidthBytes(transaction.raw_data_hex.length / 2),
      stepId: undelegate?.id ?? id,
    })
    moved.set(row.currency, (moved.get(row.currency) ?? 0n) + tokenBalance)
    treasuryChange -= treasuryBurn + needs.topUpSun
    treasurySpent += treasuryBurn + needs.topUpSun
  }
  return {
    steps,
    sweeps,
    skipped,
    moved,
    treasuryNativeChange: treasuryChange,
    treasurySpentUnits: treasurySpent,
    nativeCurrency: 'TRX',
    nativeDecimals: TRX_DECIMALS,
    ...(energy.transfers === 0 ? {} : { headroom: energyHeadroom(energy, input.energy) }),
    validUntil: new Date(expiration),
    validity: `TRON transactions expire at ${new Date(expiration).toISOString()} (java-tron accepts at most 24 h after the head block the plan was built on)`,
  }
}

/** what `plan` says of the energy it gives the transfers beyond the node's estimates */
function energyHeadroom(
  energy: {
    transfers: number
    estimated: bigint
    provided: bigint
    burnHeadroomSun: bigint
    largestStakeSun: bigint
  },
  mode: 'burn' | 'delegate',
): string {
  const given = `${energy.transfers} transfers, ${energy.estimated.toLocaleString('en-US')} energy at the node’s estimates; the plan gives ${energy.provided.toLocaleString('en-US')} (${HEADROOM_PERCENT}% headroom)`
  return mode === 'burn'
    ? `energy: ${given}: up to ${formatUnits(energy.burnHeadroomSun, TRX_DECIMALS)} TRX of it is left at the payment addresses if not burned`
    : `energy: ${given}, delegating at most ${(energy.largestStakeSun / 1_000_000n).toLocaleString('en-US')} staked TRX at a time, taken back after each transfer`
}

function asUnsigned(transaction: unknown): TronUnsignedTransaction {
  return transaction as TronUnsignedTransaction
}

function safeNumber(units: bigint): number {
  if (units > BigInt(Number.MAX_SAFE_INTEGER))
    throw new CommandError(`${units} sun is beyond what tronweb takes`)
  return Number(units)
}

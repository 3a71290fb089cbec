// The TRON part of the chain simulator (simulator.ts): signed transactions run as java-tron runs them
// (tron-execution.ts), the accounts and resources a node answers for, and the ledger view they read.

import { DomainError, findAssetByContract } from '@chainpay/domain'
import type { ChainSimulator, SimulatorCore } from './simulator-core.js'
import { energyOfStake, executeTronTransaction, type TronLedgerView } from './tron-execution.js'
import { decodeSignedTronTransaction } from './tron-transaction.js'

export type TronSimulatorMethods = Pick<ChainSimulator, 'sendTronTransaction' | 'tronAccount'>

export function createTronSimulation(core: SimulatorCore) {
  const { store, registry, clock, logger, simulated, headOf } = core

  const methods: TronSimulatorMethods = {
    async sendTronTransaction(network, body) {
      const entry = simulated(network)
      const name = entry.definition.network
      if (entry.definition.chain !== 'TRON') {
        throw new DomainError('VALIDATION_ERROR', `${name} is no TRON network`)
      }
      headOf(entry)
      const decoded = decodeSignedTronTransaction(body)
      return store.inTransaction(() => {
        const executed = executeTronTransaction(decoded, tronLedger(name))
        const { owner, transfer, failure, fee, info } = executed
        const submittedAt = clock()
        // a stake or a delegation moves nothing: one row of 0 TRX to itself keeps it in its block
        const moved = transfer ?? { to: owner, contract: null, amountUnits: 0n, decimals: 6 }
        store.insertTransaction(
          name,
          {
            txHash: decoded.txID,
            from: owner,
            failure,
            transfers: [{ ...moved, amountUnits: moved.amountUnits.toString() }],
          },
          submittedAt.toISOString(),
        )
        const { raw_data, raw_data_hex, signature } = body
        store.insertTronRecord(name, {
          txId: decoded.txID,
          owner,
          feeUnits: fee,
          freeBytes: executed.freeBytes,
          stakedEnergy: executed.stakedEnergy,
          frozenUnits: executed.frozenUnits,
          delegation: executed.delegation,
          submittedMs: submittedAt.getTime(),
          record: JSON.stringify({
            transaction: { txID: decoded.txID, raw_data, raw_data_hex, signature },
            info,
          }),
        })
        logger.debug({ network: name, txID: decoded.txID, fee, failure }, 'signed transaction accepted')
        return { txID: decoded.txID }
      })
    },

    async tronAccount(network, address) {
      const name = simulated(network).definition.network
      const ledger = tronLedger(name)
      if (!ledger.exists(address)) return undefined
      const stake = ledger.stake(address)
      const usage = ledger.usage(address)
      return {
        balance: ledger.balance(address),
        ...stake,
        freeNetUsed: usage.freeBytes,
        energyUsed: usage.stakedEnergy,
        energyLimit: energyOfStake(stake.frozen - stake.delegatedOut + stake.delegatedIn),
      }
    },
  }

  function tronLedger(name: string): TronLedgerView {
    const head = store.head(name)
    const nowMs = clock().getTime()
    const since = nowMs - 24 * 60 * 60 * 1000
    return {
      head: { height: head?.height ?? 0, timeMs: head ? Date.parse(head.time) : nowMs },
      blockHash: (height) => store.blockDetails(name, height, height)[0]?.hash,
      processed: (txId) => store.transactionHeight(name, txId) !== undefined,
      exists: (address) => store.receivedNative(name, address),
      balance(address) {
        const { feesPaid, frozen } = store.tronResources(name, address, since)
        return store.netReceived(name, address, null) - feesPaid - frozen
      },
      usage(address) {
        const resources = store.tronResources(name, address, since)
        return { freeBytes: resources.freeBytesSince, stakedEnergy: resources.stakedEnergySince }
      },
      stake(address) {
        const { frozen, delegatedOut, delegatedIn } = store.tronResources(name, address, since)
        return { frozen, delegatedOut, delegatedIn }
      },
      delegated: (owner, receiver) => store.tronDelegated(name, owner, receiver),
      tokenDecimals: (contract) => findAssetByContract(registry, name, contract)?.decimals,
      tokenBalance: (contract, address) => store.netReceived(name, address, contract),
    }
  }

  return { methods, tronLedger }
}

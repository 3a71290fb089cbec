// The balance port over the simulator's ledger (docs/api.md, "Balances and sweeps"), in process: what
// the simulated chain holds for an address and asset. The RPC balance readers of chain-tron and
// chain-solana read the same ledger through the node-shaped routes.

import type { Chain } from '@chainpay/domain'
import type { ChainBalanceReader } from '@chainpay/ports'
import type { ChainSimulator } from './simulator.js'

/** the simulator's ledger: balanceOf as its store sums it (simulator-store.ts), token accounts by owner */
export interface SimulatorLedger extends Pick<ChainSimulator, 'tokenAccountsOf'> {
  balanceOf(network: string, address: string, contract: string | null): Promise<bigint>
}

export function createSimulatorBalanceReader(
  ledger: SimulatorLedger,
  network: string,
  chain: Chain,
): ChainBalanceReader {
  return {
    network,
    async balanceOf({ address, contract }) {
      if (chain === 'TRON' || contract === null) return ledger.balanceOf(network, address, contract)
      // SPL: the ledger keeps balances per token account; the owner's of the mint are summed
      const accounts = (await ledger.tokenAccountsOf(network, address)).filter(
        (account) => account.mint === contract,
      )
      let total = 0n
      for (const account of accounts) total += await ledger.balanceOf(network, account.address, contract)
      return total
    },
  }
}

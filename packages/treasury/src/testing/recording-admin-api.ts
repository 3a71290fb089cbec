// The admin API's two calls as plan and broadcast make them, kept in memory, for the planner's and
// the broadcaster's tests against the simulated nodes (the end-to-end tests use the real admin API):
// balances answers the rows given; a sweep recorded twice with the same txHash and currency is
// recorded once, and with other figures refused, as POST /admin/v1/sweeps does (docs/api.md).

import type { AdminApi, BalanceRow, SweepRecord } from '../admin-api.js'
import { CommandError } from '../command-error.js'

export interface RecordingAdminApi extends AdminApi {
  /** the sweeps recorded, in order, each once */
  readonly recorded: SweepRecord[]
}

export function recordingAdminApi(rows: BalanceRow[] = []): RecordingAdminApi {
  const recorded: SweepRecord[] = []
  return {
    recorded,
    async balances({ network, walletId }) {
      return rows.filter(
        (row) => row.network === network && (walletId === undefined || row.walletId === walletId),
      )
    },
    async recordSweep(sweep) {
      const same = recorded.find(
        (earlier) => earlier.txHash === sweep.txHash && earlier.currency === sweep.currency,
      )
      if (same === undefined) recorded.push(sweep)
      else if (JSON.stringify(same) !== JSON.stringify(sweep)) {
        throw new CommandError(`POST /sweeps: HTTP 409 SWEEP_TX_REUSED ${sweep.txHash} ${sweep.currency}`)
      }
    },
  }
}

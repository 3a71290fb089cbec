// The operator's balances and sweeps (docs/api.md, "Balances and sweeps"): what each payment address
// received (from the events, through the read model), what sweeps took from it, and on request what
// the chain holds there now. Sweeps are recorded on the payment's stream by payment-command.

import type { BalanceRow, BalanceTotal, SweepView } from '@chainpay/contracts'
import {
  type AssetRegistry,
  DomainError,
  formatUnits,
  isPaymentId,
  type OpenPayment,
  paymentBalances,
  paymentWalletId,
  type Sweep,
} from '@chainpay/domain'
import type {
  ChainBalanceReader,
  FundedPaymentQuery,
  PaymentCommands,
  PaymentDocument,
  PaymentReadModel,
  RecordSweepInput,
} from '@chainpay/ports'

export interface BalanceAdminDeps {
  commands: Pick<PaymentCommands, 'recordSweep'>
  readModel: Pick<PaymentReadModel, 'listFunded'>
  /** the whole registry: a payment's asset stays known after its network stops being served */
  registry: AssetRegistry
  /** what the chains hold now, per network; a network without one answers onChain null */
  balanceReaders?: ReadonlyMap<string, ChainBalanceReader>
}

export type { BalanceRow, BalanceTotal, SweepView }

export interface BalanceFilters {
  merchantId?: string
  network?: string
  walletId?: string
}

export const balancePageLimit = { default: 50, max: 200 } as const
/** payments read per query while totalling */
const TOTALS_PAGE = 500
/** balance reads in flight at once, so that one page does not burst a provider's rate limit */
const CHAIN_READS_IN_FLIGHT = 4

export async function recordSweep(
  deps: BalanceAdminDeps,
  input: RecordSweepInput,
): Promise<{ created: boolean; sweep: SweepView }> {
  const outcome = await deps.commands.recordSweep(input)
  return { created: outcome.outcome === 'recorded', sweep: toSweepView(outcome.payment, outcome.sweep) }
}

/**
 * One page of balance rows: `limit` payments that received funds, in paymentId order, each with a
 * row per asset its address received; nextCursor continues after the page's last payment.
 */
export async function balancesPage(
  deps: BalanceAdminDeps,
  query: BalanceFilters & { limit: number; cursor?: string; onChain: boolean },
): Promise<{ data: BalanceRow[]; nextCursor: string | null }> {
  const { limit, cursor, onChain, ...filters } = query
  const afterPaymentId = cursor === undefined ? undefined : decodeBalanceCursor(cursor)
  const documents = await deps.readModel.listFunded({
    ...filters,
    ...(afterPaymentId === undefined ? {} : { afterPaymentId }),
    // one more than the page: whether there is a next page, without a count
    limit: limit + 1,
  })
  const page = documents.slice(0, limit)
  const last = page.at(-1)
  const rows = page.flatMap((document) => balanceRows(deps.registry, document))
  return {
    data: onChain ? await withOnChain(deps.balanceReaders, rows) : rows.map(({ row }) => row),
    nextCursor: documents.length > limit && last !== undefined ? encodeBalanceCursor(last.paymentId) : null,
  }
}

/**
 * Per merchant, network and currency, the sums over every payment address: read page by page from
 * the funded payments, so its cost grows with them (docs/operations.md, "Balances and sweeps").
 */
export async function balanceTotals(
  deps: BalanceAdminDeps,
  filters: BalanceFilters,
): Promise<BalanceTotal[]> {
  interface Sum {
    merchantId: string
    network: string
    currency: string
    decimals: number
    received: bigint
    swept: bigint
    addresses: number
  }
  const sums = new Map<string, Sum>()
  let afterPaymentId: string | undefined
  for (;;) {
    const query: FundedPaymentQuery = { ...filters, limit: TOTALS_PAGE }
    if (afterPaymentId !== undefined) query.afterPaymentId = afterPaymentId
    const page = await deps.readModel.listFunded(query)
    for (const { merchantId, state } of page) {
      const { network } = state.created
      for (const { currency, decimals, receivedUnits, sweptUnits } of paymentBalances(state)) {
        const key = JSON.stringify([merchantId, network, currency])
        const sum = sums.get(key) ?? {
          merchantId,
          network,
          currency,
          decimals,
          received: 0n,
          swept: 0n,
          addresses: 0,
        }
        sum.received += receivedUnits
        sum.swept += sweptUnits
        sum.addresses += 1
        sums.set(key, sum)
      }
    }
    afterPaymentId = page.at(-1)?.paymentId
    if (page.length < TOTALS_PAGE || afterPaymentId === undefined) break
  }
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { decimals, received, swept, ...sum }]) => ({
      merchantId: sum.merchantId,
      network: sum.network,
      currency: sum.currency,
      received: formatUnits(received, decimals),
      swept: formatUnits(swept, decimals),
      unswept: formatUnits(received - swept, decimals),
      addresses: sum.addresses,
    }))
}

/** a row and the decimals of its currency, which the chain's answer is written with */
interface RowOfUnits {
  row: BalanceRow
  decimals: number
}

function balanceRows(registry: AssetRegistry, document: PaymentDocument): RowOfUnits[] {
  const { created } = document.state
  return paymentBalances(document.state).map((balance) => {
    const own = balance.currency === created.currency
    const asset = registry.assets.find(
      (candidate) => candidate.network === created.network && candidate.currency === balance.currency,
    )
    const row: BalanceRow = {
      merchantId: document.merchantId,
      walletId: paymentWalletId(created),
      paymentId: document.paymentId,
      network: created.network,
      address: created.address,
      tokenAccount: own ? created.tokenAccount : null,
      derivationPath: created.derivationPath,
      currency: balance.currency,
      tokenStandard: own ? created.tokenStandard : (asset?.tokenStandard ?? null),
      contract: asset?.contract ?? null,
      received: formatUnits(balance.receivedUnits, balance.decimals),
      swept: formatUnits(balance.sweptUnits, balance.decimals),
      onChain: null,
      onChainError: null,
    }
    return { row, decimals: balance.decimals }
  })
}

async function withOnChain(
  readers: ReadonlyMap<string, ChainBalanceReader> | undefined,
  rows: RowOfUnits[],
): Promise<BalanceRow[]> {
  const read = async ({ row, decimals }: RowOfUnits): Promise<BalanceRow> => {
    const reader = readers?.get(row.network)
    if (reader === undefined) {
      return { ...row, onChainError: `no chain node configured for ${row.network} in this service` }
    }
    if (row.tokenStandard !== 'NATIVE' && row.contract === null) {
      return { ...row, onChainError: `${row.currency} is not in the asset registry of ${row.network}` }
    }
    try {
      const units = await reader.balanceOf({ address: row.address, contract: row.contract })
      return { ...row, onChain: formatUnits(units, decimals) }
    } catch (error) {
      // ChainRpcError messages name the network and call, never an endpoint's key (packages/ports)
      return { ...row, onChainError: (error as Error).message }
    }
  }
  const result: BalanceRow[] = []
  for (let start = 0; start < rows.length; start += CHAIN_READS_IN_FLIGHT) {
    result.push(...(await Promise.all(rows.slice(start, start + CHAIN_READS_IN_FLIGHT).map(read))))
  }
  return result
}

function toSweepView(payment: OpenPayment, sweep: Sweep): SweepView {
  const { paymentId, merchantId, network, address } = payment.created
  return {
    paymentId,
    merchantId,
    network,
    address,
    txHash: sweep.txHash,
    currency: sweep.currency,
    amount: formatUnits(sweep.amountUnits, sweep.decimals),
    fee: formatUnits(sweep.feeUnits, sweep.feeDecimals),
    feeCurrency: sweep.feeCurrency,
    treasury: sweep.treasury,
    sweptAt: sweep.sweptAt,
  }
}

/** the page's last payment id, base64url; opaque to the operator, and refused unless exact */
function encodeBalanceCursor(paymentId: string): string {
  return Buffer.from(paymentId, 'utf8').toString('base64url')
}

/**
 * The payment id a nextCursor names: only the exact encoding of a payment id (a lower-case UUID, as
 * payment ids are kept) passes, so that a cursor cut, altered or made up is refused rather than read
 * as a position between payments
 */
function decodeBalanceCursor(cursor: string): string {
  const paymentId = /^[A-Za-z0-9_-]{1,200}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : ''
  if (
    !isPaymentId(paymentId) ||
    paymentId !== paymentId.toLowerCase() ||
    encodeBalanceCursor(paymentId) !== cursor
  ) {
    throw new DomainError('VALIDATION_ERROR', 'cursor: not a nextCursor of this API')
  }
  return paymentId
}

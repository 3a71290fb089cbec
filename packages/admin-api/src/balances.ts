// The operator's balances and sweeps (docs/api.md, "Balances and sweeps"): what each payment address
// received (from the events, through the read model), what sweeps took from it, and on request what
// the chain holds there now. Sweeps are recorded on the payment's stream by payment-command.

import type { BalanceRow, BalanceTotal, RecordSweepBody, SweepView } from '@chainpay/contracts'
import {
  type AssetRegistry,
  DomainError,
  formatUnits,
  isPaymentId,
  type OpenDeposit,
  type OpenPayment,
  paymentBalances,
  paymentWalletId,
  type Sweep,
} from '@chainpay/domain'
import type {
  ChainBalanceReader,
  DepositAddressReadModel,
  DepositAddressView,
  DepositReadModel,
  DepositRecord,
  DepositSweepCommands,
  FundedPaymentQuery,
  PaymentCommands,
  PaymentDocument,
  PaymentReadModel,
} from '@chainpay/ports'

export interface BalanceAdminDeps {
  commands: Pick<PaymentCommands, 'recordSweep'>
  readModel: Pick<PaymentReadModel, 'listFunded'>
  /** the whole registry: a payment's asset stays known after its network stops being served */
  registry: AssetRegistry
  /** what the chains hold now, per network; a network without one answers onChain null */
  balanceReaders?: ReadonlyMap<string, ChainBalanceReader>
  /**
   * customers' confirmed deposits, listed after the payments and swept as they are (docs/treasury.md,
   * "Customers' deposit addresses in a plan"); without it the balances are the payments' only
   */
  deposits?: {
    commands: DepositSweepCommands
    readModel: Pick<DepositReadModel, 'listConfirmed'>
    /** the addresses' wallet and derivation path, which a deposit's events do not repeat */
    addresses: Pick<DepositAddressReadModel, 'get'>
  }
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
  input: RecordSweepBody,
): Promise<{ created: boolean; sweep: SweepView }> {
  const { paymentId, depositId, ...sweep } = input
  if ((paymentId === undefined) === (depositId === undefined)) {
    throw new DomainError('VALIDATION_ERROR', 'paymentId, depositId: give exactly one of them')
  }
  if (depositId !== undefined) {
    if (deps.deposits === undefined) throw new DomainError('NOT_FOUND', `deposit ${depositId} not found`)
    const outcome = await deps.deposits.commands.recordDepositSweep({ depositId, ...sweep })
    return {
      created: outcome.outcome === 'recorded',
      sweep: toDepositSweepView(outcome.deposit, outcome.sweep),
    }
  }
  const outcome = await deps.commands.recordSweep({ paymentId: paymentId as string, ...sweep })
  return { created: outcome.outcome === 'recorded', sweep: toSweepView(outcome.payment, outcome.sweep) }
}

/**
 * One page of balance rows: `limit` payments that received funds, in paymentId order, each with a
 * row per asset its address received, then the confirmed deposits in depositId order, a row each;
 * nextCursor continues after the page's last payment or deposit.
 */
export async function balancesPage(
  deps: BalanceAdminDeps,
  query: BalanceFilters & { limit: number; cursor?: string; onChain: boolean },
): Promise<{ data: BalanceRow[]; nextCursor: string | null }> {
  const { limit, cursor, onChain, ...filters } = query
  const position = cursor === undefined ? undefined : decodeBalanceCursor(cursor)
  const rows: RowOfUnits[] = []
  let nextCursor: string | null = null
  let room = limit
  if (position?.kind !== 'deposit') {
    const documents = await deps.readModel.listFunded({
      ...filters,
      ...(position === undefined ? {} : { afterPaymentId: position.id }),
      // one more than the page: whether there is a next page, without a count
      limit: limit + 1,
    })
    const page = documents.slice(0, limit)
    rows.push(...page.flatMap((document) => balanceRows(deps.registry, document)))
    room -= page.length
    const last = page.at(-1)
    if (documents.length > limit && last !== undefined) nextCursor = encodeBalanceCursor(last.paymentId)
    // the deposits follow the payments: a full page of payments leaves them for the next page
    else if (room === 0 && deps.deposits !== undefined) nextCursor = encodeDepositCursor('')
  }
  if (nextCursor === null && room > 0 && deps.deposits !== undefined) {
    const after = position?.kind === 'deposit' && position.id !== '' ? position.id : undefined
    const { merchantId, network, walletId } = filters
    const records = await deps.deposits.readModel.listConfirmed({
      limit: room + 1,
      ...(after === undefined ? {} : { afterDepositId: after }),
      ...(merchantId === undefined ? {} : { merchantId }),
      ...(network === undefined ? {} : { network }),
    })
    const page = records.slice(0, room)
    const addressOf = addressReader(deps.deposits.addresses)
    for (const record of page) {
      const row = depositRow(deps.registry, record, await addressOf(record.state.detected.address))
      // the wallet is the address's, which the read model does not filter on: a page may be shorter
      if (walletId === undefined || row.row.walletId === walletId) rows.push(row)
    }
    const last = page.at(-1)
    if (records.length > room && last !== undefined) nextCursor = encodeDepositCursor(last.depositId)
  }
  return {
    data: onChain ? await withOnChain(deps.balanceReaders, rows) : rows.map(({ row }) => row),
    nextCursor,
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
  // customers' confirmed deposits: each address counted once per asset
  const depositAddresses = new Map<string, Set<string>>()
  let afterDepositId: string | undefined
  // an address read once for the whole count, however many pages its deposits span
  const addressOf = deps.deposits && addressReader(deps.deposits.addresses)
  for (;;) {
    if (deps.deposits === undefined || addressOf === undefined) break
    const { merchantId, network, walletId } = filters
    const page = await deps.deposits.readModel.listConfirmed({
      limit: TOTALS_PAGE,
      ...(afterDepositId === undefined ? {} : { afterDepositId }),
      ...(merchantId === undefined ? {} : { merchantId }),
      ...(network === undefined ? {} : { network }),
    })
    for (const record of page) {
      const { row, decimals } = depositRow(
        deps.registry,
        record,
        await addressOf(record.state.detected.address),
      )
      if (walletId !== undefined && row.walletId !== walletId) continue
      const key = JSON.stringify([row.merchantId, row.network, row.currency])
      const sum = sums.get(key) ?? {
        merchantId: row.merchantId,
        network: row.network,
        currency: row.currency,
        decimals,
        received: 0n,
        swept: 0n,
        addresses: 0,
      }
      sum.received += BigInt(record.state.detected.amountUnits)
      sum.swept += sweptUnitsOf(record.state)
      const seen = depositAddresses.get(key) ?? new Set<string>()
      if (!seen.has(row.address)) {
        seen.add(row.address)
        sum.addresses += 1
      }
      depositAddresses.set(key, seen)
      sums.set(key, sum)
    }
    afterDepositId = page.at(-1)?.depositId
    if (page.length < TOTALS_PAGE || afterDepositId === undefined) break
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
      depositId: null,
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

/** what sweeps took of the deposit's currency */
function sweptUnitsOf(deposit: OpenDeposit): bigint {
  return (deposit.sweeps ?? [])
    .filter((sweep) => sweep.currency === deposit.detected.currency)
    .reduce((sum, sweep) => sum + BigInt(sweep.amountUnits), 0n)
}

/** the deposit addresses' views, each read once per page */
function addressReader(
  addresses: Pick<DepositAddressReadModel, 'get'>,
): (address: string) => Promise<DepositAddressView | null> {
  const read = new Map<string, Promise<DepositAddressView | null>>()
  return (address) => {
    let view = read.get(address)
    if (view === undefined) {
      view = addresses.get(address)
      read.set(address, view)
    }
    return view
  }
}

/**
 * a confirmed deposit's row: what it received, what sweeps took of it, at its customer's address
 * with the wallet and path the address was created with (docs/treasury.md, "Derivation paths")
 */
function depositRow(
  registry: AssetRegistry,
  record: DepositRecord,
  address: DepositAddressView | null,
): RowOfUnits {
  const { detected } = record.state
  const asset = registry.assets.find(
    (candidate) => candidate.network === detected.network && candidate.currency === detected.currency,
  )
  const row: BalanceRow = {
    merchantId: detected.merchantId,
    // an address the read model does not show yet (the projection behind): the operator's wallet is
    // the likelier, and sign refuses any key that does not give the address
    walletId: address?.walletId ?? 'operator',
    paymentId: null,
    depositId: record.depositId,
    network: detected.network,
    address: detected.address,
    tokenAccount: null,
    derivationPath: address?.derivationPath ?? '',
    currency: detected.currency,
    tokenStandard: asset?.tokenStandard ?? null,
    contract: asset?.contract ?? null,
    received: formatUnits(BigInt(detected.amountUnits), detected.decimals),
    swept: formatUnits(sweptUnitsOf(record.state), detected.decimals),
    onChain: null,
    onChainError: null,
  }
  return { row, decimals: detected.decimals }
}

function toDepositSweepView(deposit: OpenDeposit, sweep: Sweep): SweepView {
  const { depositId, merchantId, network, address } = deposit.detected
  return {
    paymentId: null,
    depositId,
    merchantId,
    network,
    address,
    txHash: sweep.txHash,
    currency: sweep.currency,
    amount: formatUnits(BigInt(sweep.amountUnits), sweep.decimals),
    fee: formatUnits(BigInt(sweep.feeUnits), sweep.feeDecimals),
    feeCurrency: sweep.feeCurrency,
    treasury: sweep.treasury,
    sweptAt: sweep.sweptAt,
  }
}

function toSweepView(payment: OpenPayment, sweep: Sweep): SweepView {
  const { paymentId, merchantId, network, address } = payment.created
  return {
    paymentId,
    depositId: null,
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

/** where a page continues: after a payment, or among the deposits (after one, or from the first) */
type BalancePosition = { kind: 'payment'; id: string } | { kind: 'deposit'; id: string }

/** the page's last payment id, base64url; opaque to the operator, and refused unless exact */
function encodeBalanceCursor(paymentId: string): string {
  return Buffer.from(paymentId, 'utf8').toString('base64url')
}

const DEPOSIT_CURSOR = 'deposit:'

/** the page's last deposit id (empty: the deposits from the first), base64url */
function encodeDepositCursor(depositId: string): string {
  return Buffer.from(`${DEPOSIT_CURSOR}${depositId}`, 'utf8').toString('base64url')
}

/**
 * The position a nextCursor names: only the exact encoding of a payment id (a lower-case UUID, as
 * payment ids are kept) or of a deposit's (32 hex digits) passes, so that a cursor cut, altered or
 * made up is refused rather than read as a position between payments
 */
function decodeBalanceCursor(cursor: string): BalancePosition {
  const decoded = /^[A-Za-z0-9_-]{1,200}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : ''
  if (decoded.startsWith(DEPOSIT_CURSOR)) {
    const depositId = decoded.slice(DEPOSIT_CURSOR.length)
    if (/^([0-9a-f]{32})?$/.test(depositId) && encodeDepositCursor(depositId) === cursor) {
      return { kind: 'deposit', id: depositId }
    }
  } else if (
    isPaymentId(decoded) &&
    decoded === decoded.toLowerCase() &&
    encodeBalanceCursor(decoded) === cursor
  ) {
    return { kind: 'payment', id: decoded }
  }
  throw new DomainError('VALIDATION_ERROR', 'cursor: not a nextCursor of this API')
}

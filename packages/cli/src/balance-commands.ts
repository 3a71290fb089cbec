// chainpay-admin balances and sweeps record (docs/operations.md, "Balances and sweeps"): what each
// payment address received, what sweeps took from it and what the chain holds there now, as aligned
// columns or the API's JSON; and the record of a sweep made by other means than chainpay-wallet.

import type { BalanceTotalsQuery, RecordSweepBody } from '@chainpay/contracts'
import { CliError } from './cli-error.js'
import type { Command, Flags } from './invocation.js'

export const BALANCE_USAGE = `  balances [--merchant ID] [--network N] [--wallet ID] [--totals | --on-chain [--limit N] [--cursor C]]
  sweeps record PAYMENT_ID --tx-hash HASH --currency C --amount A --fee F --fee-currency C --treasury ADDRESS`

export const balanceCommands: Record<string, Command> = {
  async balances({ flags, args, api, print }) {
    if (args.length > 0) throw new CliError(`expected no arguments; usage: ${BALANCE_USAGE.trim()}`)
    const query = filtersOf(flags)
    if (flags.totals) {
      if (flags['on-chain'] || flags.limit !== undefined || flags.cursor !== undefined) {
        throw new CliError('balances --totals: --on-chain, --limit and --cursor are for the rows')
      }
      const totals = await api.balances.totals(query)
      print.result(totals, () =>
        totals.data.length === 0
          ? ['no balances']
          : columns(
              ['MERCHANT', 'NETWORK', 'CURRENCY', 'RECEIVED', 'SWEPT', 'UNSWEPT', 'ADDRESSES'],
              totals.data.map((total) => [
                total.merchantId,
                total.network,
                total.currency,
                total.received,
                total.swept,
                total.unswept,
                String(total.addresses),
              ]),
            ),
      )
      return
    }
    const page = await api.balances.page({
      ...query,
      ...(flags['on-chain'] ? { onChain: 'true' } : {}),
      ...(flags.limit === undefined ? {} : { limit: flags.limit }),
      ...(flags.cursor === undefined ? {} : { cursor: flags.cursor }),
    })
    print.result(page, () => [
      ...(page.data.length === 0
        ? ['no balances']
        : columns(
            [
              'MERCHANT',
              'WALLET',
              'PAYMENT',
              'NETWORK',
              'ADDRESS',
              'CURRENCY',
              'RECEIVED',
              'SWEPT',
              'ON CHAIN',
            ],
            page.data.map((row) => [
              row.merchantId,
              row.walletId,
              // a customer's deposit has no payment: its id, named as such
              row.paymentId ?? `deposit:${row.depositId ?? ''}`,
              row.network,
              row.address,
              row.currency,
              row.received,
              row.swept,
              row.onChain ?? (row.onChainError === null ? '-' : `? ${row.onChainError}`),
            ]),
          )),
      ...(page.nextCursor === null ? [] : [`next page: --cursor ${page.nextCursor}`]),
    ])
  },

  async 'sweeps record'({ flags, args, api, print }) {
    const usage = BALANCE_USAGE.split('\n')[1]?.trim() ?? ''
    if (args.length !== 1) throw new CliError(`expected PAYMENT_ID; usage: ${usage}`)
    const required = ['tx-hash', 'currency', 'amount', 'fee', 'fee-currency', 'treasury'] as const
    const missing = required.filter((name) => flags[name] === undefined)
    if (missing.length > 0) throw new CliError(`sweeps record: --${missing.join(', --')} required`)
    // each given: checked above
    const body = {
      paymentId: args[0],
      txHash: flags['tx-hash'],
      currency: flags.currency,
      amount: flags.amount,
      fee: flags.fee,
      feeCurrency: flags['fee-currency'],
      treasury: flags.treasury,
    } as RecordSweepBody
    const recorded = await api.balances.recordSweep(body)
    const { sweep } = recorded
    print.result(recorded, () => [
      `Sweep ${sweep.txHash} of payment ${sweep.paymentId ?? ''}: ${sweep.amount} ${sweep.currency} to ${sweep.treasury}, fee ${sweep.fee} ${sweep.feeCurrency}, recorded ${sweep.sweptAt}`,
    ])
  },
}

function filtersOf(flags: Flags): BalanceTotalsQuery {
  return {
    ...(flags.merchant === undefined ? {} : { merchantId: flags.merchant }),
    ...(flags.network === undefined ? {} : { network: flags.network }),
    ...(flags.wallet === undefined ? {} : { walletId: flags.wallet }),
  }
}

/** a header and rows, each column as wide as its widest cell; the last column is not padded */
function columns(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  )
  return [header, ...rows].map((cells) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  '),
  )
}

// Daily volume per asset over the last days (docs/dashboard.md, "Volume"): what the merchant's
// settled payments received, per UTC day of their creation and per network and currency. A bounded
// scan rather than a new aggregation in each store: the read model's own keyset pages (the list of
// GET /payments, contract-tested on SQLite and MongoDB alike), only the settled statuses, only the
// window's days, at most `maxPayments` read; the sums are bigint per day and asset, so memory holds
// one page and the buckets, never the payments.

import type { PaymentListQuery, PaymentReadModel } from '@chainpay/ports'

export interface VolumeSeries {
  network: string
  currency: string
  decimals: number
  /** smallest units received per day, in `days` order */
  units: bigint[]
}

export interface DailyVolume {
  /** YYYY-MM-DD, oldest first, today (UTC) last */
  days: string[]
  series: VolumeSeries[]
  /** true when the window held more than maxPayments settled payments: the sums are partial */
  truncated: boolean
}

export interface DailyVolumeOptions {
  days?: number
  maxPayments?: number
  pageSize?: number
  onPage?: (documents: number) => void
}

const SETTLED_WITH_FUNDS = ['confirmed', 'overpaid'] as const

export async function dailyVolume(
  readModel: Pick<PaymentReadModel, 'list'>,
  merchantId: string,
  now: Date,
  options: DailyVolumeOptions = {},
): Promise<DailyVolume> {
  const dayCount = options.days ?? 30
  const maxPayments = options.maxPayments ?? 50_000
  const pageSize = options.pageSize ?? 500
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const days = Array.from({ length: dayCount }, (_, index) =>
    new Date(today - (dayCount - 1 - index) * 86_400_000).toISOString().slice(0, 10),
  )
  const index = new Map(days.map((day, position) => [day, position]))
  const series = new Map<string, VolumeSeries>()
  let read = 0
  let after: PaymentListQuery['after']
  for (;;) {
    const page = await readModel.list({
      merchantId,
      limit: pageSize,
      statuses: SETTLED_WITH_FUNDS,
      createdFrom: `${days[0]}T00:00:00.000Z`,
      ...(after ? { after } : {}),
    })
    options.onPage?.(page.length)
    for (const { state } of page) {
      const { created } = state
      const position = index.get(created.createdAt.slice(0, 10))
      if (position === undefined || state.receivedUnits === null) continue
      const key = `${created.network} ${created.currency}`
      let entry = series.get(key)
      if (entry === undefined) {
        entry = {
          network: created.network,
          currency: created.currency,
          decimals: created.decimals,
          units: days.map(() => 0n),
        }
        series.set(key, entry)
      }
      entry.units[position] = (entry.units[position] as bigint) + BigInt(state.receivedUnits)
    }
    read += page.length
    const last = page.at(-1)
    if (page.length < pageSize || last === undefined)
      return { days, series: sorted(series), truncated: false }
    if (read >= maxPayments) return { days, series: sorted(series), truncated: true }
    after = { createdAt: last.state.created.createdAt, paymentId: last.paymentId }
  }
}

function sorted(series: Map<string, VolumeSeries>): VolumeSeries[] {
  return [...series.values()].sort((a, b) =>
    `${a.network} ${a.currency}`.localeCompare(`${b.network} ${b.currency}`),
  )
}

// The volume page's charts (docs/dashboard.md, "Volume"): one server-rendered SVG bar chart per asset,
// no script, drawn in the page's colours (currentColor), with its figures in a table beside it for
// screen readers and for anyone who would rather read (the SVG is then hidden from assistive
// technology, which reads the table). Bar heights are relative to the asset's busiest day; the
// amounts in the table are exact.

import { formatUnits } from '@chainpay/domain'
import { escapeHtml as e } from './dashboard-pages.js'
import type { DailyVolume, VolumeSeries } from './payment-volume.js'

const WIDTH = 600
const HEIGHT = 160
const GAP = 2

/** the bars of one asset, as an SVG image; the figures are in volumeTable */
export function volumeSvg(days: readonly string[], series: VolumeSeries): string {
  // bigint: Math.max would take numbers only
  let max = 0n
  for (const units of series.units) if (units > max) max = units
  const slot = WIDTH / days.length
  const bars = series.units
    .map((units, index) => {
      if (units === 0n || max === 0n) return ''
      // per mille of the busiest day, in bigint: exact however large the sums
      const height = Math.max(1, Math.round((Number((units * 1000n) / max) / 1000) * HEIGHT))
      const x = (index * slot + GAP / 2).toFixed(1)
      return `<rect x="${x}" y="${HEIGHT - height}" width="${(slot - GAP).toFixed(1)}" height="${height}"><title>${e(days[index] as string)}: ${e(formatUnits(units, series.decimals))} ${e(series.currency)}</title></rect>`
    })
    .join('')
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT + 1}" width="100%" preserveAspectRatio="none" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg"><g fill="currentColor">${bars}</g><line x1="0" y1="${HEIGHT + 0.5}" x2="${WIDTH}" y2="${HEIGHT + 0.5}" stroke="currentColor" stroke-width="1"/></svg>`
}

/** the same figures as a table: every day with its exact amount */
export function volumeTable(
  days: readonly string[],
  series: VolumeSeries,
  labels: { caption: string; day: string; amount: string },
  id: string,
): string {
  const rows = days
    .map(
      (day, index) =>
        `<tr><td>${e(day)}</td><td class="num">${e(formatUnits(series.units[index] as bigint, series.decimals))}</td></tr>`,
    )
    .join('')
  return `<div class="scroll" tabindex="0" role="region" aria-labelledby="${id}"><table>
<caption id="${id}">${e(labels.caption)}</caption>
<thead><tr><th scope="col">${e(labels.day)}</th><th scope="col" class="num">${e(labels.amount)} (${e(series.currency)})</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}

/** the page's body: per asset a heading, its chart and its table */
export function volumeSections(
  volume: DailyVolume,
  labels: { day: string; amount: string; caption: (asset: string) => string },
): string {
  return volume.series
    .map((series, position) => {
      const asset = `${series.currency} · ${series.network}`
      return `<section class="card" aria-labelledby="volume-${position}"><h2 id="volume-${position}">${e(asset)}</h2>
${volumeSvg(volume.days, series)}
${volumeTable(volume.days, series, { caption: labels.caption(asset), day: labels.day, amount: labels.amount }, `volume-table-${position}`)}
</section>`
    })
    .join('\n')
}

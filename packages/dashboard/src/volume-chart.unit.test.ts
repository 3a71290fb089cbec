import { describe, expect, it } from 'vitest'
import { volumeSvg, volumeTable } from './volume-chart.js'

const days = ['2030-01-01', '2030-01-02', '2030-01-03', '2030-01-04']
const usdt = {
  network: 'TRON',
  currency: 'USDT',
  decimals: 6,
  // the busiest day beyond a JS number's exact range: heights and amounts still right
  units: [0n, 123_456_789_012_345_678_901n, 61_728_394_506_172_839_450n, 1n],
}

describe('volumeSvg', () => {
  it("given an asset's days, when drawn, then one bar per day with funds, heights relative to the busiest", () => {
    const svg = volumeSvg(days, usdt)
    const heights = [...svg.matchAll(/<rect [^>]*height="(\d+)"/g)].map((match) => Number(match[1]))
    expect(heights).toEqual([160, 80, 1])
    expect(svg).toContain('<title>2030-01-02: 123456789012345.678901 USDT</title>')
    expect(svg).toContain('aria-hidden="true"')
    expect(svg).not.toMatch(/<script|on\w+=|href=/i)
  })

  it('given no funds at all, when drawn, then only the axis', () => {
    expect(volumeSvg(days, { ...usdt, units: [0n, 0n, 0n, 0n] })).not.toContain('<rect')
  })
})

describe('volumeTable', () => {
  it('lists every day with its exact amount, with a caption', () => {
    const table = volumeTable(
      days,
      usdt,
      { caption: 'USDT on TRON per day', day: 'Day', amount: 'Received' },
      't1',
    )
    expect(table).toContain('<caption id="t1">USDT on TRON per day</caption>')
    expect([...table.matchAll(/<td class="num">([^<]+)</g)].map((match) => match[1])).toEqual([
      '0',
      '123456789012345.678901',
      '61728394506172.83945',
      '0.000001',
    ])
  })
})

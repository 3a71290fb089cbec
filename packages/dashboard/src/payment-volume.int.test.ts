// The daily volume read through the SQLite read model's pages: a bounded scan of the window only.
import { samplePaymentDocument } from '@chainpay/ports/testing'
import { createSqlitePaymentReadModel, openSqliteDatabase } from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { dailyVolume } from './payment-volume.js'

describe('dailyVolume', () => {
  it('sums settled payments per day and asset over 30 days, reading only their pages', async () => {
    const db = openSqliteDatabase(':memory:')
    const readModel = createSqlitePaymentReadModel(db)
    const now = new Date('2030-02-01T15:00:00.000Z')
    // 2000 payments over 40 days: settled and pending, two assets
    for (let n = 0; n < 2_000; n++) {
      const document = samplePaymentDocument(`pay_${String(n).padStart(5, '0')}`, 30, {
        status: n % 4 === 3 ? 'pending' : 'confirmed',
        receivedUnits: n % 4 === 3 ? null : '2500000',
      })
      const createdAt = new Date(now.getTime() - (n % 40) * 86_400_000 - 3_600_000).toISOString()
      document.state.created = {
        ...document.state.created,
        createdAt,
        currency: n % 2 === 0 ? 'USDT' : 'USDC',
      }
      await readModel.save(document)
    }
    const pages: number[] = []
    const volume = await dailyVolume(readModel, 'mer_1', now, {
      pageSize: 250,
      onPage: (count) => pages.push(count),
    })
    db.close()

    expect(volume.days).toHaveLength(30)
    expect(volume.days.at(-1)).toBe('2030-02-01')
    expect(volume.truncated).toBe(false)
    expect(volume.series.map(({ network, currency }) => `${network} ${currency}`)).toEqual([
      'TRON USDC',
      'TRON USDT',
    ])
    // 30 of 40 days in the window: 1500 payments, of which 1150 settled (7 of each 30 pending); only those are read
    expect(pages.reduce((sum, count) => sum + count, 0)).toBe(1_150)
    expect(pages).toHaveLength(5)
    const total = volume.series.flatMap(({ units }) => units).reduce((sum, units) => sum + units, 0n)
    expect(total).toBe(1_150n * 2_500_000n)
  })

  it('stops after maxPayments and says the sums are partial', async () => {
    const db = openSqliteDatabase(':memory:')
    const readModel = createSqlitePaymentReadModel(db)
    const now = new Date('2030-02-01T15:00:00.000Z')
    for (let n = 0; n < 300; n++) {
      const document = samplePaymentDocument(`pay_${n}`, 30, { status: 'confirmed', receivedUnits: '1' })
      document.state.created = { ...document.state.created, createdAt: '2030-02-01T10:00:00.000Z' }
      await readModel.save(document)
    }
    const pages: number[] = []
    const volume = await dailyVolume(readModel, 'mer_1', now, {
      pageSize: 100,
      maxPayments: 200,
      onPage: (count) => pages.push(count),
    })
    db.close()
    expect(volume.truncated).toBe(true)
    expect(pages).toEqual([100, 100])
  })
})

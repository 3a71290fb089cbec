// The export streamed through the SQLite read model: a few thousand payments, read page by page.
import { samplePaymentDocument } from '@chainpay/ports/testing'
import { createSqlitePaymentReadModel, openSqliteDatabase } from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { paymentCsvChunks } from './payments-csv.js'

const PAYMENTS = 3_000

describe('paymentCsvChunks', () => {
  it('given 3000 payments, when exported, then each is one row, read one page at a time', async () => {
    const db = openSqliteDatabase(':memory:')
    const readModel = createSqlitePaymentReadModel(db)
    for (let n = 0; n < PAYMENTS; n++) {
      const document = samplePaymentDocument(`pay_${String(n).padStart(5, '0')}`, 1)
      const createdAt = new Date(Date.UTC(2030, 0, 1) + Math.floor(n / 3) * 60_000).toISOString()
      document.state.created = {
        ...document.state.created,
        createdAt,
        network: n % 2 === 0 ? 'tron' : 'solana',
        description: n % 7 === 0 ? `=cmd|' /C calc'!A0` : `order ${n}`,
        metadata: { orderId: `order-${n}` },
      }
      await readModel.save(document)
    }
    const pages: number[] = []
    let text = ''
    let largestChunk = 0
    for await (const chunk of paymentCsvChunks(
      readModel,
      { merchantId: 'mer_1', network: 'tron' },
      { pageSize: 200, onPage: (documents) => pages.push(documents) },
    )) {
      largestChunk = Math.max(largestChunk, chunk.length)
      text += chunk
    }
    db.close()

    const lines = text.split('\r\n').filter((line) => line !== '')
    expect(lines[0]?.startsWith('\uFEFFpaymentId,status,createdAt,')).toBe(true)
    const ids = lines.slice(1).map((line) => line.split(',')[0])
    // the filter applied, every tron payment once, newest first
    expect(ids).toHaveLength(PAYMENTS / 2)
    expect(new Set(ids).size).toBe(PAYMENTS / 2)
    expect(ids[0]).toBe('pay_02998')
    // 1500 rows in pages of 200: 8 pages, the last one short, none read twice
    expect(pages).toEqual([200, 200, 200, 200, 200, 200, 200, 100])
    // one page's rows at a time, not the whole export
    expect(largestChunk).toBeLessThan(text.length / 5)
    // a description that would run as a formula is shown as text; metadata is one JSON cell
    expect(text).toContain(`,'=cmd|' /C calc'!A0,"{""orderId"":""order-2996""}"\r\n`)
    expect(text).not.toMatch(/,=cmd/)
  })
})

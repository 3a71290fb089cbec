import { samplePaymentDocument } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { csvCell, csvLine, PAYMENT_CSV_COLUMNS, paymentCsvRow } from './payments-csv.js'

describe('csvCell', () => {
  it('given a text a spreadsheet would run as a formula, when written, then it is shown as text', () => {
    expect(csvCell('=HYPERLINK("https://evil.example","x")')).toBe(
      '"\'=HYPERLINK(""https://evil.example"",""x"")"',
    )
    expect(csvCell('+1+1')).toBe("'+1+1")
    expect(csvCell('-2+3')).toBe("'-2+3")
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('\t=1')).toBe("'\t=1")
  })

  it('given commas, quotes and line breaks, when written, then the cell is quoted with quotes doubled', () => {
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(' padded')).toBe('" padded"')
  })

  it('given plain values and null, when written, then they stay as they are and null is empty', () => {
    expect(csvCell('12.500001')).toBe('12.500001')
    expect(csvCell('Café ☕')).toBe('Café ☕')
    expect(csvCell(null)).toBe('')
  })

  it('joins cells with commas and ends the line with CRLF', () => {
    expect(csvLine(['a', null, '=b'])).toBe("a,,'=b\r\n")
  })
})

describe('paymentCsvRow', () => {
  it('given a payment, when exported, then every column holds what the API shows, amounts exact', () => {
    const row = paymentCsvRow(
      samplePaymentDocument('pay_1', 20, {
        status: 'confirmed',
        receivedUnits: '12500001',
        confirmedAt: '2030-01-01T00:10:00.000Z',
      }),
    )
    const byColumn = Object.fromEntries(PAYMENT_CSV_COLUMNS.map((name, index) => [name, row[index]]))
    expect(byColumn).toMatchObject({
      paymentId: 'pay_1',
      status: 'confirmed',
      amount: '12.5',
      expectedAmount: '12.5',
      receivedAmount: '12.500001',
      feeAmount: '0.125',
      netAmount: '12.375',
      confirmedAt: '2030-01-01T00:10:00.000Z',
      description: 'Café crème ☕ für 2 — 注文 #7',
    })
    expect(JSON.parse(byColumn.metadata as string)).toEqual({
      $where: 'sleep(1000)',
      'a.b': 'dotted',
      'emoji 💸': true,
      count: 3,
      none: null,
    })
  })
})

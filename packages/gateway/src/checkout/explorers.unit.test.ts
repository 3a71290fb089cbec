import { describe, expect, it } from 'vitest'
import { explorerOf } from './explorers.js'

describe('explorerOf', () => {
  it('links a transaction on each network, mainnet and test network, to its explorer', () => {
    const tron = 'ab'.repeat(32)
    const solana = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW'
    expect(explorerOf('TRON')?.transactionUrl(tron)).toBe(`https://tronscan.org/#/transaction/${tron}`)
    expect(explorerOf('TRON_NILE')?.transactionUrl(tron)).toBe(
      `https://nile.tronscan.org/#/transaction/${tron}`,
    )
    expect(explorerOf('SOLANA')?.transactionUrl(solana)).toBe(`https://explorer.solana.com/tx/${solana}`)
    expect(explorerOf('SOLANA_DEVNET')?.transactionUrl(solana)).toBe(
      `https://explorer.solana.com/tx/${solana}?cluster=devnet`,
    )
  })

  it('has none for a network an operator added', () => {
    expect(explorerOf('TRON_SHASTA')).toBeNull()
  })
})

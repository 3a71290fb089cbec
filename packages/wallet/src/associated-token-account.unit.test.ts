import { PublicKey } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAccount,
  TOKEN_PROGRAM_ID,
} from './associated-token-account.js'
import { deriveSolanaAddress } from './solana-address.js'

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

describe('associatedTokenAccount', () => {
  it('matches a published ATA (metaplex-foundation/Solana.Swift AssociatedTokenProgramTests)', () => {
    expect(associatedTokenAccount('3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG', USDC_MINT)).toBe(
      '3uetDDizgTtadDHZzyy9BqxrjQcozMEkxzbKhfZF4tG3',
    )
  })

  it('matches the PDA of [owner, token program, mint] under the ATA program', () => {
    const seed = new Uint8Array(32).fill(7)
    for (const index of [0, 1, 2]) {
      const owner = deriveSolanaAddress(seed, index).address
      for (const mint of [USDC_MINT, USDT_MINT]) {
        const [expected] = PublicKey.findProgramAddressSync(
          [
            new PublicKey(owner).toBuffer(),
            new PublicKey(TOKEN_PROGRAM_ID).toBuffer(),
            new PublicKey(mint).toBuffer(),
          ],
          new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
        )
        expect(associatedTokenAccount(owner, mint)).toBe(expected.toBase58())
      }
    }
  })

  it('differs per mint and per owner', () => {
    const owner = '3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG'
    const other = deriveSolanaAddress(new Uint8Array(32).fill(1), 0).address
    expect(associatedTokenAccount(owner, USDC_MINT)).not.toBe(associatedTokenAccount(owner, USDT_MINT))
    expect(associatedTokenAccount(owner, USDC_MINT)).not.toBe(associatedTokenAccount(other, USDC_MINT))
  })

  it('refuses an owner that is not on the ed25519 curve, and malformed keys', () => {
    const offCurveOwner = associatedTokenAccount('3h1zGmCwsRJnVk5BuRNMLsPaQu1y2aqXqXDWYCgrp5UG', USDC_MINT)
    expect(() => associatedTokenAccount(offCurveOwner, USDC_MINT)).toThrow(/not an ed25519 public key/)
    expect(() => associatedTokenAccount('not-base58!', USDC_MINT)).toThrow()
  })
})

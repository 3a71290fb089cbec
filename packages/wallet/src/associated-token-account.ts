// The token account a wallet pays SPL tokens into: the associated token account (ATA) of the
// receiving owner address, a PDA of [owner, token program, mint] under the ATA program.
import { PublicKey } from '@solana/web3.js'

/** the classic SPL Token program; Token-2022 mints would give different ATAs */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'

const tokenProgram = new PublicKey(TOKEN_PROGRAM_ID)
const associatedTokenProgram = new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID)

export function associatedTokenAccount(owner: string, mint: string): string {
  const ownerKey = new PublicKey(owner)
  // Wallets refuse ATAs of off-curve owners (PDAs); a receiving address is always a real key.
  if (!PublicKey.isOnCurve(ownerKey.toBytes())) {
    throw new Error(`the token account owner ${owner} is not an ed25519 public key`)
  }
  const [address] = PublicKey.findProgramAddressSync(
    [ownerKey.toBytes(), tokenProgram.toBytes(), new PublicKey(mint).toBytes()],
    associatedTokenProgram,
  )
  return address.toBase58()
}

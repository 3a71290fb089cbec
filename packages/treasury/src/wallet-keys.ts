// chainpay-wallet keys (docs/treasury.md, "A wallet's keys"): what payment-command derives a wallet's
// addresses from, made offline from the wallet's mnemonics. The TRON account xpub is public; the
// Solana seed is not (ed25519 has no public derivation), so it goes to a file only its owner can
// read, never to stdout. The Solana mnemonic must not be the TRON one: the seed is the whole BIP39
// seed, and would sign for the TRON addresses too (docs/security.md, "Key material").

import {
  type DevelopmentWallet,
  merchantWalletPublicParts,
  solanaDerivationPath,
  TRON_ACCOUNT_PATH,
  walletFromMnemonic,
} from '@chainpay/wallet'
import { equalBytes } from '@noble/curves/utils.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import { CommandError } from './command-error.js'
import { createSecretFile } from './offline-key-material.js'

export interface WalletKeysInput {
  /** a mnemonic and where it came from, for messages that never quote it */
  tron: { mnemonic: string; source: string }
  solana: { mnemonic: string; source: string }
  /** the file the Solana seed is written to: created, mode 0600, never overwritten */
  seedOut: string
}

/** the lines to print: public parts only */
export function writeWalletKeys(input: WalletKeysInput): string[] {
  const tron = fromMnemonic(input.tron)
  const solana = fromMnemonic(input.solana)
  // compared in constant time, as every secret is (docs/security.md)
  if (equalBytes(hexToBytes(tron.solanaSeed), hexToBytes(solana.solanaSeed))) {
    throw new CommandError(
      'the Solana mnemonic is the TRON one: the Solana seed would sign for the TRON addresses too; use a mnemonic of its own for Solana (docs/security.md, "Key material")',
    )
  }
  const parts = merchantWalletPublicParts({
    tronAccountXpub: tron.tronAccountXpub,
    solanaSeed: solana.solanaSeed,
  })
  createSecretFile(input.seedOut, `${solana.solanaSeed}\n`, '--solana-seed-out')
  return [
    `TRON account xpub (${TRON_ACCOUNT_PATH}): ${parts.tronAccountXpub}`,
    `Solana address 0 (${solanaDerivationPath(0)}): ${parts.solanaAddress0}`,
    `Wallet id: ${parts.walletId}`,
    `Solana seed written to ${input.seedOut} (mode 0600): carry it to the operator, then wipe it`,
    `chainpay-admin merchants wallet set MERCHANT_ID --tron-xpub ${parts.tronAccountXpub} --solana-seed-file ${input.seedOut}`,
  ]
}

function fromMnemonic({ mnemonic, source }: { mnemonic: string; source: string }): DevelopmentWallet {
  try {
    return walletFromMnemonic(mnemonic)
  } catch (error) {
    // walletFromMnemonic's message says what is wrong without quoting a word
    throw new CommandError(`${source}: ${(error as Error).message}`)
  }
}

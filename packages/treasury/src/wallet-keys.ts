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
  /** the file the Solana seed is written to (chainpay-admin merchants wallet set): created, mode 0600, never overwritten */
  seedOut?: string
  /** the file both are written to as payment-command's WALLET_FILE reads them: the same rules */
  walletOut?: string
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
  const lines = [
    `TRON account xpub (${TRON_ACCOUNT_PATH}): ${parts.tronAccountXpub}`,
    `Solana address 0 (${solanaDerivationPath(0)}): ${parts.solanaAddress0}`,
    `Wallet id: ${parts.walletId}`,
  ]
  if (input.seedOut !== undefined) {
    createSecretFile(input.seedOut, `${solana.solanaSeed}\n`, '--solana-seed-out')
    lines.push(
      `Solana seed written to ${input.seedOut} (mode 0600): carry it to the operator, then wipe it`,
      `chainpay-admin merchants wallet set MERCHANT_ID --tron-xpub ${parts.tronAccountXpub} --solana-seed-file ${input.seedOut}`,
    )
  }
  if (input.walletOut !== undefined) {
    const wallet = { tronAccountXpub: parts.tronAccountXpub, solanaSeed: solana.solanaSeed }
    createSecretFile(input.walletOut, `${JSON.stringify(wallet, null, 2)}\n`, '--wallet-out')
    lines.push(
      `Wallet file written to ${input.walletOut} (mode 0600): carry it to the server as payment-command's WALLET_FILE (chainpay user only), then wipe this copy`,
    )
  }
  return lines
}

function fromMnemonic({ mnemonic, source }: { mnemonic: string; source: string }): DevelopmentWallet {
  try {
    return walletFromMnemonic(mnemonic)
  } catch (error) {
    // walletFromMnemonic's message says what is wrong without quoting a word
    throw new CommandError(`${source}: ${(error as Error).message}`)
  }
}

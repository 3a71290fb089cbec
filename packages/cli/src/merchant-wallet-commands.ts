// chainpay-admin merchants wallet set|show|remove (docs/operations.md, "Merchant wallets"): a
// merchant's own TRON account xpub and Solana seed, through the admin API. The seed is read from a
// file or stdin, never from the command line (which shows in ps and the shell's history), and never
// printed: what is shown is the wallet's public parts.

import type { MerchantWalletView } from '@chainpay/contracts'
import { PrivateFileError, readOwnerOnlyFile } from '@chainpay/platform'
import { CliError } from './cli-error.js'
import type { Command } from './invocation.js'

export const MERCHANT_WALLET_USAGE = `  merchants wallet set MERCHANT_ID --tron-xpub XPUB --solana-seed-file (FILE | -)
  merchants wallet show MERCHANT_ID
  merchants wallet remove MERCHANT_ID`

const usage = (action: string) =>
  MERCHANT_WALLET_USAGE.split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith(`merchants wallet ${action}`)) ?? MERCHANT_WALLET_USAGE.trim()

export const merchantWalletCommands: Record<string, Command> = {
  async 'merchants wallet'(invocation) {
    const { flags, args, api, print, readStdin } = invocation
    const [action, ...rest] = args
    const walletFlag = (['tron-xpub', 'solana-seed-file'] as const).find((name) => flags[name] !== undefined)
    if (action !== 'set' && walletFlag !== undefined) {
      throw new CliError(`--${walletFlag} is only for merchants wallet set`)
    }
    if (action === 'set') {
      if (rest.length !== 1) throw new CliError(`expected MERCHANT_ID; usage: ${usage('set')}`)
      const [merchantId] = rest as [string]
      const tronAccountXpub = flags['tron-xpub']
      const seedFile = flags['solana-seed-file']
      if (tronAccountXpub === undefined || seedFile === undefined) {
        throw new CliError(`--tron-xpub and --solana-seed-file are required; usage: ${usage('set')}`)
      }
      const solanaSeed = seedFile === '-' ? (await readStdin()).trim() : readSeedFile(seedFile)
      if (solanaSeed === '') throw new CliError(`--solana-seed-file ${seedFile}: no seed in it`)
      const { wallet } = await api.wallets.set(merchantId, { tronAccountXpub, solanaSeed })
      print.result({ wallet }, () => describeWallet(wallet))
      print.notice(
        `New payments of ${wallet.merchantId} derive their addresses from this wallet, each key from its next index (0 for a new key); existing payments keep theirs. The seed is sealed by payment-command and never shown again.`,
      )
      return
    }
    if (action === 'show' || action === 'remove') {
      if (rest.length !== 1) throw new CliError(`expected MERCHANT_ID; usage: ${usage(action)}`)
      const [merchantId] = rest as [string]
      if (action === 'show') {
        const shown = await api.wallets.show(merchantId)
        print.result(shown, () => describeWallet(shown.wallet))
        return
      }
      const removed = await api.wallets.remove(merchantId)
      print.result(removed, () => [
        `Removed the wallet of ${removed.merchantId}: its new payments derive from the operator's wallet again; existing payments keep their addresses (sweep them with chainpay-wallet plan --wallet, docs/treasury.md).`,
      ])
      return
    }
    throw new CliError(`expected set, show or remove; usage:\n${MERCHANT_WALLET_USAGE}`)
  },
}

function describeWallet(wallet: MerchantWalletView): string[] {
  return [
    `Merchant:         ${wallet.merchantId}`,
    `Wallet:           ${wallet.walletId}`,
    `TRON xpub:        ${wallet.tronAccountXpub}`,
    `Solana address 0: ${wallet.solanaAddress0}`,
    `Set:              ${wallet.setAt}`,
  ]
}

/** the file's text, trimmed; refused when other users may read or change it (readOwnerOnlyFile) */
function readSeedFile(path: string): string {
  try {
    return readOwnerOnlyFile(path, '--solana-seed-file', 'pipe it in with --solana-seed-file -').trim()
  } catch (error) {
    if (error instanceof PrivateFileError) throw new CliError(error.message)
    throw error
  }
}

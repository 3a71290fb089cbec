// The key material `chain check` derives a receiving address from, found where payment-command finds
// it (TRON_ACCOUNT_XPUB, SOLANA_SEED, WALLET_FILE) unless given on the command line. A message about
// a key names where it came from, never the key.

import { readFileSync } from 'node:fs'
import type { Asset, Chain } from '@chainpay/domain'
import {
  associatedTokenAccount,
  createSolanaAddressDeriver,
  createTronAddressDeriver,
} from '@chainpay/wallet'
import { CliError } from './cli-error.js'

export interface KeyMaterial {
  /** the TRON account xpub, or the hex Solana seed */
  key: string
  /** where it came from, for messages: `--xpub`, `SOLANA_SEED`, `WALLET_FILE <path>` */
  source: string
}

export interface DerivedReceivingAddress {
  index: number
  address: string
  derivationPath: string
  /** Solana: the associated token account of the address for each SPL asset of the network */
  tokenAccounts: Array<{ currency: string; mint: string; tokenAccount: string }>
}

/** the key for `chain`: the flag, else the environment variable, else WALLET_FILE; undefined if none */
export function findKeyMaterial(
  chain: Chain,
  flag: string | undefined,
  env: Record<string, string | undefined>,
): KeyMaterial | undefined {
  const [flagName, variable, field] =
    chain === 'TRON'
      ? (['--xpub', 'TRON_ACCOUNT_XPUB', 'tronAccountXpub'] as const)
      : (['--seed', 'SOLANA_SEED', 'solanaSeed'] as const)
  if (flag !== undefined) return { key: flag, source: flagName }
  const fromEnv = env[variable]?.trim()
  if (fromEnv) return { key: fromEnv, source: variable }
  const walletFile = env.WALLET_FILE?.trim()
  if (!walletFile) return undefined
  return { key: readWalletField(walletFile, field), source: `WALLET_FILE ${walletFile}` }
}

/** the address at `index` of the key, with its token accounts for the SPL assets among `assets` */
export function deriveReceivingAddress(
  chain: Chain,
  material: KeyMaterial,
  index: number,
  assets: readonly Asset[],
): DerivedReceivingAddress {
  let derive: (index: number) => { address: string; derivationPath: string }
  try {
    derive =
      chain === 'TRON' ? createTronAddressDeriver(material.key) : createSolanaAddressDeriver(material.key)
  } catch (error) {
    // @chainpay/wallet's messages say what is wrong with a key without repeating it
    throw new CliError(`${material.source}: ${(error as Error).message}`)
  }
  const { address, derivationPath } = derive(index)
  const tokenAccounts = assets.flatMap((asset) =>
    asset.tokenStandard === 'SPL' && asset.contract !== null
      ? [
          {
            currency: asset.currency,
            mint: asset.contract,
            tokenAccount: associatedTokenAccount(address, asset.contract),
          },
        ]
      : [],
  )
  return { index, address, derivationPath, tokenAccounts }
}

function readWalletField(path: string, field: 'tronAccountXpub' | 'solanaSeed'): string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new CliError(`WALLET_FILE: cannot read ${path}: ${(error as Error).message}`)
  }
  let wallet: unknown
  try {
    wallet = JSON.parse(text)
  } catch {
    throw new CliError(`WALLET_FILE: ${path} is not JSON`)
  }
  const value = (wallet as Record<string, unknown> | null)?.[field]
  if (typeof value !== 'string') throw new CliError(`WALLET_FILE: ${path} holds no string ${field}`)
  return value
}

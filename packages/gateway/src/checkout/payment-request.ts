// What the customer's wallet is given (docs/api.md, "The customer's page"): on TRON the bare address,
// the one form every wallet reads (no TRON payment URI is standard), and on TRON's mainnet a link to
// Trust Wallet's documented send route, which carries the asset and the amount
// (https://developer.trustwallet.com/developer/develop-for-trust/deeplinking, "Send Payment"; the
// asset as a Universal Asset ID, c195 for TRX and c195_t{contract} for a TRC20 token:
// https://developer.trustwallet.com/developer/new-asset/universal_asset_id); on Solana a Solana Pay transfer
// request to the owner address (never the token account: the wallet derives it from spl-token),
// with the amount due, the mint, a reference, the merchant as label and the description as message.
// Label and message are shortened (MAX_WALLET_TEXT_CHARACTERS) so that the request fits in a QR code
// any phone reads: a description may be 1000 characters, which percent-encoded is more than a QR
// code holds.

import { createHash } from 'node:crypto'
import type { Asset } from '@chainpay/domain'
import { base58 } from '@scure/base'
import QRCode from 'qrcode'

export interface PaymentRequestInput {
  chain: 'TRON' | 'SOLANA'
  /** a test network: no wallet link where the wallet knows mainnet's assets only (Trust Wallet) */
  testnet: boolean
  paymentId: string
  address: string
  asset: Pick<Asset, 'contract'>
  /** the amount still due, a decimal string in whole units */
  amount: string
  label: string | null
  message: string | null
}

export interface PaymentRequest {
  /** what the QR code encodes */
  qrText: string
  /**
   * a link that opens a wallet: any Solana wallet (Solana Pay), Trust Wallet on TRON's mainnet (no
   * TRON link is standard); null otherwise
   */
  walletLink: { url: string; app: 'solana-pay' | 'trust-wallet' } | null
}

/** SLIP-44's coin type of TRON, Trust Wallet's coin id in a Universal Asset ID */
const TRON_COIN_TYPE = 195

/** the most characters of the label or the message a wallet is given, cut at a code point */
export const MAX_WALLET_TEXT_CHARACTERS = 100
/** and the most a wallet is given of each once percent-encoded (a 4-byte character takes 12) */
const MAX_ENCODED_WALLET_TEXT = 300

/**
 * `text` percent-encoded, shortened to its first code points whose encoding fits the bounds above:
 * never a character or a percent escape cut in two. Lone surrogates, which encodeURIComponent
 * refuses, become U+FFFD.
 */
export function boundedWalletText(text: string): string {
  let encoded = ''
  let characters = 0
  for (const character of text.replace(/\p{Cs}/gu, '\uFFFD')) {
    const next = encodeURIComponent(character)
    if (characters === MAX_WALLET_TEXT_CHARACTERS || encoded.length + next.length > MAX_ENCODED_WALLET_TEXT)
      break
    encoded += next
    characters += 1
  }
  return encoded
}

export function paymentRequestOf(input: PaymentRequestInput): PaymentRequest {
  if (input.chain === 'TRON') {
    if (input.testnet) return { qrText: input.address, walletLink: null }
    const asset = `c${TRON_COIN_TYPE}${input.asset.contract === null ? '' : `_t${input.asset.contract}`}`
    const query = new URLSearchParams({ asset, address: input.address, amount: input.amount })
    const url = `https://link.trustwallet.com/send?${query}`
    return { qrText: input.address, walletLink: { url, app: 'trust-wallet' } }
  }
  // encodeURIComponent writes spaces as %20, which every Solana Pay decoder reads
  const parameters: [string, string][] = [['amount', encodeURIComponent(input.amount)]]
  if (input.asset.contract !== null) parameters.push(['spl-token', encodeURIComponent(input.asset.contract)])
  parameters.push(['reference', solanaPayReference(input.paymentId)])
  if (input.label) parameters.push(['label', boundedWalletText(input.label)])
  if (input.message) parameters.push(['message', boundedWalletText(input.message)])
  const query = parameters.map(([name, value]) => `${name}=${value}`).join('&')
  const url = `solana:${input.address}?${query}`
  return { qrText: url, walletLink: { url, app: 'solana-pay' } }
}

/**
 * 32 bytes derived from the payment id, base58: the same for every load of the page. chainpay finds
 * the payment by its own address, so the reference only lets a wallet or explorer tie the
 * transaction to this request.
 */
export function solanaPayReference(paymentId: string): string {
  return base58.encode(createHash('sha256').update(`chainpay solana pay reference\0${paymentId}`).digest())
}

/**
 * The QR code as inline SVG markup: dark modules on white with the standard quiet zone, whatever the
 * page's colour scheme (some readers fail on inverted codes), error correction M.
 */
export async function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 4,
    color: { dark: '#000000ff', light: '#ffffffff' },
  })
}

// Where the customer's page links a transaction hash, as a receipt to keep (docs/api.md, "The
// customer's page"): the block explorer most wallets link for the network, mainnet and test network.
// TRON: Tronscan, run by the TRON DAO (nile.tronscan.org for Nile); Solana: the Solana Foundation's
// explorer (?cluster=devnet for devnet). A network the operator added has no explorer here: its
// hashes are shown without a link.

export interface Explorer {
  /** what the link says: the explorer's name */
  name: string
  transactionUrl(txHash: string): string
}

const tronscan = (host: string): Explorer => ({
  name: 'Tronscan',
  transactionUrl: (txHash) => `https://${host}/#/transaction/${encodeURIComponent(txHash)}`,
})

const solanaExplorer = (cluster: string | null): Explorer => ({
  name: 'Solana Explorer',
  transactionUrl: (txHash) =>
    `https://explorer.solana.com/tx/${encodeURIComponent(txHash)}${cluster === null ? '' : `?cluster=${cluster}`}`,
})

const EXPLORERS: Record<string, Explorer> = {
  TRON: tronscan('tronscan.org'),
  TRON_NILE: tronscan('nile.tronscan.org'),
  SOLANA: solanaExplorer(null),
  SOLANA_DEVNET: solanaExplorer('devnet'),
}

/** the explorer of `network`, or null for a network without one here */
export function explorerOf(network: string): Explorer | null {
  return EXPLORERS[network] ?? null
}

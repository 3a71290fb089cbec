export * from './solana-chain-client.js'
export * from './solana-rpc-errors.js'
export * from './solana-transfers.js'

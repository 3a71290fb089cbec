export * from './solana-address-reader.js'
export * from './solana-chain-client.js'
export * from './solana-rpc-errors.js'
export * from './solana-transfers.js'

export * from './simulator-driver.js'
export * from './simulator-node.js'
export * from './solana-reader-driver.js'
export * from './solana-wallet.js'

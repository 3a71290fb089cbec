export * from './simulator-driver.js'
export * from './simulator-node.js'
export * from './solana-wallet.js'

export * from './tron-balance-reader.js'
export * from './tron-block-parser.js'
export * from './tron-chain-client.js'
export * from './tron-rpc-errors.js'

export * from './price-api-server.js'
export * from './rate-source-contract.js'

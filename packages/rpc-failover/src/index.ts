export * from './endpoint-origin.js'
export * from './rpc-endpoint-pool.js'

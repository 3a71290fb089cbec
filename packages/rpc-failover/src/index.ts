export * from './rpc-endpoint-pool.js'

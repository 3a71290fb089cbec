export * from './faulty-rpc-proxy.js'
export * from './indexer-harness.js'

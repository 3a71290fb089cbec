export * from './faulty-rpc-proxy.js'
export * from './simulator-driver.js'
export * from './simulator-node.js'

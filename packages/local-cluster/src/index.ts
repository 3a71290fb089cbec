export * from './admin-client.js'
export * from './cluster-files.js'
export * from './cluster-plan.js'

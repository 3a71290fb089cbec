export * from './test-cluster.js'

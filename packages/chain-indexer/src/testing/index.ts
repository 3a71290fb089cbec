export * from './indexer-harness.js'

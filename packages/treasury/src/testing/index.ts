export * from './wallet-process.js'

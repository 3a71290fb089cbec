export * from './servers.js'

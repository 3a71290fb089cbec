export * from './event-store.js'
export * from './infrastructure.js'
export * from './infrastructure-config.js'

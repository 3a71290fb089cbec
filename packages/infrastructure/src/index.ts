export * from './event-store.js'
export * from './infrastructure.js'
export * from './infrastructure-config.js'
export * from './kafka-connection.js'

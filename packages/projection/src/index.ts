export * from './config.js'
export * from './context.js'
export * from './invoice-projection.js'
export * from './projection-service.js'

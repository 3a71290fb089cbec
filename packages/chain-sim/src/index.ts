export * from './chain-format.js'
export * from './routes.js'
export * from './simulator.js'

export * from './config.js'
export * from './first-start.js'
export * from './standalone.js'
export * from './usage.js'

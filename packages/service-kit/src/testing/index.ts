export * from './config-problems.js'
export * from './node-process.js'
export * from './prometheus-text.js'
export * from './webhook-receiver.js'
